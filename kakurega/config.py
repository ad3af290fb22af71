"""The settings that change what Kakurega releases, read from the environment under the names and with the
defaults the web app's settings give them (webapp/settings.py), so a file released here is the file a server with
the same environment releases (tests/cli/test_config.py checks the two agree)."""

from __future__ import annotations

import os
from dataclasses import dataclass

_TRUE = {"1", "true", "yes", "on"}
_FALSE = {"0", "false", "no", "off"}


def _flag(name: str, default: bool) -> bool:
    raw = (os.environ.get(name) or "").strip().lower()
    if not raw:
        return default
    if raw in _TRUE | _FALSE:
        return raw in _TRUE
    raise ValueError(f"Environment variable {name}={raw!r} is invalid: expected one of "
                     + ", ".join(sorted(_TRUE | _FALSE)) + ".")


@dataclass(frozen=True)
class ReleaseSettings:
    """``neutralize_formulas``: a released CSV cell that a spreadsheet would run as a formula gets a leading
    apostrophe (CSV_NEUTRALIZE_FORMULAS); ``temporal_use_ner``: time removal asks spaCy's entity recognizer too
    (TEMPORAL_USE_NER)."""

    neutralize_formulas: bool = True
    temporal_use_ner: bool = True

    @classmethod
    def from_environment(cls) -> ReleaseSettings:
        return cls(neutralize_formulas=_flag("CSV_NEUTRALIZE_FORMULAS", cls.neutralize_formulas),
                   temporal_use_ner=_flag("TEMPORAL_USE_NER", cls.temporal_use_ner))
