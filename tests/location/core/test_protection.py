"""The attacker evaluation on real posts: disjoint parts, every attacker before and after de-identification,
consistent shares, examples to read, and the threshold calibrated against an independent attacker."""

from __future__ import annotations

import json
from types import SimpleNamespace

import numpy as np
import pytest
from django.core.management import call_command

from anonymizer.location.attackers import CharNgramAttacker
from anonymizer.location.calibration import calibrate_against_attacker, default_candidates
from anonymizer.location.corpus import Post
from anonymizer.location.defaults import TOKYO, US_MIDWEST
from anonymizer.location.model import train_location_model
from anonymizer.location.protection import (
    ATTACKERS,
    EXAMPLE_KINDS,
    evaluate_protection,
    protection_table,
    replacement_options,
    three_way_split,
)
from tests.helpers import default_corpus

SPECS = {"tokyo": TOKYO, "midwest": US_MIDWEST}


def corpus(name: str):
    return default_corpus(SPECS[name].name)[0]


def test_three_way_split_is_disjoint_and_user_disjoint_when_users_are_known():
    posts = corpus("midwest")
    defender, attacker, test, by_user = three_way_split(posts)
    assert by_user
    users = [{posts[i].user for i in part} for part in (defender, attacker, test)]
    assert not (users[0] & users[1]) and not (users[0] & users[2]) and not (users[1] & users[2])
    assert len(defender) + len(attacker) + len(test) == len(posts)


@pytest.mark.parametrize("name", ["tokyo", "midwest"])
def test_every_attacker_is_scored_before_and_after_with_consistent_shares(name):
    spec = SPECS[name]
    posts = corpus(name)[:300]
    result = evaluate_protection(posts, grid=spec.grid, tokenizer_settings=spec.tokenizer_settings,
                                 max_test_posts=60, examples=5, **replacement_options("delete"))
    json.dumps(result)  # a job stores it as it is
    assert result["posts"]["test"] == 60
    assert set(result["attackers"]) == set(ATTACKERS)  # the gazetteer file is in data/
    baseline = result["baseline"]
    for name_, attack in result["attackers"].items():
        for when in ("original", "released"):
            scores = attack[when]
            assert scores["posts"] == 60, name_
            assert 0 <= scores["accuracy"] <= scores["top5_accuracy"] <= 1
            assert scores["accuracy_ratio"] == pytest.approx(scores["accuracy"] / baseline["accuracy"])
            assert scores["median_error_ratio"] == pytest.approx(scores["median_error_km"]
                                                                 / baseline["median_error_km"])
    assert 0 <= baseline["accuracy"] <= baseline["top5_accuracy"] <= 1
    d = result["deletions"]
    assert 0 <= d["morphemes_deleted"] <= d["posts_changed"] <= 1
    assert d["morphemes_deleted"] == pytest.approx(d["morphemes_deleted_count"] / d["morphemes"])
    assert 0 <= d["posts_not_under_threshold"] <= 60 and d["seconds_per_post"] > 0
    places = result["place_mentions"]
    assert places["available"] and 0 <= places["released"] <= 1 and 0 <= places["original"] <= 1
    assert places["released_posts"] == round(places["released"] * 60)
    assert set(result["examples"]) == set(EXAMPLE_KINDS)
    for kind, rows in result["examples"].items():
        assert len(rows) <= 5, kind
    changed = result["examples"]["changed"]
    assert len(changed) == min(5, round(d["posts_changed"] * 60))
    assert all(row["before"] != row["after"] and row["deleted"] for row in changed)
    assert all(row["mentions"] for row in result["examples"]["place_survives"])
    report = protection_table(result)
    for attack in result["attackers"].values():
        assert f"### {attack['label']}" in report
    assert "Released posts still naming a place inside the grid" in report and "Posts changed" in report


def test_without_the_gazetteer_file_the_report_says_so(tmp_path):
    posts = corpus("tokyo")[:200]
    result = evaluate_protection(posts, grid=TOKYO.grid, tokenizer_settings=TOKYO.tokenizer_settings,
                                 max_test_posts=20, gazetteer_path=tmp_path / "missing.json.gz")
    assert "gazetteer" not in result["attackers"] and not result["place_mentions"]["available"]
    assert "missing.json.gz is missing" in protection_table(result)


def test_the_command_prints_the_report(capsys):
    call_command("evaluate_location_protection", "--spec", "tokyo-ja", "--max-posts", "30", "--examples", "3")
    out = capsys.readouterr().out
    assert "## Protection against independent attackers" in out and "| accuracy |" in out
    assert "test 30" in out and "Posts changed" in out


class Sensitive:
    """A stand-in defender: post i of n is left unchanged while the threshold is above i / n, else emptied."""

    grid = TOKYO.grid
    metadata = {"majority_cell": 7, "majority_share": 0.1}

    def __init__(self, texts, tried=None, threshold=None):
        self.texts, self.tried, self.threshold = list(texts), [] if tried is None else tried, threshold

    def with_threshold(self, threshold):
        self.tried.append(threshold.value)
        return Sensitive(self.texts, self.tried, threshold)

    def deidentify(self, text):
        i = self.texts.index(text)
        kept = i / len(self.texts) < self.threshold.value
        return SimpleNamespace(text_after=text if kept else "", tokens=[text],
                               decision=SimpleNamespace(deleted=() if kept else (0,)))


