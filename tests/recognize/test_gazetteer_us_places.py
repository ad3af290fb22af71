"""The US places a resident names besides towns (issue 45, part 2) in the shipped gazetteer: counties, and the
curated universities, teams, chants, venues, events and landmarks of data/geo/gazetteer/us_curated.tsv."""

from __future__ import annotations

import csv

import pytest

from anonymizer.platform.grid import haversine_km
from anonymizer.recognize.gazetteer import DEFAULT_PATH, Gazetteer

GAZETTEER_DIR = DEFAULT_PATH.parent


@pytest.fixture(scope="module")
def gaz() -> Gazetteer:
    return Gazetteer.load()


def kinds_and_states(gaz: Gazetteer, name: str) -> list[tuple[str, str]]:
    return [(p.kind, p.admin1) for p in gaz.resolve(name)]


@pytest.mark.parametrize(("name", "state", "lat", "lon"), [
    ("Door County", "us:WI", 44.95, -87.31),     # the peninsula
    ("door co", "us:WI", 44.95, -87.31),
    ("Story County", "us:IA", 42.04, -93.46),     # Ames
    ("Orleans Parish", "us:LA", 30.03, -89.93),   # a parish is Louisiana's county
])
def test_counties_are_places_at_their_centroid(gaz, name, state, lat, lon):
    # GeoNames also lists "Orleans Parish" as a name of New Orleans: the county is one of the places.
    places = [p for p in gaz.resolve(name) if p.kind == "county"]
    assert [p.admin1 for p in places] == [state]
    assert haversine_km(places[0].lat, places[0].lon, lat, lon) < 25
    assert places[0] in gaz.members(state)


def test_a_county_name_of_many_states_is_ambiguous_and_bare_names_are_not_counties(gaz):
    assert {admin1 for kind, admin1 in kinds_and_states(gaz, "Cook County")} >= {"us:IL", "us:MN"}
    assert len(gaz.resolve("Washington County")) > 10
    assert "county" not in {kind for kind, _ in kinds_and_states(gaz, "Door")}  # the word is the cue
    assert "county" not in {kind for kind, _ in kinds_and_states(gaz, "Story")}


@pytest.mark.parametrize(("name", "kind", "anchor"), [
    ("UAPB", "university", "Pine Bluff"),
    ("LSU", "university", "Baton Rouge"),
    ("Geaux Tigers", "university", "Baton Rouge"),
    ("Mizzou", "university", "Columbia"),
    ("UIUC", "university", "Champaign"),
    ("Hawkeyes", "university", "Iowa City"),
    ("Kinnick", "university", "Iowa City"),
    ("Wrigley", "team", "Chicago"),
    ("Lambeau Field", "team", "Green Bay"),
    ("Arrowhead", "team", "Kansas City"),
    ("Busch Stadium", "team", "St. Louis"),
    ("Camp Randall", "university", "Madison"),
    ("Summerfest", "event", "Milwaukee"),
    ("Lilac Festival", "event", "Saint Ignace"),   # Mackinac Island's ferry town: the island is not in cities500
    ("Gateway Arch", "landmark", "St. Louis"),
    ("Mall of America", "landmark", "Bloomington"),
    ("Gig 'em", "university", "College Station"),
])
def test_curated_places_sit_at_their_anchor_city(gaz, name, kind, anchor):
    place = gaz.resolve(name)[0]
    assert place.kind == kind
    city = next(p for p in gaz.resolve(anchor) if p.kind == "city" and p.admin1 == place.admin1)
    assert (place.lat, place.lon) == (city.lat, city.lon)  # no coordinate of its own


def test_ambiguous_chants_stay_mixtures(gaz):
    assert {p.admin1 for p in gaz.resolve("Go Rebels")} == {"us:MS", "us:NV"}  # Ole Miss and UNLV
    assert {p.admin1 for p in gaz.resolve("Go Hawks")} >= {"us:IA", "us:IL", "us:GA", "us:WA"}


@pytest.mark.parametrize("word", ["Tigers", "Bears", "Twins", "Saints", "Chiefs", "Cardinals", "Cubs", "Royals",
                                  "Rebels", "Big House", "First Avenue", "Notre Dame", "OSU", "MSU"])
def test_ordinary_words_and_ambiguous_acronyms_are_not_curated_places(gaz, word):
    # Notre Dame IN is a GeoNames town (and "OSU" one city's alternate name): only the curated kinds are checked.
    assert {p.kind for p in gaz.resolve(word)} <= {"city"}


def test_every_curated_row_names_its_source_and_a_known_kind():
    with (GAZETTEER_DIR / "us_curated.tsv").open(encoding="utf-8") as handle:
        rows = list(csv.DictReader((line for line in handle if not line.startswith("#")), delimiter="\t"))
    assert len(rows) >= 200
    for row in rows:
        assert row["source"].startswith("Wikipedia: ") and len(row["state"]) == 2, row


def test_airports_are_known_by_their_codes_only_in_capitals_and_never_by_name(gaz):
    (dsm,) = gaz.resolve_code("KDSM")
    assert dsm.kind == "airport" and dsm.admin1 == "us:IA" and haversine_km(dsm.lat, dsm.lon, 41.53, -93.66) < 5
    assert gaz.resolve_code("DSM") == [dsm] and gaz.resolve_code("dsm") == [] and gaz.resolve_code("Kdsm") == []
    assert "airport" not in {p.kind for p in gaz.resolve("KDSM") + gaz.resolve("DSM")}
    assert "airport" not in {p.kind for p in gaz.resolve("Des Moines International Airport")}  # a venue's words
    assert gaz.names_of(dsm) == []
    for word in ("AND", "BAD", "ILL", "SAT"):  # codes that are English words are left out
        assert gaz.resolve_code(word) == []
