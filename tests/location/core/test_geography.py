"""Each cell of the default grids named by its nearest sizable place from the shipped gazetteer, the map's place
labels, and the geography files chosen for a grid (which must exist in static/vendor)."""

from __future__ import annotations

import pytest

from anonymizer.location.defaults import TOKYO, US_MIDWEST
from anonymizer.location.geography import cell_places, geography_layers, grid_places, map_labels
from anonymizer.platform.grid import Grid
from anonymizer.recognize.gazetteer import Gazetteer
from tests.helpers import ROOT


@pytest.fixture(scope="module")
def gazetteer() -> Gazetteer:
    return Gazetteer.load()


def test_the_cell_holding_des_moines_is_named_des_moines(gazetteer):
    grid = US_MIDWEST.grid
    places = cell_places(grid, gazetteer)
    assert len(places) == grid.n_cells
    cell = grid.cell_of(41.6005, -93.6091)
    assert grid.label(cell) == "a8,6"
    assert places[cell].name == "Des Moines, IA" and places[cell].inside and places[cell].text == "Des Moines, IA"
    assert places[grid.cell_of(34.7465, -92.2896)].text == "Little Rock, AR"
    assert places[grid.cell_of(41.8781, -87.6298)].text == "Chicago, IL"
    # Every cell has a name; a cell without a place inside says the place is near, not in it.
    assert all(p.name for p in places)
    assert all(p.text.startswith("near ") for p in places if not p.inside)


def test_a_tokyo_cell_is_named_by_its_ward(gazetteer):
    grid = TOKYO.grid
    places = cell_places(grid, gazetteer)
    chiyoda = places[grid.cell_of(35.6845, 139.7506)]  # the ward's own point
    assert chiyoda.name == "千代田区" and chiyoda.inside
    shinjuku_station = places[grid.cell_of(35.6896, 139.7006)]
    assert shinjuku_station.name.endswith("区")  # a ward, not "Tokyo" nor a station or neighbourhood
    names = {p.name for p in places}
    assert "Tokyo" not in names and "東京都" not in names
    # Municipalities of Tokyo, Kanagawa, Saitama and Chiba, as the gazetteer writes them.
    assert {"世田谷区", "川崎市", "川口市", "市川市"} <= names


def test_a_grid_with_no_place_nearby_gets_empty_names(gazetteer):
    ocean = Grid(-40.0, -140.0, -39.0, -139.0, rows=2, cols=2)
    assert [p.text for p in cell_places(ocean, gazetteer)] == ["", "", "", ""]
    assert map_labels(ocean, gazetteer) == []


def test_labels_are_inside_the_grid_largest_first_and_thin_out_when_zoomed_out(gazetteer):
    grid = US_MIDWEST.grid
    labels = map_labels(grid, gazetteer)
    assert 10 < len(labels) <= 80
    assert all(grid.contains(label["lat"], label["lon"]) for label in labels)
    assert [label["population"] for label in labels] == sorted((label["population"] for label in labels),
                                                                reverse=True)
    level0 = [label for label in labels if label["level"] == 0]
    assert "Chicago, IL" in {label["name"] for label in level0}
    assert len(level0) < len(labels)
    # No two labels of level 0 overlap at the zoom that fits the grid (the level's spacing).
    for i, a in enumerate(level0):
        for b in level0[i + 1:]:
            assert abs(a["lon"] - b["lon"]) >= 0.2 * 20 or abs(a["lat"] - b["lat"]) >= 0.1 * 20


def test_geography_layers_exist_in_static_vendor():
    tokyo, us = geography_layers(TOKYO.grid), geography_layers(US_MIDWEST.grid)
    assert [layer["path"] for layer in tokyo] == ["vendor/world-atlas/land-10m.json"]  # the 1:10m coast
    assert [layer["path"] for layer in us] == ["vendor/world-atlas/countries-50m.json",
                                               "vendor/us-atlas/states-10m.json"]
    assert us[0]["exclude"] == ["840"]  # the US is drawn from its states, which leave the Great Lakes water
    for layer in tokyo + us:
        assert (ROOT / "static" / layer["path"]).is_file()


def test_grid_places_are_computed_once_per_grid():
    assert grid_places(US_MIDWEST.grid) is grid_places(Grid(**US_MIDWEST.grid.to_dict()))


def test_without_the_gazetteer_file_cells_have_empty_names(monkeypatch):
    def missing(cls, path=None):
        raise FileNotFoundError("places.json.gz")

    monkeypatch.setattr(Gazetteer, "load", classmethod(missing))
    grid = Grid(10.0, 10.0, 11.0, 11.0, rows=1, cols=2)
    assert grid_places.__wrapped__(grid).cell_texts() == ("", "")
