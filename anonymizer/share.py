"""Where Kakurega finds the files it ships and only reads (the corpora and gazetteer of data/, the web app's
templates/, static/ and locale/ (the interface's catalogs), the manual's docs/, docs_theme/ and mkdocs.yml,
gunicorn.conf.py for ``kakurega serve``),
and where the web app keeps its state by default. Pure, importing nothing of Kakurega: the cores, the
``kakurega`` package and the web app's settings all ask here.

Run from a checkout, they are the checkout's own folders. Installed (``pip install .``), the build copies them into
the package as ``kakurega/share/`` (setup.py), since site-packages has no data/ beside the packages."""

from __future__ import annotations

import os
from pathlib import Path

#: The folder holding the ``anonymizer`` package: a checkout's root, or site-packages when installed.
PACKAGES_ROOT = Path(__file__).resolve().parent.parent
#: What the build copies into kakurega/share/ (setup.py reads this list too).
SHIPPED = ("data", "templates", "static", "locale", "docs", "docs_theme", "mkdocs.yml", "gunicorn.conf.py")


def in_checkout() -> bool:
    """Whether the packages run from a source checkout (its data/ and templates/ beside them)."""
    return (PACKAGES_ROOT / "data" / "README.md").is_file() and (PACKAGES_ROOT / "templates").is_dir()


def share_dir() -> Path:
    """The folder holding SHIPPED: the checkout's root, else the installed package's copy."""
    return PACKAGES_ROOT if in_checkout() else PACKAGES_ROOT / "kakurega" / "share"


def shipped_data_dir() -> Path:
    """The shipped data folder (``data/`` of a checkout)."""
    return share_dir() / "data"


def default_var_dir() -> Path:
    """Where the web app keeps its state (database, uploads, models) unless VAR_DIR says: the checkout's var/, or
    for an installed copy ``$XDG_DATA_HOME/kakurega`` (``~/.local/share/kakurega``): never inside site-packages."""
    if in_checkout():
        return PACKAGES_ROOT / "var"
    xdg = os.environ.get("XDG_DATA_HOME")
    base = Path(xdg).expanduser() if xdg and Path(xdg).is_absolute() else Path.home() / ".local" / "share"
    return base / "kakurega"
