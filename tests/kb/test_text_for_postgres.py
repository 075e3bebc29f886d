"""Characters PostgreSQL refuses in text (NUL, lone surrogates) never reach it from a document:
a PDF with a NUL in its title is ingested (it used to fail its job with a DataError), and a
fuzz test feeds every format's metadata and text with them, through the database."""

from __future__ import annotations

import dataclasses
import io
import json
from typing import Any

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from kb.ingestion.prepare import prepare_document
from kb.models import Document, IngestJob
from kb.services import document_ingest
from kb.worker import run_queued_tasks
from portal.access.services import project_ensure
from tests.conftest import make_user, token_for
from tests.kb.pdfs import raw_pdf, text_operators

pytestmark = pytest.mark.django_db

REFUSED = ("\x00", "\ud800", "\udbff", "\udc00", "\udfff")


def pg_safe(value: Any) -> bool:
    """True when PostgreSQL would store every string in `value` as text."""
    if isinstance(value, str):
        try:
            value.encode("utf-8")
        except UnicodeEncodeError:
            return False
        return "\x00" not in value
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return all(pg_safe(getattr(value, f.name)) for f in dataclasses.fields(value))
    if isinstance(value, dict):
        return all(pg_safe(k) and pg_safe(v) for k, v in value.items())
    if isinstance(value, list | tuple | set):
        return all(pg_safe(item) for item in value)
    return True


def test_a_pdf_with_a_nul_in_its_title_is_ingested(alpha):
    project_ensure(key="nul")
    editor = make_user(alpha, "nul-editor", projects={"nul": "editor"})
    client = alpha.client(HTTP_AUTHORIZATION=f"Token {token_for(alpha, editor)}")
    data = raw_pdf(
        text_operators(b"Quarterly failover drill: promote the replica."),
        info=b"/Title (Evil\\000Title) /Author (Mallory\\000)",
    )
    response = client.post(
        "/api/kb/documents",
        {"project_key": "nul", "files": [SimpleUploadedFile("evil.pdf", data)]},
    )
    assert response.status_code == 202, response.content
    run_queued_tasks()
    job = IngestJob.objects.get(source_path="evil.pdf")
    assert (job.state, job.error) == ("done", "")
    document = Document.objects.get(pk=job.document_id)
    assert document.title == "EvilTitle"


# --- fuzz ---------------------------------------------------------------------------------

plain = st.text(st.characters(codec="utf-8"), max_size=20)
# every field holds at least one character PostgreSQL refuses, among any others
nasty = st.builds(lambda head, bad, tail: head + bad + tail, plain, st.sampled_from(REFUSED), plain)


def _yaml(value: str) -> str:
    # JSON strings are YAML: \u0000 and \ud800 escapes become those characters when parsed
    return json.dumps(value)


def markdown_source(title: str, tag: str, body: str) -> str:
    return (
        f"---\ntitle: {_yaml(title)}\ntags: [{_yaml(tag)}]\nsummary: {_yaml(body)}\n"
        f"owners: [{_yaml(tag)}]\nrelated: [{_yaml(tag)}]\n---\n\n# {title}\n\n{body}\n"
    )


def html_source(title: str, tag: str, body: str) -> str:
    return (
        f"<html><head><title>{title}</title></head><body><h1>{tag}</h1><p>{body}</p></body></html>"
    )


def _pdf_string(text: str) -> bytes:
    """A PDF literal string body for `text` (PDFDocEncoding bytes, escaped)."""
    raw = text.encode("latin-1", "replace")
    out = b""
    for byte in raw:
        out += b"\\%03o" % byte if byte < 32 or byte > 126 or byte in b"()\\" else bytes([byte])
    return out


def pdf_source(title: str, tag: str, body: str) -> bytes:
    utf16 = "\ufeff" + title
    title_hex = utf16.encode("utf-16-be", "surrogatepass").hex().encode()
    info = b"/Title <" + title_hex + b"> /Subject (" + _pdf_string(tag) + b")"
    return raw_pdf(text_operators(b"Body text " + _pdf_string(body)), info=info)


def docx_source(title: str, tag: str, body: str) -> bytes:
    import docx

    document = docx.Document()

    def xml_safe(text: str) -> str:
        # XML cannot carry NUL or surrogates at all: a Word file never holds them
        return "".join(c for c in text if c not in REFUSED and (c >= " " or c in "\t\n"))

    try:
        document.core_properties.title = xml_safe(title)
        document.add_heading(xml_safe(tag) or "x", level=1)
        document.add_paragraph(xml_safe(body))
    except ValueError:  # lxml: not XML compatible
        document.add_paragraph("x")
    out = io.BytesIO()
    document.save(out)
    return out.getvalue()


SOURCES = {
    "doc.md": markdown_source,
    "doc.txt": lambda title, tag, body: f"{title}\n\n{tag}\n\n{body}\n",
    "doc.html": html_source,
    "doc.pdf": pdf_source,
    "doc.docx": docx_source,
}


@pytest.mark.parametrize("path", sorted(SOURCES))
@settings(
    max_examples=25,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(title=nasty, tag=nasty, body=nasty)
def test_no_extracted_field_carries_what_postgresql_refuses(alpha, path, title, tag, body):
    project = project_ensure(key="fuzz-nul")
    # every source has some text, so nothing may be refused
    content = SOURCES[path](title, tag, f"{body} drill notes")
    prepared = prepare_document(source_path=path, content=content)
    assert pg_safe(prepared), prepared
    outcome = document_ingest(project=project, source_path=path, content=content)
    assert outcome.status in {"created", "updated", "skipped"}, outcome
    stored = Document.objects.get(pk=outcome.document.pk)
    assert pg_safe([stored.title, stored.tags, stored.summary, stored.metadata])
