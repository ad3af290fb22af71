"""Kakurega without a server: the ``kakurega`` command (``kakurega.cli``) and the Python API a notebook uses
(docs/python.md). Nothing here imports Django, Redis or a database; ``kakurega serve`` starts the web app and
``--server URL --token T`` sends a file command to one.

The API's names are imported on first use (``import kakurega`` stays quick: the language models load only when
a function needs them)."""

from __future__ import annotations

from importlib import import_module
from typing import Any

from anonymizer.threads import prefer_one_thread

__version__ = "0.1.0"

# One BLAS thread per process, as the web app's (anonymizer/threads.py): set before numpy is imported, when this
# package is (the command; a notebook that imported numpy first gets it where bytes depend on it).
prefer_one_thread()

# Public name -> the module that defines it.
_API = {
    "inspect": "kakurega.location",
    "load_location_model": "kakurega.location_models",
    "train_location_model": "kakurega.location_models",
    "evaluate_protection": "kakurega.location_models",
    "deidentify_csv": "kakurega.deidentify",
    "deidentify_frame": "kakurega.deidentify",
    "remove_time_csv": "kakurega.time",
    "remove_time_frame": "kakurega.time",
    "kanon_csv": "kakurega.kanon",
    "kanon_frame": "kakurega.kanon",
    "Server": "kakurega.remote",
}

__all__ = ["__version__", *_API]


def __getattr__(name: str) -> Any:
    if name not in _API:
        raise AttributeError(f"module 'kakurega' has no attribute {name!r}")
    value = getattr(import_module(_API[name]), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(__all__)
