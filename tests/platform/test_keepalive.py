"""webapp.keepalive, the wrapper of each `make run` process: a dead process is started again; asked to stop,
it stops its process for good, and kills it if it does not stop before honcho would kill the wrapper."""

from __future__ import annotations

import signal
import subprocess
import sys
import time

from tests.helpers import ROOT, wait_for


def keepalive(*command: str) -> subprocess.Popen:
    return subprocess.Popen([sys.executable, "-m", "webapp.keepalive", "drill", "--", *command], cwd=ROOT,
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)


def test_a_process_that_dies_is_started_again_until_the_wrapper_is_stopped(tmp_path):
    starts = tmp_path / "starts"
    # The first start dies at once (status 3); the second stays up, so the SIGTERM below always reaches a running
    # process (a child that exits 3 on its own while the stop arrives reports its 3: that race made this flaky).
    wrapper = keepalive("bash", "-c", f"echo start >> {starts}; [ $(wc -l < {starts}) -ge 2 ] && exec sleep 30; exit 3")
    wait_for(lambda: starts.exists() and len(starts.read_text().split()) >= 2, 10, 0.05)  # 1 s pause between
    wrapper.send_signal(signal.SIGTERM)
    output, _ = wrapper.communicate(timeout=10)
    assert wrapper.returncode == 0
    assert "exited with status 3; starting it again in 1 s" in output
    count = len(starts.read_text().split())
    time.sleep(2.5)
    assert len(starts.read_text().split()) == count  # stopped: no restart after SIGTERM


def test_a_process_that_ignores_sigterm_is_killed_with_its_group_within_the_grace(tmp_path):
    pid_file = tmp_path / "pid"
    wrapper = keepalive("bash", "-c", f"trap '' TERM; sleep 300 & echo $! > {pid_file}; wait")
    wait_for(pid_file.exists, 10, 0.05)
    time.sleep(0.3)
    started = time.monotonic()
    wrapper.send_signal(signal.SIGTERM)
    wrapper.communicate(timeout=10)
    assert time.monotonic() - started < 5  # before honcho's KILL_WAIT would kill the wrapper itself
    child = int(pid_file.read_text())
    wait_for(lambda: not alive(child), 5, 0.05)  # no orphan left (SIGKILLed; its reaping may take a moment)


def alive(pid: int) -> bool:
    """Running (a zombie, killed but not yet reaped by whoever inherited it, counts as gone)."""
    try:
        with open(f"/proc/{pid}/stat") as stat:
            return stat.read().split(") ", 1)[1][0] != "Z"
    except OSError:
        return False
