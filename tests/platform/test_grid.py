"""anonymizer.platform.grid: cell numbering, point lookup, GeoJSON export and distances (plain pytest)."""

from __future__ import annotations

import itertools
import json
import math

import numpy as np
import pytest

from anonymizer.platform.grid import EARTH_RADIUS_KM, Grid, haversine_km

TOKYO = Grid(35.50, 139.45, 35.85, 139.95, 20, 10)



# --- numbering --------------------------------------------------------------------------------------------------


def test_cell_ids_rows_cols_and_labels_round_trip():
    grid = Grid(0.0, 0.0, 3.0, 4.0, rows=3, cols=4)
    assert grid.n_cells == 12
    seen = set()
    for row in range(3):
        for col in range(4):
            cell = grid.cell_id(row, col)
            assert cell == row * 4 + col
            assert grid.row_col(cell) == (row, col)
            assert grid.label(cell) == f"a{row + 1},{col + 1}"
            seen.add(cell)
    assert seen == set(range(12))
    assert TOKYO.label(TOKYO.cell_id(14, 4)) == "a15,5"  # the paper's a_{15,5}
    for bad in (-1, 12, 1.0, True):
        with pytest.raises(ValueError):
            grid.row_col(bad)
    with pytest.raises(ValueError):
        grid.cell_id(3, 0)
    with pytest.raises(ValueError):
        grid.cell_id(0, -1)


def test_north_west_corner_is_cell_zero_and_south_east_is_the_last():
    assert TOKYO.cell_of(35.85, 139.45) == 0
    assert TOKYO.label(0) == "a1,1"
    assert TOKYO.cell_of(35.849, 139.451) == 0
    assert TOKYO.cell_of(35.501, 139.949) == TOKYO.n_cells - 1
    assert TOKYO.cell_of(35.50, 139.95) == TOKYO.n_cells - 1
    assert TOKYO.label(TOKYO.n_cells - 1) == "a20,10"
    # Row numbers grow southwards, column numbers eastwards.
    south, west, north, east = TOKYO.cell_bounds(0)
    assert north == 35.85 and west == 139.45 and south < north and west < east
    assert TOKYO.cell_bounds(TOKYO.cell_id(1, 0))[2] == south
    assert TOKYO.cell_bounds(TOKYO.cell_id(0, 1))[1] == east


def test_points_on_inner_edges_belong_to_the_cell_to_their_north_east():
    grid = Grid(0.0, 0.0, 2.0, 2.0, rows=2, cols=2)  # edges at exact binary fractions
    # The line lat = 1 is the south edge of row 0; the line lon = 1 the west edge of column 1.
    assert grid.cell_of(1.0, 0.5) == grid.cell_id(0, 0)
    assert grid.cell_of(0.5, 1.0) == grid.cell_id(1, 1)
    assert grid.cell_of(1.0, 1.0) == grid.cell_id(0, 1)
    assert grid.cell_of(0.0, 0.0) == grid.cell_id(1, 0)
    assert grid.cell_of(2.0, 2.0) == grid.cell_id(0, 1)
    assert grid.cell_of(0.0, 2.0) == grid.cell_id(1, 1)


def test_outside_the_box_is_none_and_minus_one():
    outside = [(35.49, 139.5), (35.86, 139.5), (35.6, 139.44), (35.6, 139.96), (math.nan, 139.5), (35.6, math.nan),
               (math.inf, 139.5), (-90.0, -180.0)]
    for lat, lon in outside:
        assert TOKYO.cell_of(lat, lon) is None
    lats, lons = zip(*outside, strict=True)
    assert TOKYO.cells_of(lats, lons).tolist() == [-1] * len(outside)
    assert not TOKYO.contains(35.49, 139.5)


def test_cells_of_agrees_with_cell_of_on_random_points_edges_and_corners():
    rng = np.random.default_rng(20110311)
    for grid in (TOKYO, Grid(-33.95, 18.35, -33.85, 18.55, 7, 13), Grid(-90, -180, 90, 180, 1000, 3)):
        height, width = grid.north - grid.south, grid.east - grid.west
        lats = list(rng.uniform(grid.south - 0.05 * height, grid.north + 0.05 * height, 10_000))
        lons = list(rng.uniform(grid.west - 0.05 * width, grid.east + 0.05 * width, 10_000))
        # Every cell's corners and edge midpoints, and the box's edges and corners.
        for cell in range(grid.n_cells):
            south, west, north, east = grid.cell_bounds(cell)
            for lat in (south, (south + north) / 2, north):
                for lon in (west, (west + east) / 2, east):
                    lats.append(lat)
                    lons.append(lon)
        for lat in (grid.south, grid.north, np.nextafter(grid.south, -91), np.nextafter(grid.north, 91)):
            for lon in (grid.west, grid.east, np.nextafter(grid.west, -181), np.nextafter(grid.east, 181)):
                lats.append(float(lat))
                lons.append(float(lon))
        vectorized = grid.cells_of(np.array(lats), np.array(lons))
        assert vectorized.dtype == np.int64
        scalar = [grid.cell_of(lat, lon) for lat, lon in zip(lats, lons, strict=True)]
        assert vectorized.tolist() == [-1 if cell is None else cell for cell in scalar]
        assert (vectorized >= 0).sum() > 9000  # most points fall inside
        assert (vectorized == -1).any()
        # A cell's south-west corner and centre lie in that cell.
        for cell in range(grid.n_cells):
            south, west, _north, _east = grid.cell_bounds(cell)
            assert grid.cell_of(south, west) == cell
            assert grid.cell_of(*grid.cell_center(cell)) == cell


