"""Run the preference experiment (the paper's sweeps, k-fold cross-validation over users) from the command line:
the same service as the job, on the check-ins shipped in data/ (proxy labels), another check-in file, or a
preference file in the upload format; the rows go to a CSV (and optionally a JSON report)."""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path

from django.core.management.base import BaseCommand, CommandError, CommandParser

from anonymizer.platform.errors import UserFacingError
from anonymizer.preferences.aggregate import read_aggregate
from anonymizer.preferences.checkins import InputFormatError, read_foursquare, read_preferences
from anonymizer.preferences.experiment import METHODS
from anonymizer.preferences.web.jobs import (
    SWEEPS,
    PreferenceExperimentParams,
    UploadedExperimentParams,
    rows_csv,
    run_experiment,
    shipped_checkins,
)


def _list(kind):
    return lambda text: [kind(v) for v in text.split(",") if v.strip()]


class Command(BaseCommand):
    help = "Run the location-privacy-preference experiment and write its rows as CSV."

    def add_arguments(self, parser: CommandParser) -> None:
        source = parser.add_mutually_exclusive_group()
        source.add_argument("--checkins", help="Foursquare MAT original.zip / CSV, or an aggregate .csv.gz "
                                               "(default: the one shipped in data/); proxy labels")
        source.add_argument("--preferences", help="a preference CSV in the upload format (user, time or slot, "
                                                  "place, label; optional weekday): its labels as given")
        parser.add_argument("--out", default="-", help="CSV file to write (default: standard output)")
        parser.add_argument("--json", help="also write the JSON report here")
        parser.add_argument("--sweeps", type=_list(str), default=list(SWEEPS), help=f"comma-separated: {SWEEPS}")
        parser.add_argument("--slot-hours", type=_list(int))
        parser.add_argument("--epsilons", type=_list(float))
        parser.add_argument("--hidden-shares", type=_list(float))
        parser.add_argument("--fixed-slot-hours", type=int)
        parser.add_argument("--fixed-epsilon", type=float)
        parser.add_argument("--fixed-hidden-share", type=float)
        parser.add_argument("--place", choices=["root", "category"])
        parser.add_argument("--split-week", action="store_true")
        parser.add_argument("--methods", type=_list(str), help=f"comma-separated: {METHODS}")
        for name in ("folds", "repeats", "rank", "ldp-rounds", "seed"):
            parser.add_argument(f"--{name}", type=int)

    def handle(self, *args, **options) -> None:
        uploaded = bool(options["preferences"])
        names = ("sweeps", "slot_hours", "epsilons", "hidden_shares", "fixed_slot_hours", "fixed_epsilon",
                 "fixed_hidden_share", "place", "methods", "folds", "repeats", "rank", "ldp_rounds", "seed")
        given = {name: options[name] for name in names if options.get(name) is not None}
        given["split_week"] = options["split_week"]
        if uploaded:
            given.pop("place", None)
        serializer = (UploadedExperimentParams if uploaded else PreferenceExperimentParams)(data=given)
        if not serializer.is_valid():
            raise CommandError(json.dumps(serializer.errors, ensure_ascii=False))
        params = dict(serializer.validated_data)
        try:
            if uploaded:
                data = read_preferences(options["preferences"])
            elif options["checkins"]:
                path = Path(options["checkins"])
                data = read_aggregate(path) if path.name.endswith(".csv.gz") else read_foursquare(path)
            else:
                data = shipped_checkins()
        except (InputFormatError, OSError) as exc:
            raise CommandError(str(exc)) from exc
        started = time.perf_counter()

        def progress(done: int, total: int, message: str) -> None:
            if options["verbosity"] > 1:
                self.stderr.write(f"[{done}/{total}] {message}")

        try:
            rows = run_experiment(data, params, uploaded=uploaded, progress=progress)
        except UserFacingError as exc:
            raise CommandError(str(exc)) from exc
        content = rows_csv(rows)
        if options["out"] == "-":
            sys.stdout.write(content.decode())
        else:
            Path(options["out"]).write_bytes(content)
        if options["json"]:
            report = {"params": params, "rows": rows, "seconds": round(time.perf_counter() - started, 1),
                      "labels": "uploaded" if uploaded else "proxy"}
            Path(options["json"]).write_text(json.dumps(report, indent=1, ensure_ascii=False), encoding="utf-8")
        self.stderr.write(f"{len(rows)} rows in {time.perf_counter() - started:.1f} s")
