"""What every command shares: how an error is reported and which exit code it gives, the progress bar, and the
options that send a file command to a server.

Exit codes: 0 done; 1 the work failed (a job that failed on the server, a file that could not be written);
2 bad input (an option, a file, a row or a column: the message names which and what was expected, as the web
pages' errors do); 3 the server could not be reached or refused the token."""

from __future__ import annotations

import sys
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Annotated, NoReturn

import typer

EXIT_FAILED = 1
EXIT_BAD_INPUT = 2
EXIT_SERVER = 3

ServerOption = Annotated[str | None, typer.Option(
    "--server", envvar="KAKUREGA_SERVER", metavar="URL",
    help="Run as a job on this Kakurega server (upload, progress, download) instead of here (or set "
         "KAKUREGA_SERVER).", show_envvar=False, show_default="none: run here")]
TokenOption = Annotated[str | None, typer.Option(
    "--token", envvar="KAKUREGA_TOKEN", metavar="T",
    help="The API token for the server (the account page, or POST /api/v1/auth/token/; or set KAKUREGA_TOKEN).",
    show_envvar=False, show_default="none")]
ProcessesOption = Annotated[int, typer.Option(
    "--processes", "-p", min=1, help="Processes to share the file's parts among, here (a server uses its workers).")]
QuietOption = Annotated[bool, typer.Option("--quiet", "-q", help="No progress on stderr.", show_default="off")]


def fail(message: str, code: int = EXIT_BAD_INPUT) -> NoReturn:
    """Print ``kakurega: error: <message>`` on stderr and exit with ``code``."""
    typer.echo(f"kakurega: error: {message}", err=True)
    raise typer.Exit(code)


ProgressCallback = Callable[[int, int, str], None]


#: Without a terminal (a pipeline, a log file), a progress line at most this often, in seconds.
PLAIN_EVERY = 5.0


@contextmanager
def progress_bar(what: str, *, quiet: bool = False) -> Iterator[ProgressCallback]:
    """A progress bar on stderr (rich) for work that may take over a second; yields ``progress(done, total,
    message)``. With stderr not a terminal (a log, a pipeline), plain lines instead: a new stage at once, the
    same stage's numbers at most every PLAIN_EVERY seconds. Quiet: nothing."""
    if quiet:
        yield lambda done, total, message: None
        return
    if not sys.stderr.isatty():
        yield _plain_progress(what)
        return
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn

    with Progress(TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(), TimeRemainingColumn(),
                  transient=True, console=_stderr_console()) as bar:
        task = bar.add_task(what, total=None)

        def progress(done: int, total: int, message: str) -> None:
            bar.update(task, completed=done, total=total or None, description=message or what)

        yield progress


def _plain_progress(what: str) -> ProgressCallback:
    last = {"stage": None, "at": 0.0}

    def progress(done: int, total: int, message: str) -> None:
        text = message or what
        stage = text.split(":")[0]  # "de-identifying posts: 512 of 10,000 rows" -> its stage
        now = time.monotonic()
        if stage != last["stage"] or now - last["at"] >= PLAIN_EVERY:
            last.update(stage=stage, at=now)
            typer.echo(f"kakurega: {text}", err=True)

    return progress


def _stderr_console():
    from rich.console import Console

    return Console(stderr=True)


def run_on_server(server: str, token: str | None, *, kind: str, file: Path, params: dict | Callable[[], dict],
                  outputs: dict[str, Path], quiet: bool = False) -> dict:
    """Run a file command as a job of ``kind`` on a Kakurega server (``--server URL --token T``): upload
    ``file``, start the job with ``params``, show its progress, download the result files whose names end as
    ``outputs``' keys to its paths (all or none), and return the job's summary (``params`` may be a function
    returning them, called once the server took the upload: ``remote.Server.run``). The server's refusals exit as
    the command's own would: 2 for a field at fault (the web's message, naming the field, row and column), 3
    when the server cannot be reached or refuses the token, 1 when the job failed or was cancelled."""
    from kakurega import remote

    if not token:
        fail("--server needs an API token: give --token T or set KAKUREGA_TOKEN (the account page shows yours)",
             EXIT_BAD_INPUT)
    try:
        with remote.Server(server, token) as client, progress_bar(f"{kind} on {client.url}", quiet=quiet) as bar:
            try:
                return client.run(kind, file, params, outputs, progress=bar).summary
            except KeyboardInterrupt:
                fail("interrupted: the job was cancelled on the server", EXIT_FAILED)
    except remote.BadRequest as exc:
        fail(f"the server refused the input: {exc}", EXIT_BAD_INPUT)
    except (remote.JobFailed, remote.WaitTimedOut) as exc:
        fail(str(exc), EXIT_FAILED)
    except remote.ServerError as exc:  # Refused, Unreachable, an answer no Kakurega server gives
        fail(str(exc), EXIT_SERVER)
    except OSError as exc:  # the file to upload, or a folder to write to
        fail(f"{exc.filename or file}: {exc.strerror or exc}", EXIT_FAILED if exc.filename != str(file) else
             EXIT_BAD_INPUT)
