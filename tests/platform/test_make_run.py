"""What `make run` starts — embedded Redis, a Celery worker and gunicorn from Procfile.local under honcho —
comes up healthy, keeps serving when the worker is killed (its keepalive wrapper starts it again) and stops
completely on Ctrl-C. (Creating the venv is not repeated here; the Makefile's
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

import psutil
import pytest
import requests

from tests.helpers import ROOT, wait_for, write_large_csv
from webapp.embedded_redis import free_port

pytestmark = pytest.mark.worker


def get_json(url: str) -> tuple[int, dict]:
    try:
        with urllib.request.urlopen(url, timeout=5) as response:
            return response.status, json.load(response)
    except urllib.error.HTTPError as error:
        return error.code, json.load(error)


def wait_healthy(port: int, timeout: float = 90) -> tuple[int, dict]:
    deadline, status, report = time.monotonic() + timeout, None, {}
    while time.monotonic() < deadline and status != 200:
        time.sleep(1)
        try:
            status, report = get_json(f"http://127.0.0.1:{port}/healthz")
        except (urllib.error.URLError, ConnectionError, TimeoutError, json.JSONDecodeError):  # not up yet
            continue
    return status, report


def celery_main_process(root: psutil.Process) -> psutil.Process:
    """The Celery worker's main process among the stack's processes (under its keepalive wrapper)."""
    for child in root.children(recursive=True):
        command = child.cmdline()
        if "celery" in " ".join(command[:3]) and "worker" in command and "webapp.keepalive" not in command:
            if child.parent() and "webapp.keepalive" in child.parent().cmdline():
                return child
    raise AssertionError("no celery worker process in the stack")


def test_make_run_stack_serves_healthz_survives_a_killed_worker_and_stops_on_ctrl_c(tmp_path):
    web_port, redis_port = free_port(), free_port()
    env = {k: v for k, v in os.environ.items() if k not in ("REDIS_URL", "DATABASE_URL", "DJANGO_SETTINGS_MODULE")}
    env.update(VAR_DIR=str(tmp_path / "var"), PORT=str(web_port), EMBEDDED_REDIS_PORT=str(redis_port),
               PYTHON=str(ROOT / ".venv" / "bin" / "python"),
               # A lost worker's job is noticed within seconds here (the defaults take a minute).
               JOB_HEARTBEAT_SECONDS="0.5", JOB_STALE_AFTER_SECONDS="3", JOB_SWEEP_SECONDS="0.5")
    # Same steps as `make run` after the install: bootstrap, then the Procfile under honcho.
    subprocess.run(["make", "--no-print-directory", "migrate"], cwd=ROOT, env=env, check=True, capture_output=True)
    token = subprocess.run(
        [env["PYTHON"], "manage.py", "shell", "-c",
         "from django.contrib.auth.models import User; from rest_framework.authtoken.models import Token; "
         "print(Token.objects.create(user=User.objects.create_user('drill', password='a long drill passphrase')))"],
        cwd=ROOT, env=env, check=True, capture_output=True, text=True).stdout.strip().splitlines()[-1]
    process = subprocess.Popen(["make", "--no-print-directory", "run"], cwd=ROOT, env=env, start_new_session=True,
                               stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    base = f"http://127.0.0.1:{web_port}"
    session = requests.Session()
    session.headers["Authorization"] = f"Token {token}"
    try:
        status, report = wait_healthy(web_port)
        assert status == 200 and report == {"ok": True}  # no detail (worker host names) for anonymous callers
        # The manual, built from docs/ by bootstrap, is served at the same address, to anyone.
        manual = requests.get(f"{base}/help/location/", timeout=10)
        assert manual.status_code == 200 and 'id="threat-model"' in manual.text
        var = tmp_path / "var"
        # The interface's catalogs, compiled from locale/ into the new instance's var/locale as it starts: a
        # browser asking for Japanese gets Japanese pages, with no GNU gettext on the machine's path needed.
        login = requests.get(f"{base}/accounts/login/", headers={"Accept-Language": "ja"}, timeout=10)
        assert '<html lang="ja">' in login.text and "本文へ移動" in login.text
        assert (var / "locale" / "ja" / "LC_MESSAGES" / "django.mo").is_file()
        assert (var / "redis" / "redis.conf").exists() and (var / "db.sqlite3").exists()
        assert (var / "redis" / "appendonly.aof").exists()
        # Every file of the instance is private to its user: the database holds API tokens and sessions.
        loose = [str(path) for path in var.rglob("*") if path.is_file() and path.stat().st_mode & 0o077]
        assert not loose, loose

        # A worker killed mid-job (kill -9, as the OOM killer would): the site keeps serving, the job is failed
        # with the reason within seconds, and the restarted worker runs the next job.
        big = write_large_csv(tmp_path / "big.csv", rows=600_000)
        with big.open("rb") as handle:
            upload = session.post(f"{base}/api/v1/uploads/", files={"file": ("big.csv", handle, "text/csv")})
        assert upload.status_code == 201, upload.text
        job = session.post(f"{base}/api/v1/jobs/", json={"kind": "profile_csv", "inputs": [upload.json()["id"]]})
        assert job.status_code == 201, job.text
        job_url = job.json()["url"]
        wait_for(lambda: session.get(job_url).json()["status"] == "running", 60, 0.05)
        celery_main_process(psutil.Process(process.pid)).kill()
        assert session.get(f"{base}/").status_code == 200  # web and Redis did not go down with it
        failed = wait_for(lambda: (j := session.get(job_url).json())["status"] != "running" and j, 20, 0.5)
        assert failed["status"] == "failed" and "stopped responding" in failed["error"], failed
        assert wait_healthy(web_port, 60)[0] == 200  # a new worker answers pings
        retried = session.post(f"{job_url}retry/")
        assert retried.status_code == 200, retried.text
        done = wait_for(lambda: (j := session.get(job_url).json())["status"] in ("succeeded", "failed") and j, 90, 0.5)
        assert done["status"] == "succeeded", done["error"]
    finally:
        os.killpg(process.pid, signal.SIGINT)  # what Ctrl-C in the terminal sends to the whole group
        output, _ = process.communicate(timeout=60)
    assert f"Kakurega: http://127.0.0.1:{web_port}/" in output
    # gunicorn's access log (webapp.access_log) names the requests, never who sent them.
    access = [line for line in output.splitlines() if '"GET /healthz HTTP/1.1" 200' in line]
    assert access and not any("127.0.0.1" in line or "urllib" in line for line in access), access[:3]
    assert "keepalive[worker]: celery -A webapp was killed by signal 9; starting it again" in output, output[-3000:]
    # honcho took the Ctrl-C and stopped each process of the Procfile in turn (not one crashing the others).
    assert "SIGINT received" in output, output[-2000:]
    for name in ("redis", "worker", "web"):
        assert f"{name}.1 stopped" in output, output[-2000:]
    # Every process of the stack is gone: nothing listens any more.
    for port in (web_port, redis_port):
        with pytest.raises(OSError):
            socket.create_connection(("127.0.0.1", port), timeout=1).close()
