"""What `make run` starts — embedded Redis, a Celery worker and gunicorn from Procfile.local under honcho —
comes up healthy and stops completely on Ctrl-C. (Creating the venv is not repeated here; the Makefile's
install step is the same `pip install -r requirements.txt` this suite runs in.)"""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import time
import urllib.error
import urllib.request

import pytest

from tests.helpers import ROOT
from webapp.embedded_redis import free_port

pytestmark = pytest.mark.worker


def get_json(url: str) -> tuple[int, dict]:
    try:
        with urllib.request.urlopen(url, timeout=5) as response:
            return response.status, json.load(response)
    except urllib.error.HTTPError as error:
        return error.code, json.load(error)


def test_make_run_stack_serves_healthz_and_stops_on_ctrl_c(tmp_path):
    web_port, redis_port = free_port(), free_port()
    env = {k: v for k, v in os.environ.items() if k not in ("REDIS_URL", "DATABASE_URL", "DJANGO_SETTINGS_MODULE")}
    env.update(VAR_DIR=str(tmp_path / "var"), PORT=str(web_port), EMBEDDED_REDIS_PORT=str(redis_port),
               PYTHON=str(ROOT / ".venv" / "bin" / "python"))
    # Same steps as `make run` after the install: bootstrap, then the Procfile under honcho.
    subprocess.run(["make", "--no-print-directory", "migrate"], cwd=ROOT, env=env, check=True, capture_output=True)
    process = subprocess.Popen(["make", "--no-print-directory", "run"], cwd=ROOT, env=env, start_new_session=True,
                               stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    try:
        deadline, status, report = time.monotonic() + 90, None, {}
        while time.monotonic() < deadline and status != 200:
            time.sleep(1)
            try:
                status, report = get_json(f"http://127.0.0.1:{web_port}/healthz")
            except (urllib.error.URLError, ConnectionError, TimeoutError, json.JSONDecodeError):  # not up yet
                continue
        assert status == 200, report
        assert report["checks"]["database"]["detail"] == "sqlite"
        assert f"127.0.0.1:{redis_port}" in report["checks"]["broker"]["detail"]
        assert (tmp_path / "var" / "redis" / "redis.conf").exists()
    finally:
        os.killpg(process.pid, signal.SIGINT)  # what Ctrl-C in the terminal sends to the whole group
        output, _ = process.communicate(timeout=60)
    assert f"Kakurega: http://127.0.0.1:{web_port}/" in output
    # honcho took the Ctrl-C and stopped each process of the Procfile in turn (not one crashing the others).
    assert "SIGINT received" in output, output[-2000:]
    for name in ("redis", "worker", "web"):
        assert f"{name}.1 stopped" in output, output[-2000:]
    # Every process of the stack is gone: nothing listens any more.
    for port in (web_port, redis_port):
        with pytest.raises(OSError):
            socket.create_connection(("127.0.0.1", port), timeout=1).close()
