"""Fixtures of the preferences web tests: the default preference model, trained once per session from the
aggregated check-ins shipped in data/, registered per test in a fresh MODEL_DIR as bootstrap does."""

from __future__ import annotations

import pytest

from anonymizer.preferences.aggregate import read_aggregate
from anonymizer.preferences.items import ItemSpace
from anonymizer.preferences.labels import ProxyLabelRule
from anonymizer.preferences.serving import train_artifact
from anonymizer.preferences.web.services import DEFAULT_PREFERENCE_MODEL as SPEC
from tests.helpers import ROOT


@pytest.fixture(autouse=True)
def _report_rate(settings):
    """PREFERENCE_REPORT_RATE (10/hour per address) counts in the session's Redis, and every test posts from
    the same address: the tests here that are not about the rate get a rate they cannot reach."""
    settings.PREFERENCE_REPORT_RATE = "100000/hour"


@pytest.fixture(scope="session")
def default_checkins():
    return read_aggregate(ROOT / "data" / SPEC.data)


@pytest.fixture(scope="session")
def default_artifact(default_checkins):
    items = ItemSpace(slot_hours=SPEC.slot_hours, split_week=SPEC.split_week, place=SPEC.place).fit(default_checkins)
    ratings = ProxyLabelRule().ratings(default_checkins, items)
    return train_artifact(SPEC.name, ratings, items, SPEC.trainer(), source="proxy")


@pytest.fixture
def preference_model(default_artifact, settings, tmp_path):
    """The default preference model registered (database row + artifact in a fresh MODEL_DIR)."""
    from anonymizer.preferences.web.services import register_preference_model

    settings.MODEL_DIR = tmp_path / "models"
    return register_preference_model(default_artifact, title=SPEC.title, metadata={"labels": "proxy"})
