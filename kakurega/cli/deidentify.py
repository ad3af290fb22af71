"""``kakurega deidentify``: every post of a CSV file de-identified, the web's de-identify-posts job's file (and
its report) written here, the file's parts shared among processes; or, with ``--server``, run as that job on a
Kakurega server."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated

import typer

from kakurega.checks import DeidentifyError, posts_header
from kakurega.cli.common import (
    EXIT_BAD_INPUT,
    EXIT_FAILED,
    ServerOption,
    TokenOption,
    fail,
    progress_bar,
    run_on_server,
)
from kakurega.cli.options import (
    DEFAULT_PLACES,
    DEFAULT_REPLACEMENT,
    DEFAULT_TIME_MODE,
    KeepTimeOption,
    KeepWordsOption,
    ModelOption,
    PlacesOption,
    RemoveHowLongOption,
    RemoveTimeOption,
    ReplacementOption,
    TimeModeOption,
    time_options,
)

JOB_KIND = "deidentify_posts"
ProcessesOption = Annotated[int, typer.Option(
    "--processes", "-p", min=1, help="Processes of this machine to share the file's parts among (each loads the "
                                     "model once; the file is the same whatever the number). A server ignores it.")]


def deidentify_command(
    file: Annotated[Path, typer.Argument(metavar="FILE.csv", help="The CSV file of posts (UTF-8, with a header).",
                                         show_default=False)],
    output: Annotated[Path, typer.Option("--output", "-o", metavar="OUT.csv", show_default=False,
                                         help="Where to write the released file: the file's columns, each post "
                                              "released in its cell, and per text column a verdict and a review "
                                              "column.")],
    column: Annotated[list[str] | None, typer.Option(
        "--column", "-c", metavar="NAME", show_default="text",
        help="A column that holds posts; repeat for several. Every other column is copied as it is.")] = None,
    model: ModelOption = None,
    report: Annotated[Path | None, typer.Option(
        "--report", metavar="REPORT.json", show_default="none",
        help="Also write the report (counts per column and verdict, the model, the options; no post text).")] = None,
    processes: ProcessesOption = 1,
    keep: KeepWordsOption = None,
    replacement: ReplacementOption = DEFAULT_REPLACEMENT,
    places: PlacesOption = DEFAULT_PLACES,
    remove_time: RemoveTimeOption = False,
    time_mode: TimeModeOption = DEFAULT_TIME_MODE,
    keep_time: KeepTimeOption = None,
    remove_how_long: RemoveHowLongOption = False,
    server: ServerOption = None,
    token: TokenOption = None,
) -> None:
    """De-identify the location of every post of a CSV file (the web's de-identify-posts job, here)."""
    columns = list(dict.fromkeys(column or ["text"]))
    times = time_options(time_mode, keep_time, remove_how_long)
    # The file and its columns are checked before the language models' modules load (seconds): a typo in
    # --column is refused at once. With --server and a model named, the server checks them (as it always did).
    header: list[str] = []
    if not server or model is None:
        try:
            header = posts_header(file, columns)
        except DeidentifyError as exc:
            fail(str(exc), EXIT_BAD_INPUT)
    if server:
        _on_server(server, token, file, output, report, columns, model, keep, replacement, places, remove_time,
                   times, header)
        return
    from kakurega.deidentify import deidentify_csv  # the language models load here, not for --help

    try:
        with progress_bar("de-identifying posts") as progress:
            result = deidentify_csv(file, output, column=columns, model=model, processes=processes,
                                    keep_words=keep or (), replacement=replacement, places=places,
                                    remove_time=remove_time, time=times, progress=progress)
    except DeidentifyError as exc:
        fail(str(exc), EXIT_BAD_INPUT)
    except OSError as exc:  # the output's folder
        fail(f"{exc.filename or output}: {exc.strerror or exc}", EXIT_FAILED)
    if report is not None:
        _write_report(report, result)
    counted = ", ".join(f"{c['name']}: {c['posts']:,} posts ({c['pass']:,} pass, {c['review']:,} review, "
                        f"{c['places']:,} places, {c['fail']:,} fail)" for c in result["columns"])
    typer.echo(f"{output}: {result['rows']:,} rows; {counted}", err=True)


def _on_server(server: str, token: str | None, file: Path, output: Path, report: Path | None, columns: list[str],
               model: str | None, keep: list[str] | None, replacement: str, places: str, remove_time: bool,
               times, header: list[str]) -> None:
    """The same request as the web's de-identify-posts job: the model by name (a folder stays on this machine).
    With no model named, the default model of the posts' language is chosen once the server took the upload (a
    closed port or a wrong token is refused before the language detector's modules load), unless the header has
    a column that may be one the job adds (``<column>_...``): that is refused here first, as before."""
    if model is not None and Path(model).expanduser().exists():
        fail(f"--model {model}: with --server, name a model the server has (tokyo-ja, us-midwest-en, or one of "
             "yours); a model folder stays on this machine", EXIT_BAD_INPUT)
    params = {"text_columns": columns, "model": model, "replacement": replacement, "places": places,
              "keep": list(keep or ()), "remove_time": remove_time}
    if remove_time:
        params.update(time_mode=times.time_mode, keep_time=list(times.keep_time),
                      remove_how_long=times.remove_how_long)

    def with_model() -> dict:
        from kakurega.deidentify import first_posts_model

        try:
            return {**params, "model": first_posts_model(file, columns)}
        except DeidentifyError as exc:
            fail(str(exc), EXIT_BAD_INPUT)

    if model is None and any(found.startswith(f"{name}_") for found in header for name in columns):
        params = with_model()
    outputs = {".deidentified.csv": output}
    if report is not None:
        outputs[".deidentified.report.json"] = report
    run_on_server(server, token, kind=JOB_KIND, file=file, params=params if params["model"] is not None else with_model,
                  outputs=outputs)


def _write_report(path: Path, report: dict) -> None:
    partial = path.with_name(f".{path.name}.part")
    try:
        partial.write_text(json.dumps(report, indent=1, ensure_ascii=False), encoding="utf-8")
        partial.replace(path)
    except OSError as exc:
        partial.unlink(missing_ok=True)
        fail(f"{path}: {exc.strerror or exc}", EXIT_FAILED)


def register(app: typer.Typer) -> None:
    """Add ``kakurega deidentify``."""
    app.command("deidentify")(deidentify_command)
