"""Regenerate the sample files beside this script (run once; the outputs are committed).

    .venv/bin/python tests/kb/samples/make_samples.py

fpdf2 (a dev dependency) writes the PDFs, python-docx the Word file, Pillow the scan.
"""

from __future__ import annotations

import io
from pathlib import Path

HERE = Path(__file__).resolve().parent

LOREM = (
    "Operators keep the storage tier healthy by watching replication lag, disk headroom "
    "and the age of the newest snapshot. "
)


def _fixed_dates(pdf) -> None:
    import datetime

    pdf.set_creation_date(datetime.datetime(2026, 1, 1, tzinfo=datetime.UTC))


def handbook_pdf() -> bytes:
    """Three pages: prose, a two-column page, and a ruled table with the vault facts."""
    from fpdf import FPDF

    pdf = FPDF(format="A4")
    _fixed_dates(pdf)
    pdf.set_title("Storage operations handbook")
    pdf.set_font("Helvetica", size=11)

    pdf.add_page()
    pdf.set_font("Helvetica", style="B", size=16)
    pdf.cell(0, 10, "Storage operations handbook", new_x="LMARGIN", new_y="NEXT")
    pdf.set_font("Helvetica", size=11)
    pdf.multi_cell(0, 6, LOREM * 4)
    pdf.ln(4)
    pdf.multi_cell(0, 6, "Every change to the storage tier is announced in the operations channel.")

    pdf.add_page()
    pdf.set_font("Helvetica", style="B", size=14)
    pdf.cell(0, 10, "Night shift duties", align="C", new_x="LMARGIN", new_y="NEXT")
    pdf.set_font("Helvetica", size=11)
    top = pdf.get_y()
    column = (pdf.w - pdf.l_margin - pdf.r_margin - 10) / 2
    left_text = (
        "LEFT COLUMN. The night shift starts with a look at the replication dashboard. "
        + LOREM * 3
        + "The left column ends here."
    )
    right_text = (
        "RIGHT COLUMN. Before handing over, the night shift writes the shift log. "
        + LOREM * 3
        + "The right column ends here."
    )
    pdf.set_xy(pdf.l_margin, top)
    pdf.multi_cell(column, 6, left_text)
    pdf.set_xy(pdf.l_margin + column + 10, top)
    pdf.multi_cell(column, 6, right_text)

    pdf.add_page()
    pdf.set_font("Helvetica", style="B", size=14)
    pdf.cell(0, 10, "Backup vault", new_x="LMARGIN", new_y="NEXT")
    pdf.set_font("Helvetica", size=11)
    pdf.multi_cell(
        0,
        6,
        "The Kestrel backup vault rotates its encryption keys every 45 days. "
        "Key rotation for the Kestrel vault is approved by the security lead on duty.",
    )
    pdf.ln(4)
    rows = [
        ("Vault", "Retention", "Key rotation"),
        ("Kestrel", "400 days", "45 days"),
        ("Osprey", "90 days", "30 days"),
    ]
    with pdf.table(col_widths=(40, 40, 40), width=120, align="LEFT") as table:
        for row in rows:
            cells = table.row()
            for value in row:
                cells.cell(value)
    return bytes(pdf.output())


def scanned_pdf() -> bytes:
    """One page that is only an image of text: no text layer."""
    from fpdf import FPDF
    from PIL import Image, ImageDraw

    image = Image.new("L", (600, 200), color=255)
    ImageDraw.Draw(image).text((20, 80), "A scanned page: pixels, not text.", fill=0)
    buffer = io.BytesIO()
    image.save(buffer, format="PNG")
    pdf = FPDF(format="A5")
    _fixed_dates(pdf)
    pdf.add_page()
    pdf.image(io.BytesIO(buffer.getvalue()), x=10, y=10, w=120)
    return bytes(pdf.output())


def encrypted_pdf() -> bytes:
    """A password-protected PDF (user password 'secret')."""
    from fpdf import FPDF

    pdf = FPDF(format="A5")
    _fixed_dates(pdf)
    pdf.set_encryption(owner_password="owner", user_password="secret")
    pdf.add_page()
    pdf.set_font("Helvetica", size=11)
    pdf.multi_cell(0, 6, "Only people with the password may read this.")
    return bytes(pdf.output())


def handbook_docx() -> bytes:
    """Headings on three levels, a list and a table."""
    import docx

    document = docx.Document()
    document.core_properties.title = "Incident response guide"
    document.add_heading("Incident response guide", level=1)
    document.add_paragraph("This guide says who does what when production breaks.")
    document.add_heading("Paging", level=2)
    document.add_paragraph(
        "The on-call engineer acknowledges a page within five minutes, "
        "then opens an incident channel named after the ticket."
    )
    document.add_heading("Escalation", level=3)
    document.add_paragraph("Escalate to the duty manager after thirty minutes.")
    document.add_paragraph("Call the duty manager", style="List Bullet")
    document.add_paragraph("Post a status update", style="List Bullet")
    document.add_heading("Severity levels", level=2)
    table = document.add_table(rows=3, cols=2)
    for row, (level, meaning) in zip(
        table.rows,
        [("Severity", "Meaning"), ("SEV1", "Customers cannot log in"), ("SEV2", "Degraded")],
        strict=True,
    ):
        row.cells[0].text = level
        row.cells[1].text = meaning
    buffer = io.BytesIO()
    document.save(buffer)
    return buffer.getvalue()


def main() -> None:
    (HERE / "handbook.pdf").write_bytes(handbook_pdf())
    (HERE / "scanned.pdf").write_bytes(scanned_pdf())
    (HERE / "encrypted.pdf").write_bytes(encrypted_pdf())
    (HERE / "incident-guide.docx").write_bytes(handbook_docx())
    for path in sorted(HERE.iterdir()):
        if path.suffix in {".pdf", ".docx"}:
            print(f"{path.name}: {path.stat().st_size} bytes")


if __name__ == "__main__":
    main()
