"""One post from Python: where it points before and after its location is de-identified, and what was deleted —
the inspect page's result, computed here (no server, no deadline)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

from anonymizer.location.inspect import inspect_text
from anonymizer.location.model import LocationModel
from anonymizer.location.options import InspectOptions
from anonymizer.temporal import removal as time_removal
from kakurega.config import ReleaseSettings
from kakurega.location_models import default_model_for, load_location_model


def inspect(text: str, *, model: str | LocationModel | None = None, m: int | None = None,
            keep_words: Sequence[str] = (), replacement: str = "delete", places: str = "all",
            remove_time: bool = False, time: time_removal.TimeRemovalOptions | None = None) -> dict:
    """The inspect page's result for ``text``: ``verdict`` (``status``: pass, review, places or fail, and its
    ``summary``), ``before`` and ``after`` (the top cells and their places, the scorers), ``deleted`` (spans of the
    post), ``text_after`` (the released text), ``warnings``; with ``remove_time`` also ``time`` (what was removed).

    ``model`` is a default model's name ("tokyo-ja", "us-midwest-en"), a model folder, a loaded LocationModel, or
    None for the default model of the post's language. ``m`` None de-identifies automatically (the fewest
    deletions that get under every threshold), else exactly m deletions. Raises ValueError on a request the
    options make impossible (time removal of a post that is not English, an unknown option value)."""
    if not text.strip():
        raise ValueError("text: the post is empty")
    loaded = model if isinstance(model, LocationModel) else load_location_model(model or default_model_for(text))
    options = InspectOptions(m=m, keep_words=tuple(keep_words), replacement=replacement, places=places,
                             model=loaded.name, remove_time=remove_time)
    edit = None
    if remove_time:
        edit = _time_edit(loaded, text, time or time_removal.TimeRemovalOptions())
        options = replace(options, time=_time_params(time or time_removal.TimeRemovalOptions()))
    result = inspect_text(loaded, text, options, edit=edit)
    if edit is not None:
        result["time"] = time_removal.describe_time_removal(edit)
    result["model"] = {"name": loaded.name, "language": loaded.language, "threshold": loaded.threshold.value}
    return result


def _time_edit(model: LocationModel, text: str, options: time_removal.TimeRemovalOptions):
    if model.language != time_removal.LANGUAGE:
        raise ValueError(f"remove_time: time expressions are found in English posts only; the model {model.name!r} "
                         f"is for {model.language!r} posts.")
    refused = time_removal.not_english([text])
    if refused:
        raise ValueError(f"text: not English ({refused[0][1]}); time expressions are removed from English posts "
                         "only.")
    anonymizer = time_removal.time_anonymizer(options, use_ner=ReleaseSettings.from_environment().temporal_use_ner)
    return anonymizer.transform([text])[0]


def _time_params(options: time_removal.TimeRemovalOptions) -> dict:
    return {"time_mode": options.time_mode, "keep_time": list(options.keep_time),
            "remove_how_long": options.remove_how_long}
