"""The embedded server: its sized settings file, and stopping a server nobody would stop."""

from __future__ import annotations

from portal.embedded_db import INCLUDE_LINE, write_server_settings


def test_settings_file_is_included_once_and_rewritten_on_change(tmp_path):
    (tmp_path / "postgresql.conf").write_text("shared_buffers = 128MB\n")
    write_server_settings(tmp_path, {"shared_buffers": "2048MB", "work_mem": ""})
    write_server_settings(tmp_path, {"shared_buffers": "4096MB", "work_mem": "16MB"})
    main = (tmp_path / "postgresql.conf").read_text()
    assert main.count(INCLUDE_LINE) == 1
    assert main.index("shared_buffers = 128MB") < main.index(INCLUDE_LINE)  # ours wins
    conf = (tmp_path / "groundwork.conf").read_text()
    assert "shared_buffers = '4096MB'" in conf and "work_mem = '16MB'" in conf
    assert "2048MB" not in conf


def test_a_server_no_client_would_stop_is_stopped_before_its_folder_goes():
    """What ./dev test does on exit: a client killed with SIGKILL stays on pgserver's list,
    so nobody stops the throwaway server; stop_embedded_server does, whoever is attached."""
    import shutil
    import tempfile
    from pathlib import Path

    import pgserver
    import psutil  # type: ignore[import-untyped]

    from portal.embedded_db import stop_embedded_server

    # not under pytest's basetemp: the server's own OS user must be able to enter it
    folder = Path(tempfile.mkdtemp(prefix="gw-stop-"))
    try:
        data_dir = folder / "pg"
        pgserver.get_server(str(data_dir), cleanup_mode=None)  # left running at exit
        postmaster = int((data_dir / "postmaster.pid").read_text().split()[0])
        assert psutil.pid_exists(postmaster)
        assert stop_embedded_server(data_dir) is True
        assert not (data_dir / "postmaster.pid").exists()
        assert not _alive(psutil, postmaster)
        assert stop_embedded_server(data_dir) is False  # nothing left to stop
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def _alive(psutil, pid: int) -> bool:
    try:
        return psutil.Process(pid).status() != psutil.STATUS_ZOMBIE  # exited, not yet reaped
    except psutil.NoSuchProcess:
        return False


def test_attached_processes_that_exited_without_detaching_are_dropped(tmp_path, caplog):
    """A client killed with SIGKILL stays on pgserver's list, and the last client to leave
    would then never stop the server; the next start drops it, and keeps the living."""
    import json
    import os
    import subprocess
    import sys

    from portal.embedded_db import repair_handle_file

    gone = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], check=True,
                          capture_output=True, text=True)  # fmt: skip
    dead = int(gone.stdout)
    handle_file = tmp_path / ".handle_pids.json"
    handle_file.write_text(json.dumps([dead, os.getpid()]))
    with caplog.at_level("INFO", logger="portal.embedded_db"):
        repair_handle_file(tmp_path)
    assert json.loads(handle_file.read_text()) == [os.getpid()]
    assert "1 exited processes were still listed as attached" in caplog.text
    handle_file.write_text("[1, 2")  # a crash while writing it
    repair_handle_file(tmp_path)
    assert json.loads(handle_file.read_text()) == []


def test_dev_run_stops_a_server_whose_clients_all_died_without_detaching():
    """The last step of ./dev run: a gunicorn worker killed at the end of its graceful timeout
    stays on pgserver's list, so its exit would never stop the server. The server is stopped
    once every listed client is gone, and left running while one lives."""
    import json
    import os
    import shutil
    import subprocess
    import sys
    import tempfile
    import time
    from pathlib import Path

    import pgserver
    import psutil

    from portal.embedded_db import stop_embedded_server_if_unused

    folder = Path(tempfile.mkdtemp(prefix="gw-unused-"))  # the server's OS user must enter it
    try:
        data_dir = folder / "pg"
        pgserver.get_server(str(data_dir), cleanup_mode=None)  # lists this process
        postmaster = int((data_dir / "postmaster.pid").read_text().split()[0])
        handle_file = data_dir / ".handle_pids.json"
        assert json.loads(handle_file.read_text()) == [os.getpid()]
        assert stop_embedded_server_if_unused(data_dir) is False  # we are alive and attached
        assert psutil.pid_exists(postmaster)

        gone = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"],
                              check=True, capture_output=True, text=True)  # fmt: skip
        # a worker killed with SIGKILL, and one not reaped yet (its master exited first)
        zombie = subprocess.Popen([sys.executable, "-c", "pass"])
        while psutil.Process(zombie.pid).status() != psutil.STATUS_ZOMBIE:
            time.sleep(0.05)
        handle_file.write_text(json.dumps([int(gone.stdout), zombie.pid]))
        assert stop_embedded_server_if_unused(data_dir) is True
        zombie.wait()
        assert not _alive(psutil, postmaster)
        assert json.loads(handle_file.read_text()) == []
    finally:
        shutil.rmtree(folder, ignore_errors=True)
