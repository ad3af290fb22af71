"""The ``kakurega`` command's entry point: the Typer app and its commands, each added by its own module."""

from __future__ import annotations

import typer

from kakurega import __version__
from kakurega.cli import deidentify, inspect_post, kanon, models, remove_time, serve

app = typer.Typer(
    name="kakurega",
    help="Find what in a post or a dataset gives a person away, and remove just enough of it. Every file command "
         "runs here (no server), or as a job on a Kakurega server with --server URL --token T.",
    no_args_is_help=True,
    add_completion=False,
    # Help texts are the web API's, plain text: "[place]" is an example, not rich markup.
    rich_markup_mode=None,
    # A traceback with locals would print the posts being processed: errors are reported by common.fail.
    pretty_exceptions_enable=False,
    context_settings={"help_option_names": ["-h", "--help"]},
)

for module in (inspect_post, deidentify, kanon, remove_time, models, serve):
    module.register(app)


def _version(value: bool) -> None:
    if value:
        typer.echo(f"kakurega {__version__}")
        raise typer.Exit()


@app.callback()
def _root(version: bool = typer.Option(False, "--version", callback=_version, is_eager=True,
                                       help="Print the version and exit.")) -> None:
    """Kakurega (隠れ家): de-identification of posts and datasets."""


def main() -> None:
    """The console script ``kakurega``."""
    app()
