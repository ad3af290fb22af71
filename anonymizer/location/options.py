"""The options of one inspect request (the inspect page, the API, the de-identify-posts job), typed and with their
defaults stated once: the serializer builds an InspectOptions once, and the services and the core read it.

Adding an option: a field here (its default), a serializer field (its help text), and the code that uses it; a
field that is not marked ``RELEASE = False`` reaches ``LocationModel.deidentify`` as a keyword of its own name.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, fields
from typing import Any

REPLACEMENTS = ("delete", "mask", "generalize")
# Which place names go: "all" that the gazetteer resolves inside the grid (a reader reads "東京" or "Iowa" even
# where the scorers say it narrows nothing down), or only those the thresholds "need" (the paper's rule).
PLACE_POLICIES = ("all", "needed")

# What each option means, said once for the page, the API and the ``kakurega`` command.
OPTION_HELP = {
    "remove_time": "Remove time expressions too (English posts), before the location: the time_* options say how. "
                   "The response's time field lists what went.",
    "model": "Model id or name; empty: the default model for the text's language.",
    "mode": "auto: delete the fewest units (a word, or a whole place name) that get under every threshold; fixed: "
            "delete exactly m.",
    "m": "Units to delete in fixed mode (a word, or a whole place name; at most INSPECT_MAX_M).",
    "keep": "Words or phrases that must not be deleted (\"Des Moines\", \"Iowa Cubs\"): found in the post "
            "case-insensitively, each keeps every unit it spans. An entry not in the post, or a list that leaves the "
            "post over a threshold, gets a warning.",
    "replacement": "What a deleted place becomes: delete (the paper), mask ([place]) or generalize (its state or "
                   "prefecture, where that keeps every scorer under its threshold; else it is deleted).",
    "places": "Automatic mode: all (every place name the gazetteer puts inside the grid goes, then the fewest other "
              "units) or needed (only what the thresholds need: the paper's rule).",
}

#: Field metadata of an option that is not a keyword of LocationModel.deidentify (it chooses the model, or
#: edits the post before).
NOT_RELEASE = {"release": False}


@dataclass(frozen=True)
class InspectOptions:
    """How to de-identify the location of a post. ``m`` None is the automatic mode (the fewest deletions that
    get under every threshold), else exactly m deletions; ``keep_words``, words or phrases never deleted;
    ``replacement``, what a deleted place becomes; ``places``, which place names go in automatic mode."""

    m: int | None = None
    keep_words: tuple[str, ...] = ()
    replacement: str = "delete"
    places: str = "all"
    #: The model's id or name; empty: the default model of the text's language.
    model: str = field(default="", metadata=NOT_RELEASE)
    #: Remove time expressions first (English posts), as ``time`` says (the time-removal options, by their API
    #: names, as anonymizer.temporal.removal reads them).
    remove_time: bool = field(default=False, metadata=NOT_RELEASE)
    time: Mapping[str, Any] = field(default_factory=dict, metadata=NOT_RELEASE)

    def release_keywords(self) -> dict[str, Any]:
        """The keywords of LocationModel.deidentify these options set."""
        return {f.name: getattr(self, f.name) for f in fields(self) if f.metadata.get("release", True)}


#: Every option at its default.
DEFAULT_OPTIONS = InspectOptions()
