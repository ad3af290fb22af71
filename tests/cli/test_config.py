"""kakurega.config reads the settings that change a released file as the web app does: same names, same
defaults, same values from the same environment."""

from __future__ import annotations

import pytest
from django.conf import settings

from kakurega.config import ReleaseSettings


def test_the_defaults_are_the_web_apps() -> None:
    # The test settings are read from this process's environment, which sets neither variable.
    assert ReleaseSettings.from_environment() == ReleaseSettings(
        neutralize_formulas=settings.CSV_NEUTRALIZE_FORMULAS, temporal_use_ner=settings.TEMPORAL_USE_NER)


@pytest.mark.parametrize(("raw", "value"), [("0", False), ("off", False), ("YES", True), (" 1 ", True), ("", True)])
def test_the_environment_is_read_as_the_web_app_reads_it(monkeypatch, raw: str, value: bool) -> None:
    from webapp.env import env_bool

    monkeypatch.setenv("CSV_NEUTRALIZE_FORMULAS", raw)
    monkeypatch.setenv("TEMPORAL_USE_NER", raw)
    assert env_bool("CSV_NEUTRALIZE_FORMULAS", True) is value
    assert ReleaseSettings.from_environment() == ReleaseSettings(neutralize_formulas=value, temporal_use_ner=value)


def test_a_typo_is_refused_naming_the_variable(monkeypatch) -> None:
    monkeypatch.setenv("TEMPORAL_USE_NER", "ture")
    with pytest.raises(ValueError, match="TEMPORAL_USE_NER='ture' is invalid"):
        ReleaseSettings.from_environment()
