"""``kakurega remove-time``: the time expressions of a CSV file's text columns removed, as the web's remove-time job
does (the same file and report), here on one or more processes or as a job on a server (``--server``)."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Annotated

import typer

from anonymizer.temporal.removal import DEFAULTS, MAX_TOP, OPTION_HELP
from kakurega.cli.common import (
    EXIT_BAD_INPUT,
    EXIT_FAILED,
    ProcessesOption,
    ServerOption,
    TokenOption,
    fail,
    progress_bar,
)
from kakurega.cli.options import (
    DEFAULT_TIME_MODE,
    KeepTimeOption,
    RemoveHowLongOption,
    TimeModeOption,
    time_options,
)

KIND = "remove_time"  # the web job this command is


def remove_time(
    file: Annotated[Path, typer.Argument(metavar="FILE.csv", help="The CSV file of posts.", show_default=False)],
    output: Annotated[Path, typer.Option("--output", "-o", metavar="OUT.csv", show_default=False,
                                         help="Where to write the file with the time expressions removed.")],
    column: Annotated[list[str] | None, typer.Option(
        "--column", "-c", metavar="NAME", show_default="text",
        help="A column that holds posts (repeat for several); every other column is copied as it is.")] = None,
    report: Annotated[Path | None, typer.Option(
        "--report", metavar="REPORT.json", show_default="none",
        help="Also write the job's report: counts per column and the options, no post text.")] = None,
    time_mode: TimeModeOption = DEFAULT_TIME_MODE,
    keep_time: KeepTimeOption = None,
    remove_how_long: RemoveHowLongOption = False,
    time_patterns: Annotated[str | None, typer.Option(
        "--time-patterns", metavar="PATTERNS.json|JOB", show_default="none: every removable subtree",
        help="Prune only subtrees of the top patterns a 'learn temporal patterns' job found (others are "
             "generalized, or kept with time mode prune): its .temporal-patterns.json file here, or the job's "
             "id on a server.")] = None,
    time_patterns_top: Annotated[int, typer.Option("--time-patterns-top", min=1, max=MAX_TOP,
                                                   help=OPTION_HELP["time_patterns_top"])] = DEFAULTS.time_patterns_top,
    location_model: Annotated[str | None, typer.Option(
        "--location-model", metavar="NAME|DIR", show_default="none: time only",
        help="Also de-identify the location of every post after its time expressions are removed: an English "
             "model (us-midwest-en, trained on first use, or a model folder; on a server, a model's id or "
             "name there).")] = None,
    processes: ProcessesOption = 1,
    server: ServerOption = None,
    token: TokenOption = None,
    quiet: Annotated[bool, typer.Option("--quiet", "-q", help="No progress bar.", show_default="off")] = False,
) -> None:
    """Remove the time expressions of the posts of FILE.csv (the web's "remove time" job): every other column and
    the row order are kept, an unchanged post stays byte for byte. Posts must be English."""
    columns = column or ["text"]
    keep = time_options(time_mode, keep_time, remove_how_long).keep_time
    if server:
        _on_server(server, token, file, output, report, quiet=quiet, params={
            "text_columns": columns, "time_mode": time_mode, "keep_time": list(keep),
            "remove_how_long": remove_how_long, "time_patterns": time_patterns,
            "time_patterns_top": time_patterns_top, "location_model": location_model})
        return
    from kakurega.time import remove_time_csv

    with _errors_reported(file), progress_bar("removing time expressions", quiet=quiet) as bar:
        remove_time_csv(file, output, column=columns, report=report, processes=processes, time_mode=time_mode,
                        keep_time=keep, remove_how_long=remove_how_long, time_patterns=time_patterns,
                        time_patterns_top=time_patterns_top, location_model=location_model,
                        progress=bar)


def _on_server(server: str, token: str | None, file: Path, output: Path, report: Path | None, *, params: dict,
               quiet: bool) -> None:
    from kakurega.cli.common import run_on_server

    outputs = {".time-removed.csv": output}
    if report is not None:
        outputs[".time-removed.report.json"] = report
    run_on_server(server, token, kind=KIND, file=file, params=params, outputs=outputs, quiet=quiet)


@contextmanager
def _errors_reported(file: Path) -> Iterator[None]:
    """Bad input exits 2 with a message naming the file, its row and column and what was expected (a missing
    column, posts that are not English, an option); a file that cannot be read or written exits 1."""
    from anonymizer.tabular.reader import CsvFormatError

    try:
        yield
    except CsvFormatError as exc:
        fail(f"{file}: {exc}")
    except FileNotFoundError as exc:
        if exc.filename == str(file):
            fail(f"{file}: no such file; expected a CSV file of posts")
        fail(f"{exc.filename}: {exc.strerror}", EXIT_FAILED)
    except OSError as exc:
        fail(f"{exc.filename or file}: {exc.strerror or exc}", EXIT_FAILED)
    except ValueError as exc:  # MissingColumn, NotEnglish, an option (their messages say what was expected)
        fail(str(exc), EXIT_BAD_INPUT)


def register(app: typer.Typer) -> None:
    """Add ``remove-time`` to ``app``."""
    app.command("remove-time", no_args_is_help=True)(remove_time)
