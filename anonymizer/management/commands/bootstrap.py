"""Prepare everything `make run` needs: database schema, static files, data and model directories.

Idempotent and quick on the second run; later capabilities add their demo data and default models here.
"""

from __future__ import annotations

import time
from pathlib import Path

from django.conf import settings
from django.core.management import call_command
from django.core.management.base import BaseCommand

from anonymizer.location.web.services import ensure_default_models
from anonymizer.platform.help import build_help
from anonymizer.preferences.web.services import ensure_default_preference_model


class Command(BaseCommand):
    help = "Migrate, collect static files and prepare demo data and models (idempotent)."

    def handle(self, *args, **options) -> None:
        started = time.perf_counter()
        for directory in (settings.MEDIA_ROOT, settings.MODEL_DIR, settings.STATIC_ROOT):
            directory.mkdir(parents=True, exist_ok=True)
        call_command("migrate", interactive=False, verbosity=0)
        if not settings.DEBUG:  # in DEBUG whitenoise serves straight from static/
            call_command("collectstatic", interactive=False, verbosity=0)
        # The default location models: trained the first time, reused while their data is unchanged.
        ensure_default_models(log=lambda line: self.stdout.write(f"bootstrap: {line}"))
        # The default location-privacy-preference model, from the aggregated check-ins in data/preferences/.
        ensure_default_preference_model(log=lambda line: self.stdout.write(f"bootstrap: {line}"))
        # The manual served at /help/, from docs/: built again only when a page changed.
        if build_help(settings.HELP_DIR):
            self.stdout.write(f"bootstrap: help pages built into {settings.HELP_DIR}")
        restricted = restrict_permissions(settings.VAR_DIR)
        if restricted:
            self.stdout.write(f"bootstrap: {restricted} file(s) under {settings.VAR_DIR} made private to this user")
        self.stdout.write(f"bootstrap: ready in {time.perf_counter() - started:.1f} s")


def restrict_permissions(directory: Path) -> int:
    """Files 0600 and directories 0700 under ``directory``: what an older release (or a copy) left readable by
    others — the database holds API tokens and sessions. New files get these modes from the process umask."""
    changed = 0
    for path in [directory, *directory.rglob("*")]:
        if path.is_symlink():
            continue
        wanted = 0o700 if path.is_dir() else 0o600
        if path.stat().st_mode & 0o777 != wanted:
            path.chmod(wanted)
            changed += not path.is_dir()
    return changed
