"""Reading the Foursquare check-ins and uploaded preference files (anonymizer/preferences/checkins.py)."""

from __future__ import annotations

import numpy as np
import pytest

from anonymizer.preferences.checkins import InputFormatError, parse_foursquare, parse_preferences, read_foursquare
from tests.helpers import shared_data

HEADER = "new_tid;tid;lat_lon;time;day;poi;type;root_type;rating;weather;label"
ROWS = [
    "0;126;40.8331652006224 -73.9418603427692;317;Monday;The Lair;Home (private);Residence;-1;Clear;6",
    "0;126;40.8340978041072 -73.9452672225881;1404;Monday;Galaxy Deli;Deli / Bodega;Food;8.2;Clouds;6",
    "1;200;40.7 -73.9;0;Sunday;Somewhere;Office;Professional & Other Places;-1;Clear;12",
]


def lines(*rows: str) -> list[str]:
    return [HEADER + "\n", *(row + "\n" for row in rows)]


def test_foursquare_rows_become_arrays():
    data = parse_foursquare(lines(*ROWS))
    assert len(data) == 3 and data.user_names == ("12", "6")
    np.testing.assert_array_equal(data.user, [1, 1, 0])
    np.testing.assert_array_equal(data.weekday, [0, 0, 6])
    np.testing.assert_array_equal(data.minute, [317, 1404, 0])
    assert [data.category_names[c] for c in data.category] == ["Home (private)", "Deli / Bodega", "Office"]
    assert [data.root_names[c] for c in data.root] == ["Residence", "Food", "Professional & Other Places"]
    np.testing.assert_allclose(data.lat, [40.8331652006224, 40.8340978041072, 40.7])
    np.testing.assert_array_equal(data.week, [126, 126, 200])
    assert len(set(data.venue.tolist())) == 3


@pytest.mark.parametrize(("row", "column", "words"), [
    (ROWS[0].replace(";317;", ";1440;"), "time", "0-1439"),
    (ROWS[0].replace(";317;", ";noon;"), "time", "not a minute"),
    (ROWS[0].replace("Monday", "Moonday"), "day", "weekday"),
    (ROWS[0].replace("40.8331652006224 -73.9418603427692", "40.83"), "lat_lon", "latitude longitude"),
    (ROWS[0].replace("40.8331652006224 -73.9418603427692", "95 10"), "lat_lon", "on Earth"),
    (ROWS[0].replace("0;126;", "0;x;", 1), "tid", "integer"),
])
def test_a_bad_check_in_names_its_row_and_column(row, column, words):
    with pytest.raises(InputFormatError) as raised:
        parse_foursquare(lines(ROWS[1], row))
    assert raised.value.row == 3 and raised.value.column == column
    assert f"row 3, column '{column}'" in str(raised.value) and words in str(raised.value)


def test_a_missing_column_is_named():
    with pytest.raises(InputFormatError, match="root_type"):
        parse_foursquare(["lat_lon;time;day;type;label\n"])


def test_the_foursquare_file_reads_from_the_zip():
    data = read_foursquare(shared_data("ldp/mat_foursquare_nyc/original.zip"))
    assert len(data) == 66_946 and data.n_users == 193 and len(data.root_names) == 10
    assert len(data.category_names) == 491
    assert data.minute.min() >= 0 and data.minute.max() < 1440


def test_uploaded_preferences_accept_the_documented_forms():
    upload = parse_preferences(
        "user;time;weekday;place;label\n"
        "alice;18:30;Mon;Gym;1\n"
        "alice;7;;Home;hide\n"
        "bob;18-24;Saturday;Gym;publish\n"
        "bob;06:00;6;Home;0\n")
    assert upload.user_names == ("alice", "bob") and upload.place_names == ("Gym", "Home")
    np.testing.assert_array_equal(upload.minute, [18 * 60 + 30, 7 * 60, 18 * 60, 6 * 60])
    np.testing.assert_array_equal(upload.weekday, [0, -1, 5, 6])
    np.testing.assert_array_equal(upload.label, [1, 0, 1, 0])
    slot_column = parse_preferences("user,slot,place,label\nu,12-18,Park,1\n")
    np.testing.assert_array_equal(slot_column.minute, [720])


@pytest.mark.parametrize(("text", "row", "column"), [
    ("user,time,place,label\nu,25:00,Park,1\n", 2, "time"),
    ("user,time,place,label\nu,10,Park,maybe\n", 2, "label"),
    ("user,time,place,label\nu,10,Park,1\nu,10,,1\n", 3, "place"),
    ("user,time,weekday,place,label\nu,10,Funday,Park,1\n", 2, "weekday"),
    ("user,time,place\nu,10,Park\n", 1, "label"),
    ("user,slot,place,label\nu,x-y,Park,1\n", 2, "slot"),
])
def test_a_bad_preference_row_names_its_row_and_column(text, row, column):
    with pytest.raises(InputFormatError) as raised:
        parse_preferences(text)
    assert (raised.value.row, raised.value.column) == (row, column)
