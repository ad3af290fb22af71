"""The options several commands share (a location model and how it de-identifies; how time expressions go), each
defined once with the help text the web API gives it (anonymizer.location.options.OPTION_HELP,
anonymizer.temporal.removal.OPTION_HELP) and its default."""

from __future__ import annotations

from typing import Annotated, Literal

import typer

from anonymizer.location.options import DEFAULT_OPTIONS, PLACE_POLICIES, REPLACEMENTS
from anonymizer.location.options import OPTION_HELP as LOCATION_HELP
from anonymizer.temporal.removal import DEFAULTS as TIME_DEFAULTS
from anonymizer.temporal.removal import KINDS, TIME_MODES, TimeRemovalOptions
from anonymizer.temporal.removal import OPTION_HELP as TIME_HELP

ModelOption = Annotated[str | None, typer.Option(
    "--model", metavar="NAME|DIR",
    help="A default model (tokyo-ja, us-midwest-en: trained on first use) or a model folder "
         "(kakurega train-location -o DIR).", show_default="the default model of the post's language")]
ReplacementOption = Annotated[Literal[REPLACEMENTS], typer.Option("--replacement", help=LOCATION_HELP["replacement"])]
PlacesOption = Annotated[Literal[PLACE_POLICIES], typer.Option("--places", help=LOCATION_HELP["places"])]
KeepWordsOption = Annotated[list[str] | None, typer.Option(
    "--keep", metavar="WORDS", help=LOCATION_HELP["keep"] + " Repeat for several.", show_default="none")]
RemoveTimeOption = Annotated[bool, typer.Option(
    "--remove-time", help=LOCATION_HELP["remove_time"].replace("time_* options", "--time-* options"),
    show_default="off")]
TimeModeOption = Annotated[Literal[tuple(TIME_MODES)], typer.Option("--time-mode", help=TIME_HELP["time_mode"])]
KeepTimeOption = Annotated[list[str] | None, typer.Option(
    "--keep-time", metavar="|".join((*KINDS, "none")), callback=lambda value: _kinds(value),
    help=TIME_HELP["keep_time"].replace(
        "['part_of_day']", "--keep-time part_of_day").replace("Default ['now']", "Repeat for several; default: now")
    + " --keep-time none keeps none.", show_default=", ".join(TIME_DEFAULTS.keep_time))]
RemoveHowLongOption = Annotated[bool, typer.Option("--remove-how-long", help=TIME_HELP["remove_how_long"],
                                                             show_default="off")]

DEFAULT_REPLACEMENT = DEFAULT_OPTIONS.replacement
DEFAULT_PLACES = DEFAULT_OPTIONS.places
DEFAULT_TIME_MODE = TIME_DEFAULTS.time_mode


def _kinds(value: list[str] | None) -> list[str] | None:
    wrong = [kind for kind in value or () if kind not in (*KINDS, "none")]
    if wrong:
        raise typer.BadParameter(f"{wrong[0]!r} is not one of " + ", ".join(map(repr, (*KINDS, "none"))) + ".")
    return value


def time_options(time_mode: str, keep_time: list[str] | None, remove_how_long: bool) -> TimeRemovalOptions:
    """The time-removal options of the command line (no --keep-time: the default kinds)."""
    keep = TIME_DEFAULTS.keep_time if keep_time is None else tuple(kind for kind in keep_time if kind != "none")
    return TimeRemovalOptions(time_mode=time_mode, keep_time=keep, remove_how_long=remove_how_long)
