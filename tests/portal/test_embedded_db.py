"""The embedded server's sized settings file (no database)."""

from __future__ import annotations

from portal.embedded_db import INCLUDE_LINE, _write_server_settings


def test_settings_file_is_included_once_and_rewritten_on_change(tmp_path):
    (tmp_path / "postgresql.conf").write_text("shared_buffers = 128MB\n")
    _write_server_settings(tmp_path, {"shared_buffers": "2048MB", "work_mem": ""})
    _write_server_settings(tmp_path, {"shared_buffers": "4096MB", "work_mem": "16MB"})
    main = (tmp_path / "postgresql.conf").read_text()
    assert main.count(INCLUDE_LINE) == 1
    assert main.index("shared_buffers = 128MB") < main.index(INCLUDE_LINE)  # ours wins
    conf = (tmp_path / "groundwork.conf").read_text()
    assert "shared_buffers = '4096MB'" in conf and "work_mem = '16MB'" in conf
    assert "2048MB" not in conf
