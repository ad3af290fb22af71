"""Train a location model from any corpus file (CSV or JSON Lines, optionally gzip) and grid."""

from __future__ import annotations

from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand, CommandError, CommandParser

from anonymizer.location.corpus import ColumnMap, open_corpus
from anonymizer.location.training import TrainingRequest, parse_where
from anonymizer.location.web.services import train_from_file
from anonymizer.platform.grid import Grid
from anonymizer.tabular import CsvFormatError


class Command(BaseCommand):
    help = "Train a location model from a geotagged corpus and make it the active version of its name."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("corpus", help="CSV or JSON Lines file (.gz accepted) with text, latitude, longitude")
        parser.add_argument("--name", required=True, help="model name (a slug), e.g. kyoto-ja")
        parser.add_argument("--title", default="")
        parser.add_argument("--language", choices=["auto", "ja", "en"], default="auto")
        parser.add_argument("--bbox", nargs=4, type=float, required=True, metavar=("SOUTH", "WEST", "NORTH", "EAST"))
        parser.add_argument("--rows", type=int, default=20)
        parser.add_argument("--cols", type=int, default=10)
        for role, default in (("text", "text"), ("lat", "lat"), ("lon", "lon"), ("id", None), ("user", None),
                              ("time", None)):
            parser.add_argument(f"--{role}-column", default=default)
        parser.add_argument("--where", action="append", default=[], metavar="COLUMN=V1,V2",
                            help="keep only rows whose column holds one of the values (repeatable)")
        parser.add_argument("--C", type=float, default=1.0, help="inverse L2 regularisation strength")
        parser.add_argument("--min-df", type=int, default=2, help="drop features seen in fewer posts")
        parser.add_argument("--owner", help="username owning the model (default: a built-in model for everyone)")
        parser.add_argument("--no-activate", action="store_true")

    def handle(self, *args, **options) -> None:
        try:
            grid = Grid(*options["bbox"], rows=options["rows"], cols=options["cols"])
        except ValueError as exc:
            raise CommandError(f"--bbox/--rows/--cols: {exc}") from exc
        try:
            where = parse_where(options["where"])
        except ValueError as exc:
            raise CommandError(str(exc)) from exc
        owner = None
        if options["owner"]:
            owner = get_user_model().objects.filter(username=options["owner"]).first()
            if owner is None:
                raise CommandError(f"--owner: there is no user {options['owner']!r}")
        request = TrainingRequest(
            name=options["name"], title=options["title"] or options["name"], language=options["language"], grid=grid,
            columns=ColumnMap(text=options["text_column"], lat=options["lat_column"], lon=options["lon_column"],
                              id=options["id_column"], user=options["user_column"], time=options["time_column"]),
            where=where, C=options["C"], min_df=options["min_df"],
        )

        def progress(done: int, total: int, message: str) -> None:
            if options["verbosity"] >= 2:
                self.stdout.write(f"  {done:3d}% {message}")

        try:
            with open_corpus(options["corpus"]) as fileobj:
                record, report = train_from_file(fileobj, request, owner=owner, name=options["corpus"],
                                                 activate=not options["no_activate"], progress=progress)
        except FileNotFoundError as exc:
            raise CommandError(f"{options['corpus']}: no such file") from exc
        except CsvFormatError as exc:
            raise CommandError(f"{options['corpus']}: {exc}") from exc
        except ValueError as exc:
            raise CommandError(str(exc)) from exc
        scores, threshold = record.metadata["scores"], record.metadata["threshold"]
        self.stdout.write(report.summary())
        self.stdout.write(
            f"Model {record.name} {record.version} ({record.language}): {record.metadata['classes']} cells, "
            f"{record.metadata['vocabulary_size']:,} features, trained on {record.metadata['train_posts']:,} posts.")
        if scores:
            self.stdout.write(
                f"Held-out ({scores['posts']:,} posts): accuracy {scores['accuracy']:.3f}, top-5 "
                f"{scores['top5_accuracy']:.3f}, majority baseline {scores['majority_baseline']:.3f} "
                f"(lift {scores['lift']:.2f}x), median error {scores['median_error_km']:.1f} km.")
        self.stdout.write(f"Threshold {threshold['value']:.3f} ({threshold['kind']}): {threshold['explanation']}")