class Memory:
    """A stand-in attacker that places exactly the texts it saw, unchanged."""

    def __init__(self, posts):
        self.cells = {p.text: p.cell for p in posts}

    def predict(self, texts):
        return np.array([self.cells.get(t, -1) for t in texts])


def test_calibration_bisects_for_the_largest_threshold_that_meets_the_target():
    # 100 posts, 10 of them in the training majority cell: the baseline is 0.1. At threshold v the attacker
    # places the share v of the posts (those left unchanged), so the target 2.5 x 0.1 holds for v <= 0.25.
    validation = [Post(row=i, text=f"post {i}", lat=0, lon=0, cell=7 if i % 10 == 0 else 8) for i in range(100)]
    model = Sensitive([p.text for p in validation])
    candidates = [0.1, 0.15, 0.2, 0.24, 0.3, 0.4, 0.5]
    threshold, measured = calibrate_against_attacker(model, validation, Memory(validation), target_ratio=2.5,
                                                     candidates=candidates)
    assert threshold.value == 0.24 and threshold.kind == "attacker" and measured["reached"]
    assert measured["baseline_accuracy"] == pytest.approx(0.1)
    chosen = measured["tried"][0.24]
    assert (chosen["accuracy"], chosen["ratio"], chosen["worst_ratio"]) == pytest.approx((0.24, 2.4, 2.4))
    assert chosen["fold_ratios"] == [] and measured["folds"] == 1
    assert not measured["tried"][0.3]["passes"] and 0.1 not in model.tried  # the dearest was never needed
    assert model.tried[0] == 0.5 and len(model.tried) <= 4  # the cheapest first, then a bisection
    assert "Memory" in threshold.explanation and "2.40x" in threshold.explanation and "100" in threshold.explanation
    lowest, measured = calibrate_against_attacker(model, validation, Memory(validation), target_ratio=0.5,
                                                  candidates=candidates)
    assert lowest.value == 0.1 and not measured["reached"] and "NOT reached" in lowest.explanation
    assert "missed by 0.50x" in lowest.explanation  # measured 1.00x against 0.50x


def test_calibration_on_folds_holds_the_bound_for_every_users_posts_not_only_pooled():
    # Two users of 50 posts each, 5 of each in the majority cell: every fold's baseline is 0.1. At threshold v the
    # attacker places the first 100 v posts, all the early user's: pooled 10 v x the baseline, 20 v on that fold.
    validation = [Post(row=i, text=f"post {i}", lat=0, lon=0, cell=7 if i % 10 == 0 else 8,
                       user="early" if i < 50 else "late") for i in range(100)]
    candidates = [0.1, 0.12, 0.15, 0.2, 0.24, 0.3]
    pooled, _ = calibrate_against_attacker(Sensitive([p.text for p in validation]), validation, Memory(validation),
                                           target_ratio=2.5, candidates=candidates)
    assert pooled.value == 0.24  # 2.4x pooled, while the early user's posts are placed 4.8x as often as guessing
    threshold, measured = calibrate_against_attacker(Sensitive([p.text for p in validation]), validation,
                                                     Memory(validation), target_ratio=2.5, candidates=candidates,
                                                     folds=2)
    assert threshold.value == 0.12 and measured["reached"] and measured["folds"] == 2
    chosen = measured["tried"][0.12]
    assert sorted(chosen["fold_ratios"]) == pytest.approx([0.0, 2.4]) and chosen["ratio"] == pytest.approx(1.2)
    assert chosen["worst_ratio"] == pytest.approx(2.4)
    assert not measured["tried"][0.15]["passes"] and measured["tried"][0.15]["ratio"] == pytest.approx(1.5)
    assert "each of 2 user-disjoint folds" in threshold.explanation
    assert "2.40x on the worst fold" in threshold.explanation


def test_calibration_against_the_char_ngram_attacker_on_real_posts():
    posts = corpus("tokyo")
    train, validation = posts[:800], posts[800:920]
    model = train_location_model(train, name="calibrate", grid=TOKYO.grid,
                                 tokenizer_settings=TOKYO.tokenizer_settings, test_size=0)
    attacker = CharNgramAttacker(TOKYO.grid.n_cells).fit([p.text for p in train], np.array([p.cell for p in train]))
    candidates = default_candidates(model.metadata["majority_share"], count=6)
    assert candidates == sorted(candidates, reverse=True) and candidates[0] == 0.5
    assert candidates[-1] == pytest.approx(1.5 * model.metadata["majority_share"], abs=1e-4)
    threshold, measured = calibrate_against_attacker(model, validation, attacker, candidates=candidates[:3])
    assert threshold.kind == "attacker" and threshold.value in candidates[:3]
    assert measured["posts"] == 120 and threshold.value in measured["tried"]
    assert ("NOT reached" in threshold.explanation) != measured["reached"]
