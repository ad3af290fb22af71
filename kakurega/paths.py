"""Where the ``kakurega`` command and API find the data Kakurega ships and keep what they build.

- The data folder (corpora the default models train on, the gazetteer, the kanon configurations): the checkout's
  ``data/`` when run from one, else the installed package's copy; ``KAKUREGA_DATA_DIR`` overrides both.
- The cache folder (default models trained on first use, cached recognition results): ``KAKUREGA_CACHE_DIR``,
  else ``$XDG_CACHE_HOME/kakurega``, else ``~/.cache/kakurega`` (the XDG base-directory rule)."""

from __future__ import annotations

import os
from pathlib import Path

from anonymizer.share import shipped_data_dir


def data_dir() -> Path:
    """The folder of Kakurega's shipped data (``data/`` of a checkout)."""
    if configured := os.environ.get("KAKUREGA_DATA_DIR"):
        return Path(configured).expanduser().resolve()
    return shipped_data_dir()


def cache_dir() -> Path:
    """The folder this user's Kakurega keeps its trained default models and caches in (created on demand by
    whoever writes there)."""
    if configured := os.environ.get("KAKUREGA_CACHE_DIR"):
        return Path(configured).expanduser().resolve()
    xdg = os.environ.get("XDG_CACHE_HOME")
    base = Path(xdg).expanduser() if xdg and Path(xdg).is_absolute() else Path.home() / ".cache"
    return (base / "kakurega").resolve()
