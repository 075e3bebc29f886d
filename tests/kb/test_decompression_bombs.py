"""Decompression bombs: a small Word file whose zip part inflates to 256 MiB, a small PDF whose
content stream does. Each is refused before anything inflates it (upload check, worker,
any ingest path) with a clear per-file 422, not read into memory twice over."""

from __future__ import annotations

import io
import tracemalloc
import zipfile
import zlib
from pathlib import Path

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile

from kb.ingestion.extract import UnsupportedSource, extract
from kb.ingestion.formats import ExtractionProblem
from kb.ingestion.pdf import pdf_check
from kb.models import IngestJob
from portal.access.services import project_ensure
from tests.conftest import make_user, token_for
from tests.kb.pdfs import raw_pdf, text_operators

SAMPLES = Path(__file__).parent / "samples"
MIB = 1024 * 1024
BOMB_BYTES = 256 * MIB
# what a check may allocate at most: far below the 256 MiB a bomb inflates to
CHECK_MEMORY_BYTES = 32 * MIB


def docx_bomb() -> bytes:
    """The sample Word file plus an image part, linked from the document, of 256 MiB of zeros
    (stored as about 256 KiB)."""
    source = zipfile.ZipFile(SAMPLES / "incident-guide.docx")
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as bomb:
        for item in source.infolist():
            data = source.read(item)
            if item.filename == "word/_rels/document.xml.rels":
                data = data.replace(
                    b"</Relationships>",
                    b'<Relationship Id="rId99" Type="http://schemas.openxmlformats.org/'
                    b'officeDocument/2006/relationships/image" Target="media/image1.png"/>'
                    b"</Relationships>",
                )
            if item.filename == "[Content_Types].xml" and b'Extension="png"' not in data:
                data = data.replace(
                    b"<Default ", b'<Default Extension="png" ContentType="image/png"/><Default ', 1
                )
            bomb.writestr(item, data)
        with bomb.open("word/media/image1.png", "w") as part:
            for _ in range(BOMB_BYTES // MIB):
                part.write(bytes(MIB))
    return out.getvalue()


def pdf_bomb() -> bytes:
    """A one-page PDF whose content stream (some text, then 256 MiB of spaces) is Flate-coded
    to about 256 KiB."""
    squeeze = zlib.compressobj(9)
    stream = squeeze.compress(text_operators(b"Quarterly failover drill"))
    for _ in range(BOMB_BYTES // MIB):
        stream += squeeze.compress(b" " * MIB)
    return raw_pdf(stream + squeeze.flush(), flate=True)


@pytest.fixture(scope="module")
def bombs() -> dict[str, bytes]:
    return {"bomb.docx": docx_bomb(), "bomb.pdf": pdf_bomb()}


def test_the_bombs_are_small_files(bombs):
    assert all(len(data) < 2 * MIB for data in bombs.values())


@pytest.mark.parametrize("name", ["bomb.docx", "bomb.pdf"])
def test_an_upload_is_refused_with_a_422_and_nothing_is_queued(alpha, bombs, name):
    project_ensure(key="bombs")
    editor = make_user(alpha, "bomb-editor", projects={"bombs": "editor"})
    client = alpha.client(HTTP_AUTHORIZATION=f"Token {token_for(alpha, editor)}")
    tracemalloc.start()
    try:
        response = client.post(
            "/api/kb/documents",
            {"project_key": "bombs", "files": [SimpleUploadedFile(name, bombs[name])]},
        )
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert response.status_code == 422, response.content[:500]
    body = response.json()
    [refusal] = body["files"]
    assert (refusal["name"], refusal["code"]) == (name, "decompression_bomb")
    assert "inflates" in refusal["error"] and name in body["detail"]
    assert not IngestJob.objects.exists()
    assert peak < CHECK_MEMORY_BYTES


@pytest.mark.parametrize("name", ["bomb.docx", "bomb.pdf"])
def test_every_ingest_path_refuses_it_without_inflating_it(bombs, name):
    """extract() is what the worker, the CLI and the JSON API run."""
    tracemalloc.start()
    try:
        with pytest.raises(UnsupportedSource, match="inflates"):
            extract(source_path=name, content=bombs[name])
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert peak < CHECK_MEMORY_BYTES


def test_ordinary_files_still_pass(bombs):
    assert pdf_check((SAMPLES / "handbook.pdf").read_bytes()) == 3
    word = extract(source_path="guide.docx", content=(SAMPLES / "incident-guide.docx").read_bytes())
    assert word.text.strip()
    with pytest.raises(ExtractionProblem) as refused:
        pdf_check(bombs["bomb.pdf"])
    assert refused.value.code == "decompression_bomb"
