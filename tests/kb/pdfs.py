"""Hand-written PDFs for tests that need bytes no PDF library would write (a NUL in the
metadata, a content stream that inflates to 256 MiB): one page, Helvetica, a given content
stream and an optional document information dictionary."""

from __future__ import annotations

import io
import zlib


def raw_pdf(content: bytes, *, info: bytes = b"", flate: bool = False) -> bytes:
    """A one-page PDF whose page draws `content` (raw operators); `info` is the body of the
    /Info dictionary (e.g. b"/Title (Evil\\\\000Title)"); `content` is Flate-coded when `flate`
    and then passed as already compressed bytes."""
    stream_dict = b"<< /Length %d%s >>" % (len(content), b" /Filter /FlateDecode" if flate else b"")
    objects = [
        b"<< /Type /Catalog /Pages 2 0 R >>",
        b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
        b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 4 0 R "
        b"/Resources << /Font << /F1 5 0 R >> >> >>",
        stream_dict + b"\nstream\n" + content + b"\nendstream",
        b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>",
    ]
    if info:
        objects.append(b"<< " + info + b" >>")
    out = io.BytesIO()
    out.write(b"%PDF-1.4\n")
    offsets = []
    for number, body in enumerate(objects, start=1):
        offsets.append(out.tell())
        out.write(b"%d 0 obj\n" % number + body + b"\nendobj\n")
    xref = out.tell()
    out.write(b"xref\n0 %d\n0000000000 65535 f \n" % (len(objects) + 1))
    for offset in offsets:
        out.write(b"%010d 00000 n \n" % offset)
    trailer = b"<< /Size %d /Root 1 0 R" % (len(objects) + 1)
    if info:
        trailer += b" /Info %d 0 R" % len(objects)
    out.write(b"trailer\n" + trailer + b" >>\n")
    out.write(b"startxref\n%d\n%%%%EOF\n" % xref)
    return out.getvalue()


def text_operators(*lines: bytes) -> bytes:
    """Content that shows each line (a PDF string's body, escaped) one below the other."""
    ops = [b"BT /F1 12 Tf 72 720 Td 14 TL"]
    ops += [b"(" + line + b") '" for line in lines]
    return b"\n".join([*ops, b"ET"]) + b"\n"


def flate(data: bytes) -> bytes:
    return zlib.compress(data, 9)
