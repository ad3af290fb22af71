"""``kakurega inspect``: one post, as the inspect page shows it — the verdict, where it points before and after,
what was deleted and the released text (``--json``: the whole result, for scripts)."""

from __future__ import annotations

import json
import sys
from typing import Annotated

import typer

from kakurega.cli.common import fail, progress_bar
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

TOP_SHOWN = 3  # places listed before and after


def inspect_command(
    text: Annotated[str, typer.Argument(metavar="TEXT|-", help="The post, or - to read it from standard input.",
                                        show_default=False)],
    model: ModelOption = None,
    deletions: Annotated[int | None, typer.Option(
        "--deletions", "-m", min=1, help="Delete exactly this many units (a word, or a whole place name); "
                                         "default: automatic, the fewest that get under every threshold.",
        show_default="automatic")] = None,
    keep: KeepWordsOption = None,
    replacement: ReplacementOption = DEFAULT_REPLACEMENT,
    places: PlacesOption = DEFAULT_PLACES,
    remove_time: RemoveTimeOption = False,
    time_mode: TimeModeOption = DEFAULT_TIME_MODE,
    keep_time: KeepTimeOption = None,
    remove_how_long: RemoveHowLongOption = False,
    as_json: Annotated[bool, typer.Option("--json", help="Print the whole result as JSON (the inspect API's "
                                                         "result for one post).", show_default="off")] = False,
) -> None:
    """Where a post points before and after its location is de-identified, and the released text."""
    post = sys.stdin.read() if text == "-" else text
    if not post.strip():  # kakurega.inspect's refusal, before the model loads
        fail("text: the post is empty")
    # The language models load here, not for --help.
    from kakurega.location import inspect
    from kakurega.location_models import default_model_for, load_location_model

    try:
        with progress_bar("loading the model") as progress:  # a default model's first use trains it
            loaded = load_location_model(model or default_model_for(post), progress=progress)
        result = inspect(post, model=loaded, m=deletions, keep_words=keep or (), replacement=replacement,
                         places=places, remove_time=remove_time,
                         time=time_options(time_mode, keep_time, remove_how_long))
    except (ValueError, LookupError) as exc:
        fail(str(exc))
    if as_json:
        result.pop("text", None)  # the caller has the post; the result says what changed
        typer.echo(json.dumps(result, ensure_ascii=False, indent=1))
        return
    typer.echo(describe(result))


def describe(result: dict) -> str:
    """The result in a few lines: the verdict, the top places before and after, what went, the released text."""

    def top(side: dict) -> str:
        return ", ".join(f"{cell['probability']:.0%} {cell['place']} ({cell['label']})"
                         for cell in side["top"][:TOP_SHOWN])

    verdict = result["verdict"]
    lines = [f"verdict: {verdict['status']}. {verdict['summary']}",
             f"model: {result['model']['name']} (threshold {result['model']['threshold']:.0%})",
             f"before: {top(result['before'])}", f"after:  {top(result['after'])}",
             "deleted: " + (", ".join(repr(span["text"]) for span in result["deleted"]) or "nothing")]
    if "time" in result:
        lines.append("time removed: " + (", ".join(repr(item["text"]) for item in result["time"]["removed"])
                                         or "nothing"))
    if verdict["review"]:
        lines.append("to review: " + ", ".join(repr(item["text"]) for item in verdict["review"]))
    lines += [f"warning: {warning['message']}" for warning in result["warnings"]]
    lines.append(f"released: {result['text_after']}")
    return "\n".join(lines)


def register(app: typer.Typer) -> None:
    """Add ``kakurega inspect``."""
    app.command("inspect")(inspect_command)