def test_cells_of_broadcasts_and_takes_scalars():
    assert TOKYO.cells_of(35.85, 139.45).tolist() == 0
    result = TOKYO.cells_of(np.array([[35.6], [35.7]]), np.array([139.5, 139.6, 139.7]))
    assert result.shape == (2, 3)
    assert result[1, 2] == TOKYO.cell_of(35.7, 139.7)


def test_centres_bounds_and_cell_size():
    centres = TOKYO.centers()
    assert centres.shape == (TOKYO.n_cells, 2)
    for cell in (0, 7, 55, TOKYO.n_cells - 1):
        lat, lon = TOKYO.cell_center(cell)
        assert centres[cell].tolist() == pytest.approx([lat, lon], abs=1e-12)
        south, west, north, east = TOKYO.cell_bounds(cell)
        assert south < lat < north and west < lon < east
    assert TOKYO.cell_center(0) == pytest.approx((35.85 - 0.35 / 40, 139.45 + 0.5 / 20))
    height, width = TOKYO.cell_size_km()
    assert height == pytest.approx(0.35 / 20 * 111.195, rel=1e-3)
    assert width == pytest.approx(0.05 * 111.195 * math.cos(math.radians(35.675)), rel=1e-3)
    assert 1.9 < height < 2.0 and 4.4 < width < 4.6


# --- refusals ---------------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("kwargs", "words"),
    [
        ({"south": math.nan}, ["south", "finite"]),
        ({"east": math.inf}, ["east", "finite"]),
        ({"north": "35.85"}, ["north", "number"]),
        ({"south": True}, ["south", "number"]),
        ({"south": -91.0}, ["south", "-91.0", "-90 to 90"]),
        ({"north": 90.5}, ["north", "90.5"]),
        ({"west": -180.5}, ["west", "-180.5", "-180 to 180"]),
        ({"east": 181.0}, ["east", "181.0"]),
        ({"south": 35.85}, ["south", "north", "less than"]),
        ({"south": 36.0}, ["south", "36.0", "north"]),
        ({"west": 139.95}, ["west", "east", "antimeridian"]),
        ({"west": 170.0, "east": -170.0}, ["west", "170.0", "antimeridian"]),
        ({"rows": 0}, ["rows", "0", "between 1 and 1000"]),
        ({"cols": 1001}, ["cols", "1001"]),
        ({"rows": 2.0}, ["rows", "whole number", "2.0"]),
        ({"cols": "10"}, ["cols", "whole number"]),
        ({"rows": True}, ["rows", "whole number"]),
    ],
)
def test_bad_grids_are_refused_with_the_field_and_value(kwargs, words):
    values = {"south": 35.50, "west": 139.45, "north": 35.85, "east": 139.95, "rows": 20, "cols": 10, **kwargs}
    with pytest.raises(ValueError) as caught:
        Grid(**values)
    message = str(caught.value)
    for word in words:
        assert word in message
    assert message.endswith(".")


def test_numbers_are_normalised():
    grid = Grid(35, 139, 36, 140, np.int64(4), 5)
    assert type(grid.south) is float and type(grid.rows) is int
    assert grid == Grid(35.0, 139.0, 36.0, 140.0, 4, 5)
    assert Grid(-90, -180, 90, 180, 1, 1).cell_of(0, 0) == 0


# --- export -----------------------------------------------------------------------------------------------------


def _signed_area(ring: list[list[float]]) -> float:
    return sum(x1 * y2 - x2 * y1 for (x1, y1), (x2, y2) in itertools.pairwise(ring)) / 2


