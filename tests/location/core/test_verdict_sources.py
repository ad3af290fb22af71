"""Every number names its source (issue 43, findings 3 and 5): the verdict's "before" sentence names the scorer
that decided and with what (the place scorer's place names, the classifier's top cell), never a number beside
another scorer's threshold; the maps show the decided scorer's cells; and a post not in the model's language gets
a warning instead of a silent pass (the rule: anonymizer/location/language.py). On the real default models."""

from __future__ import annotations

import re

import pytest

from anonymizer.location.inspect import inspect_text
from anonymizer.location.language import language_problem, simplified_only
from anonymizer.location.verdict import percent
from tests.helpers import default_corpus

TSUNASHIMA = "綱島駅で友達と待ち合わせ"  # the classifier says 7.8% on 目黒区; the place scorer finds 綱島駅
DES_MOINES = "Grabbing lunch downtown in Des Moines before the Iowa Cubs game"


def view(result: dict, which: str, name: str) -> dict:
    return next(v for v in result[which]["scorers"] if v["name"] == name)


def test_the_place_scorer_that_decided_is_named_with_what_it_found(tokyo):
    result = inspect_text(tokyo.model, TSUNASHIMA)
    classifier, places = view(result, "before", "location"), view(result, "before", "places")
    # The case of the finding: the classifier is under its threshold, the place scorer over it.
    assert not classifier["over"] and places["over"] and not result["before"]["under_threshold"]
    assert places["found"] == ["綱島駅"]
    sentence = result["verdict"]["before"]
    assert sentence.startswith(
        f"Before: the place scorer (gazetteer) found “綱島駅” in the text: {percent(places['score'])} on "
        f"{places['top_label']} ≈ {places['top_place']}, at or over its threshold {percent(places['threshold'])}")
    assert (f"Under its threshold: the classifier {percent(classifier['score'])} on {classifier['top_label']} ≈ "
            f"{classifier['top_place']} (threshold {percent(classifier['threshold'])})") in sentence
    # No number is said to be over a threshold it is under: each "at or over" follows a number that is.
    for number, threshold in re.findall(r"(\d+\.\d+)%[^;.—]*?, at or over its threshold (\d+\.\d+)%", sentence):
        assert float(number) >= float(threshold)
    # The maps show the scorer that decided, and their top cell is the one the sentence names.
    assert result["map_scorer"] == "places"
    assert places["top_cell"] == max(range(len(places["probabilities"])), key=places["probabilities"].__getitem__)
    assert f"on {places['top_label']} ≈" in sentence
    # After de-identification: every scorer under its threshold, the place gone.
    assert not any(v["over"] for v in result["after"]["scorers"]) and view(result, "after", "places")["found"] == []


def test_the_classifier_that_decided_is_named_and_a_post_under_every_threshold_says_so(midwest, tokyo):
    result = inspect_text(midwest.model, DES_MOINES)
    sentence = result["verdict"]["before"]
    classifier = view(result, "before", "location")
    assert classifier["over"] and sentence.startswith(
        f"Before: the classifier {percent(classifier['score'])} on {classifier['top_label']} ≈ "
        f"{classifier['top_place']}, at or over its threshold {percent(classifier['threshold'])}")
    assert "found “Des Moines”, “Iowa” in the text" in sentence and result["map_scorer"] == "location"
    quiet = inspect_text(tokyo.model, "友達と待ち合わせ")
    assert quiet["verdict"]["before"].startswith("Before: already under every threshold: the classifier ")
    assert "found no place name" in quiet["verdict"]["before"] and quiet["map_scorer"] == "location"


@pytest.mark.parametrize(("model", "text", "problem"), [
    ("tokyo", "我在东京塔附近", "it has no kana, and 东 is a Simplified Chinese character not used in Japanese"),
    ("tokyo", "Meeting friends at Shibuya station", "it has no kana and no kanji"),
    ("tokyo", "서울에서 친구를 만났다", "it has no kana and is written in Hangul (Korean)"),
    ("midwest", "今日は浅草の雷門の前で待ち合わせ！", "only 0 of its 16 letters are Latin"),
])
def test_a_post_not_in_the_models_language_is_warned_about_not_passed_silently(request, model, text, problem):
    trained = request.getfixturevalue(model)
    result = inspect_text(trained.model, text)
    [warning] = [w for w in result["warnings"] if w["field"] == "text"]
    assert f"({problem})" in warning["message"] and trained.model.name in warning["message"]
    # The verdict says it too, whatever the checks: no silent pass.
    assert warning["message"] in result["verdict"]["summary"]


@pytest.mark.parametrize(("model", "text"), [
    ("tokyo", "今日は浅草の雷門の前で待ち合わせ！"), ("tokyo", "東京都渋谷区"), ("tokyo", "(((o(*ﾟ▽ﾟ*)o)))"),
    ("midwest", DES_MOINES), ("midwest", "Lunch at 渋谷 station"), ("midwest", "12:30 !!"),
])
def test_a_post_in_the_models_language_gets_no_warning(request, model, text):
    result = inspect_text(request.getfixturevalue(model).model, text)
    assert [w for w in result["warnings"] if w["field"] == "text"] == []


def test_the_rule_flags_no_post_of_the_models_own_corpora():
    for name, language in (("tokyo-ja", "ja"), ("us-midwest-en", "en")):
        posts, _ = default_corpus(name)
        flagged = [p.text for p in posts if language_problem(p.text, language)]
        assert flagged == [], (name, len(posts), flagged[:5])


def test_simplified_only_characters_come_from_the_code_pages():
    assert simplified_only("东") and simplified_only("们") and simplified_only("这")
    assert not any(simplified_only(c) for c in "東我在塔附近京渋谷区学")
