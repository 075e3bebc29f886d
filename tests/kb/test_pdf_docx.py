"""PDF and Word extraction on the committed sample files (no database)."""

from __future__ import annotations

import copy
import io
from pathlib import Path

import pytest

from kb.ingestion.chunk import chunk_text
from kb.ingestion.docx import DocxProblem, docx_check, docx_to_text
from kb.ingestion.extract import UnsupportedSource, extract
from kb.ingestion.pdf import PdfProblem, pdf_check, pdf_to_text

SAMPLES = Path(__file__).parent / "samples"


def test_pdf_pages_become_sections_and_page_numbers_reach_the_chunks():
    pdf = pdf_to_text((SAMPLES / "handbook.pdf").read_bytes())
    assert (pdf.title, pdf.pages) == ("Storage operations handbook", 3)
    assert [line for line in pdf.text.splitlines() if line.startswith("## ")] == [
        "## Page 1",
        "## Page 2",
        "## Page 3",
    ]
    chunks = list(chunk_text(pdf.text, title=pdf.title))
    vault = next(chunk for chunk in chunks if "Kestrel backup vault" in chunk.text)
    assert vault.heading_path == "Storage operations handbook > Page 3"


def test_a_two_column_page_reads_each_column_top_to_bottom():
    text = pdf_to_text((SAMPLES / "handbook.pdf").read_bytes()).text
    page = text.split("## Page 2")[1].split("## Page 3")[0]
    left_start, left_end = page.index("LEFT COLUMN."), page.index("The left column ends here.")
    right_start = page.index("RIGHT COLUMN.")
    assert page.index("Night shift duties") < left_start < left_end < right_start
    # no line of the right column slipped into the left one
    assert "RIGHT" not in page[left_start:left_end] and "shift log" not in page[:right_start]


def test_a_ruled_table_stays_one_table():
    text = pdf_to_text((SAMPLES / "handbook.pdf").read_bytes()).text
    assert (
        "| Vault | Retention | Key rotation |\n| --- | --- | --- |\n"
        "| Kestrel | 400 days | 45 days |\n| Osprey | 90 days | 30 days |"
    ) in text


@pytest.mark.parametrize(
    ("name", "code", "message"),
    [
        ("encrypted.pdf", "encrypted", "encrypted"),
        ("scanned.pdf", "no_text", "no text layer"),
    ],
)
def test_encrypted_and_scanned_pdfs_are_refused_with_the_reason(name, code, message, settings):
    # without Tesseract (an unfindable command): a scan is refused as it always was
    settings.KB = {**settings.KB, "OCR_TESSERACT_CMD": "/nonexistent/bin/tesseract"}
    data = (SAMPLES / name).read_bytes()
    with pytest.raises(PdfProblem, match=message) as caught:
        pdf_check(data)
    assert caught.value.code == code
    with pytest.raises(UnsupportedSource, match=message):
        extract(source_path=name, content=data)


def test_garbage_is_an_unreadable_pdf_not_a_crash():
    with pytest.raises(PdfProblem) as caught:
        pdf_check(b"%PDF-1.7 truncated")
    assert caught.value.code == "unreadable"


def test_word_headings_become_the_heading_path_and_tables_stay_tables():
    word = docx_to_text((SAMPLES / "incident-guide.docx").read_bytes())
    assert word.title == "Incident response guide"
    assert "| SEV1 | Customers cannot log in |" in word.text
    assert "- Call the duty manager\n- Post a status update" in word.text
    paths = [chunk.heading_path for chunk in chunk_text(word.text, title=word.title)]
    assert "Incident response guide > Paging > Escalation" in paths
    assert "Incident response guide > Severity levels" in paths


def test_an_empty_or_broken_word_file_is_refused():
    import docx

    buffer = io.BytesIO()
    docx.Document().save(buffer)
    with pytest.raises(DocxProblem, match="no text") as caught:
        docx_check(buffer.getvalue())
    assert caught.value.code == "no_text"
    with pytest.raises(DocxProblem, match="not a readable Word document"):
        docx_check(b"PK\x03\x04 not really a zip")


def test_text_that_looks_like_markup_stays_text():
    from fpdf import FPDF

    pdf = FPDF()
    pdf.add_page()
    pdf.set_font("Helvetica", size=11)
    pdf.cell(0, 8, "# not a heading", new_x="LMARGIN", new_y="NEXT")
    text = pdf_to_text(bytes(pdf.output())).text
    assert "\\# not a heading" in text
    assert [c.heading_path for c in chunk_text(text, title="T")] == ["T > Page 1"]


def _word(paragraphs):
    import docx

    document = docx.Document()
    document.add_heading("Declaring a downtime", level=1)
    for text, style, numbered_like in paragraphs:
        paragraph = document.add_paragraph(text, style=style)
        if numbered_like:
            # direct numbering, as Word writes it: "List Paragraph" plus the list's numPr
            source = document.styles[numbered_like].element.pPr.numPr
            paragraph._p.get_or_add_pPr().append(copy.deepcopy(source))
    buffer = io.BytesIO()
    document.save(buffer)
    return docx_to_text(buffer.getvalue()).text


def test_word_numbered_lists_stay_numbered_and_bullets_stay_bullets():
    text = _word(
        [
            ("Phone the service desk.", "List Number", None),
            ("The engineer confirms the fault.", "List Number", None),
            ("The duty manager declares it.", "List Number", None),
            ("Planned downtime is announced.", "List Bullet", None),
        ]
    )
    assert "1. Phone the service desk.\n2. The engineer confirms the fault.\n3. The duty" in text
    assert "- Planned downtime is announced." in text
    direct = _word(
        [
            ("Stop the line.", "List Paragraph", "List Number"),
            ("Call QA.", "List Paragraph", "List Number"),
            ("A note.", "List Paragraph", "List Bullet"),
        ]
    )
    assert "1. Stop the line.\n2. Call QA.\n- A note." in direct