def test_geojson_has_one_closed_counter_clockwise_polygon_per_cell():
    collection = TOKYO.to_geojson()
    json.dumps(collection, allow_nan=False)
    assert collection["type"] == "FeatureCollection"
    features = collection["features"]
    assert len(features) == TOKYO.n_cells
    for cell, feature in enumerate(features):
        assert feature["type"] == "Feature"
        row, col = TOKYO.row_col(cell)
        assert feature["properties"] == {"cell": cell, "label": TOKYO.label(cell), "row": row, "col": col}
        geometry = feature["geometry"]
        assert geometry["type"] == "Polygon" and len(geometry["coordinates"]) == 1
        ring = geometry["coordinates"][0]
        assert len(ring) == 5 and ring[0] == ring[-1]
        assert _signed_area(ring) > 0  # counter-clockwise, as RFC 7946 asks of exterior rings
        for lon, lat in ring:  # [lon, lat] order
            assert TOKYO.west <= lon <= TOKYO.east and TOKYO.south <= lat <= TOKYO.north
        south, west, north, east = TOKYO.cell_bounds(cell)
        assert {tuple(point) for point in ring} == {(west, south), (east, south), (east, north), (west, north)}
        centre_lat, centre_lon = TOKYO.cell_center(cell)
        assert TOKYO.cell_of(centre_lat, centre_lon) == cell


def test_geojson_cells_and_values():
    values = {3: {"posts": 12, "share": 0.5}, 4: {"posts": 1, "cell": 999}, 150: {"posts": 7}}
    collection = TOKYO.to_geojson(values, cells=[4, 3, 3])
    assert [f["properties"]["cell"] for f in collection["features"]] == [3, 4]
    first, second = (f["properties"] for f in collection["features"])
    assert first == {"cell": 3, "label": "a1,4", "row": 0, "col": 3, "posts": 12, "share": 0.5}
    assert second["posts"] == 1 and second["cell"] == 4  # the identifying keys are not overwritten
    everything = TOKYO.to_geojson(values)
    assert everything["features"][150]["properties"]["posts"] == 7
    assert "posts" not in everything["features"][0]["properties"]
    assert TOKYO.to_geojson(cells=[])["features"] == []
    with pytest.raises(ValueError):
        TOKYO.to_geojson(cells=[TOKYO.n_cells])


def test_to_dict_and_from_dict_round_trip_through_json():
    for grid in (TOKYO, Grid(-33.9249, 18.4241, -33.0001, 18.9999, 7, 13), Grid(0.1, 0.2, 0.3, 0.7, 1, 1000)):
        data = json.loads(json.dumps(grid.to_dict()))
        assert data == {"south": grid.south, "west": grid.west, "north": grid.north, "east": grid.east,
                        "rows": grid.rows, "cols": grid.cols}
        again = Grid.from_dict(data)
        assert again == grid
        assert again.cell_bounds(again.n_cells - 1) == grid.cell_bounds(grid.n_cells - 1)
    with pytest.raises(ValueError, match="missing cols"):
        Grid.from_dict({"south": 0, "west": 0, "north": 1, "east": 1, "rows": 2})
    with pytest.raises(ValueError, match="unknown colour"):
        Grid.from_dict({**TOKYO.to_dict(), "colour": "red"})
    with pytest.raises(ValueError, match="south"):
        Grid.from_dict({**TOKYO.to_dict(), "south": 40.0})


# --- distances --------------------------------------------------------------------------------------------------


def test_haversine_known_distances():
    tokyo_station, shinjuku_station = (35.681236, 139.767125), (35.690921, 139.700258)
    assert haversine_km(*tokyo_station, *shinjuku_station) == pytest.approx(6.1, abs=0.1)
    kyoto_city_hall, tokyo_metropolitan_government = (35.011636, 135.768029), (35.689487, 139.691706)
    assert haversine_km(*kyoto_city_hall, *tokyo_metropolitan_government) == pytest.approx(364, abs=3)
    assert haversine_km(0.0, 0.0, 0.0, 180.0) == pytest.approx(math.pi * EARTH_RADIUS_KM)
    assert haversine_km(90.0, 0.0, -90.0, 0.0) == pytest.approx(math.pi * EARTH_RADIUS_KM)
    assert haversine_km(0.0, 0.0, 1.0, 0.0) == pytest.approx(111.195, abs=0.001)
    assert haversine_km(35.0, 139.0, 35.0, 139.0) == 0.0
    assert isinstance(haversine_km(*tokyo_station, *shinjuku_station), float)


def test_haversine_is_vectorized_and_symmetric():
    rng = np.random.default_rng(7)
    lat1, lat2 = rng.uniform(-90, 90, (2, 500))
    lon1, lon2 = rng.uniform(-180, 180, (2, 500))
    distances = haversine_km(lat1, lon1, lat2, lon2)
    assert distances.shape == (500,)
    assert np.allclose(distances, haversine_km(lat2, lon2, lat1, lon1))
    assert distances[17] == pytest.approx(haversine_km(lat1[17], lon1[17], lat2[17], lon2[17]))
    assert ((distances >= 0) & (distances <= math.pi * EARTH_RADIUS_KM + 1e-9)).all()
    # One point against all cell centres: the nearest is the cell holding it.
    centres = TOKYO.centers()
    nearest = int(np.argmin(haversine_km(35.681236, 139.767125, centres[:, 0], centres[:, 1])))
    assert nearest == TOKYO.cell_of(35.681236, 139.767125)
