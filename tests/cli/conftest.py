"""Fixtures of the ``kakurega`` command's tests."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture
def kakurega_cache(tokyo, midwest, tmp_path, monkeypatch) -> Path:
    """A fresh KAKUREGA_CACHE_DIR (for this process and the commands it starts) holding both default models, the
    very models the web tests register (tests/model_cache.py), so the command and the web job use the same model
    and no test trains one again."""
    from kakurega.location_models import default_model_directory

    cache = tmp_path / "kakurega-cache"
    monkeypatch.setenv("KAKUREGA_CACHE_DIR", str(cache))
    for trained in (tokyo, midwest):
        trained.model.save(default_model_directory(trained.spec.name))
    return cache


def run_kakurega(*args: str, stdin: str | None = None, cwd: Path | None = None,
                 timeout: float = 600) -> subprocess.CompletedProcess:
    """``kakurega ARGS`` in a new process (``python -m kakurega``: the console script is tested by
    test_install), with this process's environment (KAKUREGA_CACHE_DIR among it)."""
    return subprocess.run([sys.executable, "-m", "kakurega", *args], input=stdin, capture_output=True, text=True,
                          cwd=cwd or ROOT, env={**os.environ, "PYTHONPATH": str(ROOT)}, timeout=timeout)
