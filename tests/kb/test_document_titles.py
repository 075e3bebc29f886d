"""The title of a PDF or Word upload: its metadata title when that names something, else its
first heading, else the file name; a title given explicitly still wins. Files built here."""

from __future__ import annotations

import io

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile

from kb.ingestion.titles import usable_title
from kb.models import Document
from kb.worker import run_queued_tasks
from portal.access.services import project_ensure
from tests.conftest import make_user, token_for

BODY = (
    "The loading dock opens at six. Deliveries after noon wait for the next morning, and "
    "the dock manager signs every pallet in before it leaves the bay."
)


def pdf_bytes(*, metadata_title: str | None = None, heading: str | None = None) -> bytes:
    """One page: an optional heading set large, then body text; optional /Title."""
    from fpdf import FPDF

    pdf = FPDF(format="A4")
    if metadata_title is not None:
        pdf.set_title(metadata_title)
    pdf.add_page()
    pdf.set_font("Helvetica", size=9)
    pdf.cell(0, 6, "Internal - do not forward", new_x="LMARGIN", new_y="NEXT")  # running head
    if heading is not None:
        pdf.set_font("Helvetica", style="B", size=20)
        pdf.multi_cell(0, 10, heading, new_x="LMARGIN", new_y="NEXT")
    pdf.set_font("Helvetica", size=11)
    pdf.multi_cell(0, 6, BODY * 3)
    return bytes(pdf.output())


def docx_bytes(
    *, metadata_title: str | None = None, heading: str | None = None, title_style: str = ""
) -> bytes:
    """Body text after an optional heading (level 1) and an optional Title-styled line."""
    import docx

    document = docx.Document()
    document.core_properties.title = metadata_title or ""
    if title_style:
        document.add_heading(title_style, level=0)  # the "Title" style
    document.add_paragraph("Read this before the first shift.")
    if heading is not None:
        document.add_heading(heading, level=1)
    document.add_paragraph(BODY)
    out = io.BytesIO()
    document.save(out)
    return out.getvalue()


@pytest.mark.parametrize(
    ("title", "usable"),
    [
        ("Loading dock rules", True),
        ("Guide to Node.js services", True),  # a dot in a title is not a file name
        ("", False),
        ("   \t ", False),
        ("Untitled", False),
        ("untitled document", False),
        ("Document1", False),
        ("Microsoft Word - dock-rules.docx", False),
        ("C:\\Users\\kim\\Desktop\\dock rules.pdf", False),
        ("dock-rules", False),  # the upload's own file name (dock-rules.pdf)
        ("Dock rules", False),
        ("dock-rules.pdf", False),
        ("---", False),
    ],
)
def test_a_metadata_title_is_used_only_when_it_names_something(title, usable):
    assert (usable_title(title, source_path="uploads/dock-rules.pdf") != "") is usable
    if usable:
        assert usable_title(f"  {title} ", source_path="dock-rules.pdf") == title


@pytest.fixture
def editor(alpha):
    project_ensure(key="ops")
    return make_user(alpha, "title-editor", projects={"ops": "editor"})


def _uploaded_titles(alpha, editor, files: dict[str, bytes]) -> dict[str, str]:
    client = alpha.client(HTTP_AUTHORIZATION=f"Token {token_for(alpha, editor)}")
    response = client.post(
        "/api/kb/documents",
        {
            "project_key": "ops",
            "files": [SimpleUploadedFile(name, data) for name, data in files.items()],
        },
    )
    assert response.status_code == 202, response.content
    assert run_queued_tasks() >= len(files)  # (a task another test left may run too)
    documents = Document.objects.filter(project__key="ops", source_path__in=list(files))
    assert documents.count() == len(files)
    return {document.source_path: document.title for document in documents}


def test_uploaded_pdfs_take_their_metadata_title_else_their_first_heading(alpha, editor):
    titles = _uploaded_titles(
        alpha,
        editor,
        {
            "meta.pdf": pdf_bytes(metadata_title="Loading dock handbook", heading="Dock"),
            "junk-meta.pdf": pdf_bytes(
                metadata_title="Microsoft Word - junk-meta.docx", heading="Night deliveries"
            ),
            "heading-only.pdf": pdf_bytes(heading="Pallet labelling standard"),
            "same-as-file.pdf": pdf_bytes(metadata_title="same as file", heading="Forklift care"),
            "plain_notes.pdf": pdf_bytes(),  # no title, no heading
        },
    )
    assert titles == {
        "meta.pdf": "Loading dock handbook",
        "junk-meta.pdf": "Night deliveries",
        "heading-only.pdf": "Pallet labelling standard",
        "same-as-file.pdf": "Forklift care",
        "plain_notes.pdf": "Plain notes",
    }


def test_uploaded_word_files_take_their_metadata_title_else_their_first_heading(alpha, editor):
    titles = _uploaded_titles(
        alpha,
        editor,
        {
            "meta.docx": docx_bytes(metadata_title="Dock safety guide", heading="Scope"),
            "untitled.docx": docx_bytes(metadata_title="Untitled", heading="Shift handover"),
            "styled.docx": docx_bytes(title_style="Yard map", heading="Gates"),
            "blank-meta.docx": docx_bytes(metadata_title="  ", heading="Visitor passes"),
            "no_heading.docx": docx_bytes(),
        },
    )
    assert titles == {
        "meta.docx": "Dock safety guide",
        "untitled.docx": "Shift handover",
        "styled.docx": "Yard map",
        "blank-meta.docx": "Visitor passes",
        "no_heading.docx": "No heading",
    }


def test_an_explicit_title_still_wins(alpha):
    from kb.services import document_ingest

    project = project_ensure(key="ops")
    given = document_ingest(
        project=project,
        source_path="chosen.pdf",
        content=pdf_bytes(metadata_title="Loading dock handbook", heading="Dock"),
        title="Chosen by the caller",
    )
    assert given.document.title == "Chosen by the caller"
    front = document_ingest(
        project=project,
        source_path="front.md",
        content="---\ntitle: From frontmatter\n---\n# A heading\n\nText.\n",
    )
    assert front.document.title == "From frontmatter"
