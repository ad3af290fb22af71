"""Does de-identification protect? Train a defender and independent attackers on disjoint posts of a default
model's corpus and compare the attackers on the original and the de-identified test posts."""

from __future__ import annotations

import json

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError, CommandParser

from anonymizer.location.defaults import DEFAULT_MODELS
from anonymizer.location.options import PLACE_POLICIES
from anonymizer.location.protection import REPLACEMENTS, evaluate_default_protection, protection_table


class Command(BaseCommand):
    help = "Attacker evaluation of the de-identifier on a default model's corpus (see docs/location.md)."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--spec", choices=[spec.name for spec in DEFAULT_MODELS], required=True)
        parser.add_argument("--max-posts", type=int, default=1000, help="test posts to de-identify")
        parser.add_argument("--seed", type=int, default=0)
        parser.add_argument("--examples", type=int, default=20, help="examples of each kind to show")
        parser.add_argument("--replacement", choices=REPLACEMENTS, default="delete",
                            help="what a deleted place becomes in the released text")
        parser.add_argument("--places", choices=PLACE_POLICIES, default="all",
                            help="all: every place name in the grid goes; needed: only those the thresholds need")
        parser.add_argument("--json", action="store_true", help="print the full result as JSON")

    def handle(self, *args, **options) -> None:
        spec = next(spec for spec in DEFAULT_MODELS if spec.name == options["spec"])
        path = settings.DATA_DIR / spec.corpus
        if not path.exists():
            raise CommandError(f"{path}: the corpus of {spec.name} is missing")
        if options["max_posts"] < 1 or options["examples"] < 0:
            raise CommandError("--max-posts must be at least 1 and --examples at least 0")
        verbosity = options["verbosity"]

        def progress(done: int, total: int, message: str) -> None:
            if verbosity > 1:
                self.stderr.write(f"[{done}/{total}] {message}")

        try:
            result = evaluate_default_protection(
                spec, settings.DATA_DIR, replacement=options["replacement"], places=options["places"],
                seed=options["seed"], max_test_posts=options["max_posts"], examples=options["examples"],
                progress=progress)
        except ValueError as exc:
            raise CommandError(str(exc)) from exc
        self.stdout.write(json.dumps(result, indent=1, ensure_ascii=False) if options["json"]
                          else protection_table(result))
