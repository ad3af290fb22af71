"""Fold the anonymous contributions sent from the preferences page into the preference model they were
computed against: one gradient step on its item profiles, saved as a new active version."""

from __future__ import annotations

import uuid

from django.core.management.base import BaseCommand, CommandError, CommandParser

from anonymizer.models import PreferenceModel
from anonymizer.platform.errors import UserFacingError
from anonymizer.preferences.web import selectors
from anonymizer.preferences.web.services import aggregate_contributions


def _is_uuid(text: str) -> bool:
    try:
        uuid.UUID(text)
    except ValueError:
        return False
    return True


class Command(BaseCommand):
    help = "Aggregate the stored LDP reports of a preference model into a new version of it."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--model", default="", help="model id or name (default: the built-in default)")
        parser.add_argument("--learning-rate", type=float, default=1.0)
        parser.add_argument("--min-contributions", type=int, default=None,
                            help="do nothing unless at least this many contributions wait (default "
                                 "PREFERENCE_MIN_CONTRIBUTIONS): a batch of a few is mostly noise, and a new "
                                 "version made of one person's reports would show when they sent them")

    def handle(self, *args, **options) -> None:
        ref = options["model"]
        # An operator may name any user's model by its id; a name means a built-in one.
        record = PreferenceModel.objects.filter(id=ref).first() if _is_uuid(ref) else None
        if record is None:
            try:
                record = selectors.resolve_preference_model(None, ref or None)
            except LookupError as exc:
                raise CommandError(str(exc)) from exc
        try:
            new = aggregate_contributions(record, selectors.load_preference_model(record),
                                          learning_rate=options["learning_rate"],
                                          min_contributions=options["min_contributions"])
        except UserFacingError as exc:
            raise CommandError(str(exc)) from exc
        summary = new.training["aggregated"]
        self.stdout.write(f"{new.name}: {summary['contributions']} contribution(s), {summary['reports']} reports "
                          f"aggregated into version {new.version} (signal kept after the noise gate "
                          f"{summary['signal_kept']:.1%})")
