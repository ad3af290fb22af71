"""Run one process of `make run` and start it again when it dies, so one crash does not end the others.

honcho (the process runner of `make run`) stops every process once any one of them exits: a worker killed by
the kernel's OOM killer or by hand would take the web server and the embedded Redis down with it. Each line of
Procfile.local therefore runs under this wrapper: ``python -m webapp.keepalive NAME -- COMMAND ...``.

- The command runs in its own process group; when its leader exits, whatever it left behind in that group
  (a Celery worker's pool processes) is killed too, so a restarted worker never competes with orphans.
- It is started again after a pause that doubles from 1 s up to 30 s while it keeps dying at once, and resets
  once it stayed up for a minute.
- SIGTERM / SIGINT / SIGHUP (honcho stopping the stack, Ctrl-C) are passed to the command and end the wrapper
  once the command has exited (its group is killed if it takes longer than STOP_GRACE): no restart then.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time

MIN_PAUSE, MAX_PAUSE, STABLE_AFTER, STOP_GRACE = 1.0, 30.0, 60.0, 4.0


def _log(name: str, message: str) -> None:
    print(f"keepalive[{name}]: {message}", flush=True)


def _kill_group(pgid: int, sig: int) -> None:
    try:
        os.killpg(pgid, sig)
    except ProcessLookupError:
        pass


def _wait(child: subprocess.Popen, stopping: list[int]) -> int:
    """The child's exit status. Once asked to stop, the child gets STOP_GRACE seconds, then its whole group is
    killed: honcho kills this wrapper KILL_WAIT (5 s) after its SIGTERM, and a child still running then (a
    worker waiting for its job) would be left behind as an orphan."""
    stop_deadline = None
    while True:
        try:
            return child.wait(timeout=0.1)
        except subprocess.TimeoutExpired:
            if stopping and stop_deadline is None:
                stop_deadline = time.monotonic() + STOP_GRACE
            if stop_deadline is not None and time.monotonic() > stop_deadline:
                _kill_group(child.pid, signal.SIGKILL)


def run(name: str, command: list[str]) -> int:
    stopping: list[int] = []
    child: subprocess.Popen | None = None

    def on_stop(signum, _frame) -> None:
        stopping.append(signum)
        if child is not None and child.poll() is None:
            # To the leader only: a Celery worker then shuts down warmly and stops its own pool processes.
            os.kill(child.pid, signal.SIGTERM if signum == signal.SIGHUP else signum)

    for sig in (signal.SIGTERM, signal.SIGINT, signal.SIGHUP):
        signal.signal(sig, on_stop)

    pause = MIN_PAUSE
    while True:
        started = time.monotonic()
        child = subprocess.Popen(command, start_new_session=True)
        status = _wait(child, stopping)
        _kill_group(child.pid, signal.SIGKILL)  # pool processes or helpers the leader left behind
        if stopping:
            return 0 if status in (0, -signal.SIGTERM, -signal.SIGINT) else status
        if time.monotonic() - started >= STABLE_AFTER:
            pause = MIN_PAUSE
        how = f"was killed by signal {-status}" if status < 0 else f"exited with status {status}"
        _log(name, f"{' '.join(command[:3])} {how}; starting it again in {pause:g} s")
        deadline = time.monotonic() + pause
        while not stopping and time.monotonic() < deadline:
            time.sleep(0.1)
        if stopping:
            return 0
        pause = min(pause * 2, MAX_PAUSE)


def main(argv: list[str]) -> int:
    if len(argv) < 3 or argv[1] != "--":
        print("usage: python -m webapp.keepalive NAME -- COMMAND [ARGS...]", file=sys.stderr)
        return 2
    return run(argv[0], argv[2:])


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
