"""The check-ins shipped for the default preference model: aggregated (no coordinates, no venue names), yet the
proxy labels and item spaces computed from them equal those of the original file exactly."""

from __future__ import annotations

import gzip

import numpy as np
import pytest

from anonymizer.preferences.aggregate import COLUMNS, read_aggregate, write_aggregate
from anonymizer.preferences.checkins import InputFormatError, parse_preferences, read_foursquare
from anonymizer.preferences.items import ItemSpace
from anonymizer.preferences.labels import ProxyLabelRule
from anonymizer.preferences.web.services import DEFAULT_PREFERENCE_MODEL
from tests.helpers import ROOT, shared_data

SHIPPED = ROOT / "data" / DEFAULT_PREFERENCE_MODEL.data


def test_the_shipped_file_holds_no_position_and_no_venue_name():
    with gzip.open(SHIPPED, "rt", encoding="utf-8") as handle:
        header = handle.readline().strip().split(",")
        text = handle.read()
    assert tuple(header) == COLUMNS
    assert "40." not in text and "-73." not in text  # no New York coordinates
    checkins = read_aggregate(SHIPPED)
    assert len(checkins) == 66_946 and checkins.n_users == 193 and len(checkins.root_names) == 10
    assert np.isnan(checkins.lat).all() and set(np.unique(checkins.minute % 60)) == {0}
    with pytest.raises(ValueError):  # a grid needs positions
        ItemSpace(place="grid").fit(checkins).transform(checkins)
    assert (SHIPPED.parent / "PROVENANCE.txt").exists()


@pytest.mark.parametrize("slot_hours,split_week,place", [(2, False, "root"), (4, True, "root"), (8, True, "category"),
                                                          (12, False, "category")])
def test_proxy_ratings_from_the_aggregate_equal_those_from_the_original(slot_hours, split_week, place,
                                                                         default_checkins):
    original = read_foursquare(shared_data("ldp/mat_foursquare_nyc/original.zip"))
    rule = ProxyLabelRule()
    a = ItemSpace(slot_hours=slot_hours, split_week=split_week, place=place).fit(original)
    b = ItemSpace(slot_hours=slot_hours, split_week=split_week, place=place).fit(default_checkins)
    assert a.labels() == b.labels()
    expected, got = rule.ratings(original, a), rule.ratings(default_checkins, b)
    assert np.array_equal(expected.user, got.user) and np.array_equal(expected.item, got.item)
    assert np.array_equal(expected.value, got.value)


def test_the_shipped_file_is_what_write_aggregate_makes_of_the_original(tmp_path):
    original = read_foursquare(shared_data("ldp/mat_foursquare_nyc/original.zip"))
    write_aggregate(original, tmp_path / "again.csv.gz")
    assert (tmp_path / "again.csv.gz").read_bytes() == SHIPPED.read_bytes()


def test_a_bad_aggregate_row_is_refused_with_row_and_column():
    lines = [",".join(COLUMNS), "u000,0,6,Office,Professional & Other Places,v1,2", "u000,7,6,Office,Prof,v1,1"]
    from anonymizer.preferences.aggregate import parse_aggregate

    with pytest.raises(InputFormatError) as caught:
        parse_aggregate(lines)
    assert caught.value.row == 3 and caught.value.column == "weekday"
    assert parse_preferences("user,time,place,label\na,18:00,Home,1\n").n_users == 1
