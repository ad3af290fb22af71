"""The ``kakurega`` command(s) of this module (to be written)."""

from __future__ import annotations

import typer


def register(app: typer.Typer) -> None:
    """Add this module's command(s) to ``app``."""
