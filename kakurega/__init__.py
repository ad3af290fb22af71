"""Kakurega without a server: the ``kakurega`` command (``kakurega.cli``) and the Python API a notebook uses
(docs/python.md). Nothing here imports Django, Redis or a database; ``kakurega serve`` starts the web app and
``--server URL --token T`` sends a file command to one."""

from __future__ import annotations

__version__ = "0.1.0"
