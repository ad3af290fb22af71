"""The manual (docs/, built with MkDocs) served by the app at /help/, so a user reads it at the running address,
offline.

`manage.py bootstrap` (so `make run`) builds it into ``settings.HELP_DIR`` with :func:`build_help`, again only
when a page changed; the tests build it with the same function. The view serves the built files, nothing outside
that folder, to anyone (it is documentation), under the app's Content-Security-Policy: the theme in docs_theme/
has no inline script or style.
"""

from __future__ import annotations

import hashlib
import logging
import mimetypes
import shutil
import tempfile
from pathlib import Path

from django.conf import settings
from django.http import FileResponse, HttpRequest, HttpResponse, HttpResponseNotFound, HttpResponseRedirect
from django.views.decorators.http import require_safe

#: What the built pages are made from (relative to the project root): a change to any of them rebuilds.
HELP_SOURCES = ("mkdocs.yml", "docs", "docs_theme")
#: Written into the built folder: the fingerprint of the sources it was built from.
FINGERPRINT_FILE = ".source-fingerprint"
#: Types the platform's mimetypes table may not know (a wrong type is refused under X-Content-Type-Options).
CONTENT_TYPES = {".woff2": "font/woff2", ".woff": "font/woff", ".ttf": "font/ttf", ".map": "application/json",
                 ".js": "text/javascript", ".json": "application/json", ".svg": "image/svg+xml"}
NOT_BUILT = ("The help pages are not built here. `make run` builds them (manage.py bootstrap); "
             "the same text is in docs/ in the source tree.")


def source_fingerprint(project_dir: Path) -> str:
    """sha256 over the names and contents of every source file and the MkDocs version."""
    from mkdocs import __version__ as mkdocs_version

    digest = hashlib.sha256(f"mkdocs {mkdocs_version}\n".encode())
    for name in HELP_SOURCES:
        source = project_dir / name
        files = sorted(p for p in source.rglob("*") if p.is_file()) if source.is_dir() else [source]
        for path in files:
            digest.update(path.relative_to(project_dir).as_posix().encode() + b"\0")
            digest.update(hashlib.sha256(path.read_bytes()).digest())
    return digest.hexdigest()


def build_help(site_dir: Path, *, project_dir: Path | None = None, strict: bool = False) -> bool:
    """Build the manual of ``project_dir`` (default: the app's) into ``site_dir``, unless it already holds a build of
    the same sources. Returns whether it built. The pages are built next to ``site_dir`` and then moved in, so a
    request never reads a half-built folder."""
    from mkdocs.commands.build import build
    from mkdocs.config import load_config

    project_dir = Path(project_dir or settings.SHARE_DIR)
    site_dir = Path(site_dir)
    fingerprint = source_fingerprint(project_dir)
    stamp = site_dir / FINGERPRINT_FILE
    if stamp.is_file() and stamp.read_text().strip() == fingerprint:
        return False
    site_dir.parent.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(prefix=f".{site_dir.name}-", dir=site_dir.parent))
    mkdocs_log = logging.getLogger("mkdocs")
    level = mkdocs_log.level
    mkdocs_log.setLevel(logging.WARNING)  # its warnings (a broken link) are worth a line; its progress is not
    try:
        build(load_config(config_file=str(project_dir / "mkdocs.yml"), site_dir=str(staging), strict=strict))
        (staging / FINGERPRINT_FILE).write_text(fingerprint + "\n")
        old = site_dir.with_name(f".{site_dir.name}-old")
        shutil.rmtree(old, ignore_errors=True)
        if site_dir.exists():
            site_dir.rename(old)
        staging.rename(site_dir)
        shutil.rmtree(old, ignore_errors=True)
    finally:
        mkdocs_log.setLevel(level)
        shutil.rmtree(staging, ignore_errors=True)
    return True


def built_file(site_dir: Path, path: str) -> Path | None:
    """The file of ``site_dir`` a /help/ path names (a folder: its index.html), or None: nothing outside the folder
    (no ``..``, no absolute path, no link out), no hidden file."""
    root = site_dir.resolve()
    parts = [part for part in path.split("/") if part]
    if any(part.startswith(".") or "\\" in part or "\0" in part for part in parts):
        return None
    target = root.joinpath(*parts).resolve()
    if not target.is_relative_to(root):
        return None
    if target.is_dir():
        target = target / "index.html"
    return target if target.is_file() else None


@require_safe
def help_page(request: HttpRequest, path: str = "") -> HttpResponse:
    """GET /help/<path>: a page or asset of the built manual; 404 for anything else."""
    site_dir = Path(settings.HELP_DIR)
    if not (site_dir / "index.html").is_file():
        return HttpResponseNotFound(NOT_BUILT, content_type="text/plain; charset=utf-8")
    target = built_file(site_dir, path)
    if target is None:
        return HttpResponseNotFound("No such help page.", content_type="text/plain; charset=utf-8")
    if path and not path.endswith("/") and target.name == "index.html" and not path.endswith("index.html"):
        # A page is a folder: its relative links need the trailing slash.
        return HttpResponseRedirect(request.path + "/")
    content_type = (CONTENT_TYPES.get(target.suffix) or mimetypes.guess_type(target.name)[0]
                    or "application/octet-stream")
    if content_type.startswith("text/") or content_type in {"application/json", "image/svg+xml"}:
        content_type += "; charset=utf-8"
    return FileResponse(target.open("rb"), content_type=content_type)
