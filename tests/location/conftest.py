"""The default models, trained once per test session from the corpora shipped in data/."""

from __future__ import annotations

import pytest

from anonymizer.location.corpus import load_corpus
from anonymizer.location.defaults import TOKYO, US_MIDWEST, ModelSpec
from anonymizer.location.evaluate import split_train_test
from anonymizer.location.model import LocationModel, train_location_model
from tests.helpers import ROOT

DATA = ROOT / "data"


class Trained:
    """A default model with its corpus and the held-out posts it was evaluated on."""

    def __init__(self, spec: ModelSpec) -> None:
        self.spec = spec
        self.posts, self.report = load_corpus(DATA / spec.corpus, columns=spec.columns, grid=spec.grid,
                                              where={k: set(v) for k, v in spec.where.items()} or None)
        self.model: LocationModel = train_location_model(self.posts, name=spec.name, grid=spec.grid,
                                                         tokenizer_settings=spec.tokenizer_settings)
        _, test, _ = split_train_test(len(self.posts), users=[p.user for p in self.posts])
        self.held_out = [self.posts[i] for i in test]


@pytest.fixture(scope="session")
def tokyo() -> Trained:
    return Trained(TOKYO)


@pytest.fixture(scope="session")
def midwest() -> Trained:
    return Trained(US_MIDWEST)


@pytest.fixture(scope="session", params=["tokyo", "midwest"])
def trained(request) -> Trained:
    return request.getfixturevalue(request.param)
