"""The operator's switch of what every user gets: a saved model version becomes a built-in default."""

from __future__ import annotations

from django.core.management.base import BaseCommand, CommandError, CommandParser

from anonymizer.location.web.services import promote_version


class Command(BaseCommand):
    help = ("Make a saved location model version (for example one calibrated from a campaign) the built-in default "
            "of its name for every user, or a human-inferability model the one used beside its location model. "
            "Web pages never change a default; this command is the one way.")

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("version_id", help="the id of the model version (on its job's page)")

    def handle(self, *args, version_id: str, **options) -> None:
        try:
            self.stdout.write(promote_version(version_id))
        except (LookupError, ValueError) as exc:
            raise CommandError(str(exc)) from exc
