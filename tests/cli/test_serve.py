"""``kakurega serve`` starts what ``make run`` starts: on a free port with its own VAR_DIR it bootstraps, serves
/healthz with the database, the broker and a worker all answering, runs a file job sent with ``--server`` (the
remote side of every file command), and stops every process on Ctrl-C. A taken port is refused before anything
starts. (The make run test, tests/platform/test_make_run.py, covers the keepalive restarts both share, and a
bootstrap that trains the default models: here they are registered from the tests' model cache first, as
`ensure_default_models` would after training them, so serve's own bootstrap finds them and the test takes under
a minute instead of four.)"""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
from pathlib import Path

import psutil
import pytest

from kakurega.cli.serve import stack_commands
from tests.helpers import ROOT, csv_bytes
from tests.model_cache import cache_dir
from tests.platform.test_make_run import wait_healthy
from webapp.embedded_redis import free_port

pytestmark = pytest.mark.worker

POSTS = [["id", "text"], ["1", "I go to Tokyo with friends at 9AM."], ["2", "Tomorrow is my birthday"]]


def serve_environment(tmp_path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in ("REDIS_URL", "DATABASE_URL", "DJANGO_SETTINGS_MODULE")}
    env.update(VAR_DIR=str(tmp_path / "var"), EMBEDDED_REDIS_PORT=str(free_port()), WORKER_CONCURRENCY="1")
    return env


#: Migrate a fresh VAR_DIR, register the default models from the tests' cache (argv: name=folder ...) and print
#: the API token of a new user (made here, in the one Django process the seeding needs anyway, rather than in a
#: `django shell` of its own once the stack is up).
SEED = """import sys, django; django.setup()
from pathlib import Path
from django.core.management import call_command
from anonymizer.location.model import LocationModel
from anonymizer.location.web.services import ensure_default_models
call_command("migrate", interactive=False, verbosity=0)
cached = dict(argument.split("=", 1) for argument in sys.argv[1:])
ensure_default_models(train=lambda spec, posts: LocationModel.load(Path(cached[spec.name])))
from django.contrib.auth.models import User
from rest_framework.authtoken.models import Token
print(Token.objects.create(user=User.objects.create_user("drill", password="a long passphrase")))
"""


def seed_models(env: dict[str, str], *trained) -> str:
    """Seed VAR_DIR (SEED) and return the token it printed."""
    folders = [f"{each.spec.name}={cache_dir(each.spec)}" for each in trained]
    seeded = subprocess.run([sys.executable, "-c", SEED, *folders], cwd=ROOT, check=True, capture_output=True,
                            text=True, env={**env, "DJANGO_SETTINGS_MODULE": "webapp.settings"})
    return seeded.stdout.strip().splitlines()[-1]


def kakurega(*args: str, env: dict[str, str], **kwargs) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "kakurega", *args], cwd=ROOT, env=env, capture_output=True,
                          text=True, **kwargs)


def test_serve_runs_the_stack_a_job_sent_to_it_and_stops_everything_on_ctrl_c(tmp_path, tokyo, midwest):
    env, port = serve_environment(tmp_path), free_port()
    token = seed_models(env, tokyo, midwest)
    process = subprocess.Popen([sys.executable, "-m", "kakurega", "serve", "--port", str(port)], cwd=ROOT, env=env,
                               start_new_session=True, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    try:
        status, report = wait_healthy(port, timeout=300)
        assert status == 200 and report == {"ok": True}  # database, broker and worker all answered
        names = {" ".join(child.cmdline()) for child in psutil.Process(process.pid).children(recursive=True)}
        for part in ("gunicorn webapp.wsgi", "celery -A webapp worker", "redis-server"):
            assert any(part in name for name in names), (part, names)
        assert (tmp_path / "var" / "db.sqlite3").exists() and (tmp_path / "var" / "redis" / "redis.conf").exists()

        posts = tmp_path / "posts.csv"
        posts.write_bytes(csv_bytes(POSTS))
        from kakurega.remote import Server

        with Server(f"http://127.0.0.1:{port}", token) as server:
            run = server.run("remove_time", posts, {"text_columns": ["text"]},
                             {".time-removed.csv": tmp_path / "out.csv"})
        assert run.summary["rows"] == 2
        assert (tmp_path / "out.csv").read_text(encoding="utf-8").splitlines() == [
            "id,text", "1,I go to Tokyo with friends.", "2,It is my birthday"]
    finally:
        os.killpg(process.pid, signal.SIGINT)  # what Ctrl-C in the terminal sends to the whole group
        output, _ = process.communicate(timeout=60)
    assert f"Kakurega: http://127.0.0.1:{port}/  (Ctrl-C stops web, worker and the embedded Redis)" in output
    assert "SIGINT received" in output, output[-2000:]
    for name in ("redis", "worker", "web"):
        assert f"{name}.1 stopped" in output, output[-2000:]
    for listening in (port, int(env["EMBEDDED_REDIS_PORT"])):
        with pytest.raises(OSError):
            socket.create_connection(("127.0.0.1", listening), timeout=1).close()
    assert token not in output


def test_a_taken_port_is_refused_before_anything_starts(tmp_path):
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        done = kakurega("serve", "--port", str(port), env=serve_environment(tmp_path), timeout=60)
    assert done.returncode == 2
    assert done.stderr.startswith(f"kakurega: error: cannot listen on 127.0.0.1:{port}: "), done.stderr
    assert not (tmp_path / "var").exists()  # no bootstrap ran


def test_the_stack_is_procfile_locals_with_this_interpreter():
    """serve and make run start the same processes: Procfile.local's lines, with `python` this interpreter."""
    procfile = {}
    for line in (ROOT / "Procfile.local").read_text(encoding="utf-8").splitlines():
        name, command = line.split(": ", 1)
        procfile[name] = (command.replace("${KAKUREGA_PORT:-8000}", "8000")
                          .replace("${WORKER_CONCURRENCY:-2}", os.environ.get("WORKER_CONCURRENCY", "2"))
                          .replace("-- gunicorn", "-- python -m gunicorn").replace("-- celery", "-- python -m celery"))
    served = {name: " ".join(command).replace(sys.executable, "python")
              for name, command in stack_commands("127.0.0.1", 8000, embedded_redis=True).items()}
    assert served == procfile
    assert set(stack_commands("127.0.0.1", 8000, embedded_redis=False)) == {"web", "worker"}
    # An installed copy names the shipped gunicorn.conf.py (a checkout's is read from the working directory).
    web = stack_commands("127.0.0.1", 8000, embedded_redis=False, gunicorn_config=Path("/share/gunicorn.conf.py"))
    assert web["web"][web["web"].index("gunicorn") + 1:][:3] == ["--config", "/share/gunicorn.conf.py", "webapp.wsgi"]
