"""A bounding box cut into a grid of cells, the label space of the location classifier (no Django here).

Cell edges are computed once and shared by cell_of, cells_of, cell_bounds and to_geojson, so a point on an
edge reported by cell_bounds always falls in the cell that reports it, in the scalar and vectorized paths alike.
"""

from __future__ import annotations

import bisect
import math
import numbers
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from functools import cached_property

import numpy as np

EARTH_RADIUS_KM = 6371.0088  # IUGG mean Earth radius
MAX_DIVISIONS = 1000
_FIELDS = ("south", "west", "north", "east", "rows", "cols")


def haversine_km(lat1, lon1, lat2, lon2):
    """Great-circle distance in km between points in decimal degrees; scalars give a float, arrays broadcast."""
    phi1, phi2 = np.radians(lat1), np.radians(lat2)
    dphi = phi2 - phi1
    dlmb = np.radians(np.subtract(lon2, lon1))
    a = np.sin(dphi / 2) ** 2 + np.cos(phi1) * np.cos(phi2) * np.sin(dlmb / 2) ** 2
    distance = 2 * EARTH_RADIUS_KM * np.arcsin(np.sqrt(np.clip(a, 0.0, 1.0)))
    return float(distance) if np.ndim(distance) == 0 else distance


@dataclass(frozen=True)
class Grid:
    """A bounding box cut into rows x cols cells. Row 0 is the northernmost row, column 0 the westernmost (as in
    the paper, whose areas a_{row,col} count from the north-west). Cell id = row * cols + col.

    A cell holds the points on its south and west edges and inside it; points on the north or east edge of the
    whole box belong to the last row or column, so the closed box is covered.
    """

    south: float
    west: float
    north: float
    east: float
    rows: int = 20
    cols: int = 10

    def __post_init__(self) -> None:
        for name in ("south", "west", "north", "east"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, numbers.Real):
                raise ValueError(f"The grid's {name} edge must be a number of decimal degrees, not {value!r}.")
            value = float(value)
            if not math.isfinite(value):
                raise ValueError(f"The grid's {name} edge must be a finite number, not {value!r}.")
            object.__setattr__(self, name, value)  # plain floats, so to_dict gives JSON numbers
        for name in ("south", "north"):
            value = getattr(self, name)
            if not -90.0 <= value <= 90.0:
                raise ValueError(f"The grid's {name} edge is latitude {value!r}, outside -90 to 90 degrees.")
        for name in ("west", "east"):
            value = getattr(self, name)
            if not -180.0 <= value <= 180.0:
                raise ValueError(f"The grid's {name} edge is longitude {value!r}, outside -180 to 180 degrees.")
        if self.south >= self.north:
            raise ValueError(f"The grid's south edge ({self.south!r}) must be less than its north edge "
                             f"({self.north!r}).")
        if self.west >= self.east:
            raise ValueError(f"The grid's west edge ({self.west!r}) must be less than its east edge ({self.east!r}); "
                             "boxes that cross the antimeridian (180 degrees) are not supported, split such an area "
                             "into two grids.")
        for name in ("rows", "cols"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, numbers.Integral):
                raise ValueError(f"The grid's {name} must be a whole number, not {value!r}.")
            value = int(value)
            if not 1 <= value <= MAX_DIVISIONS:
                raise ValueError(f"The grid's {name} is {value}; it must be between 1 and {MAX_DIVISIONS}.")
            object.__setattr__(self, name, value)

    # --- cells ------------------------------------------------------------------------------------------------

    @property
    def n_cells(self) -> int:
        """Number of cells, rows * cols."""
        return self.rows * self.cols

    def cell_id(self, row: int, col: int) -> int:
        """The id of the cell in `row` (0 = north) and `col` (0 = west)."""
        if not (0 <= row < self.rows and 0 <= col < self.cols):
            raise ValueError(f"Cell ({row}, {col}) is outside the grid of {self.rows} rows and {self.cols} columns.")
        return int(row) * self.cols + int(col)

    def row_col(self, cell: int) -> tuple[int, int]:
        """(row, col) of a cell id."""
        self._check_cell(cell)
        row, col = divmod(int(cell), self.cols)
        return row, col

    def label(self, cell: int) -> str:
        """The paper's 1-based name of a cell: "a1,1" is the north-west corner."""
        row, col = self.row_col(cell)
        return f"a{row + 1},{col + 1}"

    def _check_cell(self, cell: int) -> None:
        if isinstance(cell, bool) or not isinstance(cell, numbers.Integral) or not 0 <= cell < self.n_cells:
            raise ValueError(f"Cell {cell!r} is not a cell id of this grid (0 to {self.n_cells - 1}).")

    # Edges from south to north and from west to east; the last edge is the box edge itself, exactly.
    @cached_property
    def _lat_edges(self) -> tuple[float, ...]:
        span = self.north - self.south
        return (*(min(self.south + span * i / self.rows, self.north) for i in range(self.rows)), self.north)

    @cached_property
    def _lon_edges(self) -> tuple[float, ...]:
        span = self.east - self.west
        return (*(min(self.west + span * i / self.cols, self.east) for i in range(self.cols)), self.east)

    @cached_property
    def _lat_edges_array(self) -> np.ndarray:
        return np.array(self._lat_edges, dtype=np.float64)

    @cached_property
    def _lon_edges_array(self) -> np.ndarray:
        return np.array(self._lon_edges, dtype=np.float64)

    def contains(self, lat: float, lon: float) -> bool:
        """Whether the point lies in the closed box."""
        return self.south <= lat <= self.north and self.west <= lon <= self.east

    def cell_of(self, lat: float, lon: float) -> int | None:
        """The cell holding the point, or None outside the box (or for NaN)."""
        if not self.contains(lat, lon):
            return None
        band = min(bisect.bisect_right(self._lat_edges, lat) - 1, self.rows - 1)  # counted from the south
        col = min(bisect.bisect_right(self._lon_edges, lon) - 1, self.cols - 1)
        return (self.rows - 1 - band) * self.cols + col

    def cells_of(self, lats, lons) -> np.ndarray:
        """Vectorized cell_of: an int64 array of cell ids (broadcast shape), -1 outside the box."""
        lats = np.asarray(lats, dtype=np.float64)
        lons = np.asarray(lons, dtype=np.float64)
        lats, lons = np.broadcast_arrays(lats, lons)
        inside = (lats >= self.south) & (lats <= self.north) & (lons >= self.west) & (lons <= self.east)
        band = np.minimum(np.searchsorted(self._lat_edges_array, lats, side="right") - 1, self.rows - 1)
        col = np.minimum(np.searchsorted(self._lon_edges_array, lons, side="right") - 1, self.cols - 1)
        cells = (self.rows - 1 - band).astype(np.int64) * self.cols + col
        return np.where(inside, cells, -1).astype(np.int64)

    def cell_bounds(self, cell: int) -> tuple[float, float, float, float]:
        """(south, west, north, east) of a cell."""
        row, col = self.row_col(cell)
        band = self.rows - 1 - row
        return self._lat_edges[band], self._lon_edges[col], self._lat_edges[band + 1], self._lon_edges[col + 1]

    def cell_center(self, cell: int) -> tuple[float, float]:
        """(lat, lon) of the middle of a cell."""
        south, west, north, east = self.cell_bounds(cell)
        return (south + north) / 2, (west + east) / 2

    def centers(self) -> np.ndarray:
        """Cell centres as an array of shape (n_cells, 2), columns lat and lon, in cell id order."""
        lat = self._lat_edges_array
        lon = self._lon_edges_array
        lat_mid = ((lat[:-1] + lat[1:]) / 2)[::-1]  # rows count from the north
        lon_mid = (lon[:-1] + lon[1:]) / 2
        return np.column_stack([np.repeat(lat_mid, self.cols), np.tile(lon_mid, self.rows)])

    def cell_size_km(self) -> tuple[float, float]:
        """(height_km, width_km) of a cell, the width measured along the box's middle latitude."""
        middle = math.radians((self.south + self.north) / 2)
        height = EARTH_RADIUS_KM * math.radians(self.north - self.south) / self.rows
        width = EARTH_RADIUS_KM * math.cos(middle) * math.radians(self.east - self.west) / self.cols
        return height, width

    # --- export -----------------------------------------------------------------------------------------------

    def to_geojson(self, values: Mapping[int, dict] | None = None, cells: Iterable[int] | None = None) -> dict:
        """A GeoJSON FeatureCollection with one Polygon per cell (all, or those in `cells`, in id order).

        Each feature's properties are cell, label, row and col, plus values.get(cell, {}); the four identifying
        keys are kept if `values` repeats them. Rings are closed and counter-clockwise, in [lon, lat] order.
        """
        values = values or {}
        if cells is None:
            selected = range(self.n_cells)
        else:
            selected = sorted(set(cells))
            for cell in selected:
                self._check_cell(cell)
        features = []
        for cell in selected:
            cell = int(cell)
            south, west, north, east = self.cell_bounds(cell)
            row, col = self.row_col(cell)
            properties = {"cell": cell, "label": self.label(cell), "row": row, "col": col}
            properties.update((k, v) for k, v in values.get(cell, {}).items() if k not in properties)
            ring = [[west, south], [east, south], [east, north], [west, north], [west, south]]
            features.append({"type": "Feature", "id": cell, "properties": properties,
                             "geometry": {"type": "Polygon", "coordinates": [ring]}})
        return {"type": "FeatureCollection", "bbox": [self.west, self.south, self.east, self.north],
                "features": features}

    def to_dict(self) -> dict:
        """JSON-friendly metadata; Grid.from_dict(grid.to_dict()) == grid."""
        return {name: getattr(self, name) for name in _FIELDS}

    @classmethod
    def from_dict(cls, data: Mapping) -> Grid:
        """The grid described by to_dict() output; refuses missing or unknown keys."""
        missing = [name for name in _FIELDS if name not in data]
        unknown = sorted(str(key) for key in data if key not in _FIELDS)
        if missing or unknown:
            problems = []
            if missing:
                problems.append("missing " + ", ".join(missing))
            if unknown:
                problems.append("unknown " + ", ".join(unknown))
            raise ValueError(f"Grid metadata must have the keys {', '.join(_FIELDS)} ({'; '.join(problems)}).")
        return cls(**{name: data[name] for name in _FIELDS})
