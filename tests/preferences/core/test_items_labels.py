"""The item space maps check-ins as documented (items.py); the proxy label rule on hand-made users (labels.py)."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest

from anonymizer.preferences.checkins import parse_preferences
from anonymizer.preferences.items import ItemSpace
from anonymizer.preferences.labels import SENSITIVE_CATEGORIES, ProxyLabelRule, preferences_to_ratings
from tests.preferences.synthetic import checkins

CATEGORIES = ("Bar", "Deli / Bodega", "Doctor's Office", "Gym", "Home (private)", "Office", "Post Office")
BAR, DELI, DOCTOR, GYM, HOME, OFFICE, POST = range(7)
ROOTS = ("Food", "Nightlife Spot", "Outdoors & Recreation", "Professional & Other Places", "Residence")
FOOD, NIGHT, OUTDOORS, PROFESSIONAL, RESIDENCE = range(5)
ROOT_OF = {BAR: NIGHT, DELI: FOOD, DOCTOR: PROFESSIONAL, GYM: OUTDOORS, HOME: RESIDENCE, OFFICE: PROFESSIONAL,
           POST: PROFESSIONAL}


def visits(user: int, weekday: int, minute: int, category: int, venue: int, times: int = 1,
           lat: float = 40.7, lon: float = -73.9) -> list[tuple]:
    return [(user, weekday, minute, category, ROOT_OF[category], lat, lon, venue)] * times


def test_slots_weekday_split_and_item_ids_follow_the_documented_layout():
    data = checkins(visits(0, 0, 0, DELI, 0) + visits(0, 0, 359, DELI, 0) + visits(0, 0, 360, DELI, 0)
                    + visits(0, 4, 1439, HOME, 1) + visits(0, 5, 1439, HOME, 1), CATEGORIES, ROOTS)
    items = ItemSpace(slot_hours=6).fit(data)
    assert (items.n_slots, items.n_places, items.n_items) == (4, 5, 20)
    # item = (day group * n_slots + slot) * n_places + place
    np.testing.assert_array_equal(items.transform(data), [FOOD, FOOD, 5 + FOOD, 15 + RESIDENCE, 15 + RESIDENCE])
    split = ItemSpace(slot_hours=6, split_week=True).fit(data)
    assert split.n_items == 40
    np.testing.assert_array_equal(split.transform(data)[3:], [15 + RESIDENCE, 20 + 15 + RESIDENCE])
    assert split.label(15 + FOOD) == "Mon–Fri 18–24h · Food"
    assert split.label(20 + 5 + NIGHT) == "Sat–Sun 6–12h · Nightlife Spot"
    assert items.label(10 + RESIDENCE) == "12–18h · Residence"
    assert split.decompose(20 + 5 + NIGHT) == (1, 1, NIGHT)


def test_every_slot_length_divides_the_day():
    data = checkins(visits(0, 2, 13 * 60 + 59, BAR, 0), CATEGORIES, ROOTS)
    for hours, slot in [(2, 6), (3, 4), (4, 3), (6, 2), (8, 1), (12, 1)]:
        items = ItemSpace(slot_hours=hours).fit(data)
        assert items.n_slots * hours == 24
        assert items.transform(data)[0] == slot * 5 + NIGHT
    with pytest.raises(ValueError, match="slot_hours"):
        ItemSpace(slot_hours=5)


def test_fine_categories_and_grid_areas_as_places():
    data = checkins(visits(0, 0, 600, OFFICE, 0, lat=40.0, lon=-74.0) + visits(0, 0, 600, GYM, 1, lat=41.0,
                                                                                 lon=-73.0), CATEGORIES, ROOTS)
    fine = ItemSpace(slot_hours=12, place="category").fit(data)
    assert fine.n_items == 2 * 7
    np.testing.assert_array_equal(fine.transform(data), [OFFICE, GYM])
    grid = ItemSpace(slot_hours=12, place="grid", grid_cells=2).fit(data)
    assert grid.n_items == 2 * 4
    # Row 0 is the north: the south-west point is cell (1, 0) = 2, the north-east one cell (0, 1) = 1.
    np.testing.assert_array_equal(grid.transform(data), [2, 1])
    other = checkins(visits(0, 0, 600, OFFICE, 0, lat=45.0, lon=-74.0), CATEGORIES, ROOTS)
    assert grid.transform(other)[0] == -1  # outside the fitted box


def test_a_category_the_space_was_not_fitted_on_maps_to_minus_one():
    fitted = replace(checkins(visits(0, 0, 600, DELI, 0), ("Deli / Bodega",), ("Food",)),
                     category=np.zeros(1, np.int32), root=np.zeros(1, np.int32))
    items = ItemSpace(place="category").fit(fitted)
    other = checkins(visits(0, 0, 600, DELI, 0) + visits(0, 0, 600, BAR, 1), CATEGORIES, ROOTS)
    np.testing.assert_array_equal(items.transform(other), [1, -1])  # 6h slot 1, the only place


def test_uploaded_places_are_used_as_given():
    upload = parse_preferences("user,time,weekday,place,label\na,08:00,Mon,Gym,1\na,09:00,Mon,Gym,0\n"
                               "b,20:00,Sun,Home,0\n")
    items = ItemSpace(slot_hours=12, split_week=True, place="given").fit(upload)
    ratings = preferences_to_ratings(upload, items)
    gym, home = upload.place_names.index("Gym"), upload.place_names.index("Home")
    # Two rows in one item: hide wins.
    assert ratings.to_dense()[0, gym] == 0
    assert ratings.to_dense()[1, (2 + 1) * 2 + home] == 0
    assert len(ratings) == 2
    with pytest.raises(ValueError, match="place='given'"):
        ItemSpace(place="root").fit(upload)


def hand_made_users():
    rows = (
        # user 0, 20 check-ins
        visits(0, 0, 23 * 60, HOME, 0, times=8)            # home at night: sensitive
        + visits(0, 1, 18 * 60, GYM, 1, times=6)           # the same gym 6 of 20 times: a routine venue
        + visits(0, 2, 21 * 60, BAR, 2) + visits(0, 3, 21 * 60, BAR, 3) + visits(0, 4, 21 * 60, BAR, 4)
        + visits(0, 0, 10 * 60, DOCTOR, 5)                 # 6-12h professional: doctor + office, all sensitive
        + visits(0, 1, 11 * 60, OFFICE, 6)
        + visits(0, 0, 13 * 60, OFFICE, 7)                 # 12-18h professional: 1 of 2 revealing: hide
        + visits(0, 1, 14 * 60, POST, 8)
        # user 1: the gym only 4 times (below the routine minimum of 5), a post office once
        + visits(1, 1, 18 * 60, GYM, 1, times=4)
        + visits(1, 2, 3 * 60, POST, 9)                    # 0-6h professional, not revealing
    )
    return checkins(rows, CATEGORIES, ROOTS)


def test_the_proxy_rule_on_hand_made_users():
    data = hand_made_users()
    items = ItemSpace(slot_hours=6).fit(data)
    ratings = ProxyLabelRule().ratings(data, items)
    dense = ratings.to_dense()

    def rating(user, slot, root):
        return dense[user, slot * 5 + root]

    assert rating(0, 3, RESIDENCE) == 0  # home
    assert rating(0, 3, OUTDOORS) == 0  # routine gym
    assert rating(0, 3, NIGHT) == 1  # three different bars, once each
    assert rating(0, 1, PROFESSIONAL) == 0  # doctor and office
    assert rating(0, 2, PROFESSIONAL) == 0  # half revealing: hide_share 0.5 hides
    assert rating(1, 3, OUTDOORS) == 1  # the same gym, but only 4 visits: not a routine
    assert rating(1, 0, PROFESSIONAL) == 1
    assert len(ratings) == 7  # only visited items are rated
    assert np.isnan(rating(1, 3, RESIDENCE))


def test_the_rule_thresholds_are_parameters():
    data = hand_made_users()
    items = ItemSpace(slot_hours=6).fit(data)
    strict = ProxyLabelRule(routine_min_checkins=4).ratings(data, items).to_dense()
    assert strict[1, 3 * 5 + OUTDOORS] == 0  # now 4 visits are a routine
    lenient = ProxyLabelRule(hide_share=0.6).ratings(data, items).to_dense()
    assert lenient[0, 2 * 5 + PROFESSIONAL] == 1  # 1 of 2 revealing no longer hides
    no_categories = ProxyLabelRule(sensitive_categories=frozenset()).ratings(data, items).to_dense()
    assert no_categories[0, 3 * 5 + RESIDENCE] == 0  # home visited 8/20 times is a routine venue anyway
    assert no_categories[0, 1 * 5 + PROFESSIONAL] == 1


def test_sensitive_categories_exist_in_the_foursquare_vocabulary():
    assert {"Home (private)", "Office", "Hospital", "Church", "Gay Bar"} <= SENSITIVE_CATEGORIES
