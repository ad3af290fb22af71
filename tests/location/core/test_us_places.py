"""US places a resident names besides towns (issue 45, part 2): posts a fresh reader still placed after a "pass"
verdict (counties, hashtags, universities, teams and their chants, stadiums, festivals) lose the place on the
default US model, and ordinary words stay words."""

from __future__ import annotations

import pytest

from tests.location.core.test_places import assert_released_under, resolvable_in_grid


@pytest.mark.parametrize(("text", "gone"), [
    ("#DoorCounty sunrise over the bay, then breakfast at Al's", "#DoorCounty"),
    ("Sunrise over the bay in Door County this morning", "Door County"),
    ("Smells like spring #lilacfestival", "#lilacfestival"),
    ("Homecoming weekend, so proud #UAPB", "#UAPB"),
    ("Saturday night in the swamp #LETSGEAUXTIGERS", "#LETSGEAUXTIGERS"),
    ("Lets go Rebels", "Rebels"),
    ("Go Hawkeyes! Kinnick was rocking tonight", "Kinnick"),
    ("Go Hawkeyes! Kinnick was rocking tonight", "Hawkeyes"),
    ("Cubs game at Wrigley", "Wrigley"),
    ("Cheese curds at Summerfest", "Summerfest"),
    ("Finally saw the Gateway Arch", "Gateway Arch"),
    ("Shopping at Mall of America all day", "Mall of America"),
])
def test_places_a_resident_names_go(midwest, text, gone):
    model = midwest.model
    assert any(gone in t.text or t.text in gone for t in model.tokenize(text) if t.kind != "word"), text
    result = model.deidentify(text)
    assert gone not in result.text_after and result.decision.under_threshold
    assert resolvable_in_grid(model, result.text_after) == []
    assert_released_under(model, result)


@pytest.mark.parametrize("text", [
    "The tigers at the zoo were asleep all afternoon",
    "Cardinals are my favourite birds at the feeder",
    "Bears came down to the creek last night",
    "Twins run in my family",
    "The saints and the chiefs of the old stories",
    "Tigers and bears are both endangered",
    "The big house on the corner is for sale",
])
def test_ordinary_words_are_not_places(midwest, text):
    assert [t.text for t in midwest.model.tokenize(text) if t.kind in ("place", "venue")] == []
