"""What a map of a grid shows besides the cells (no Django here): the name of each cell's nearest sizable place,
the place labels drawn on the map, and which vendored geography files (TopoJSON under static/vendor/) lie under
the grid.

Everything is computed from the grid and the offline gazetteer, once per grid and process (`grid_places`).
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass
from functools import cached_property, lru_cache

import numpy as np
from sklearn.neighbors import BallTree

from anonymizer.platform.grid import EARTH_RADIUS_KM, Grid
from anonymizer.recognize.gazetteer import Gazetteer, Place
from anonymizer.texts import active_language, gettext

# Kinds that can name a cell, most preferred first: where the gazetteer has municipalities (Japan: wards,
# cities, towns, as the official name "新宿区", "川崎市中原区"), they name the cells; elsewhere the cities do.
NAMING_KINDS = ("municipality", "city")
# A cell is named by the most populous place inside it; a cell with none inside by the nearest place of at
# least this population (else the nearest of any), so an empty cell is not named after a hamlet.
SIZABLE_POPULATION = 10_000
# How far outside the grid a place may lie and still name an edge cell or be considered (a fraction of the
# grid's span on each side).
MARGIN = 0.5
MAX_LABELS = 80
LABEL_LEVELS = 5  # zoom steps above the zoom that fits the grid, each doubling the label density
# At level 0 two labels are at least a fifth of the grid's width or a tenth of its height apart (labels are
# wider than tall); each level halves that.
LABEL_SPACING = (0.2, 0.1)

# Vendored TopoJSON, paths under the static files (the web layer turns them into URLs).
WORLD_COARSE = "vendor/world-atlas/countries-50m.json"  # Natural Earth 1:50m countries + land
WORLD_FINE = "vendor/world-atlas/land-10m.json"  # Natural Earth 1:10m land: city-scale grids (Tokyo)
US_STATES = "vendor/us-atlas/states-10m.json"  # US Census 1:10m states + nation
US_COUNTRY_ID = "840"  # ISO 3166 numeric id of the US in world-atlas: drawn from us-atlas's states instead
US_BOX = (18.0, -180.0, 72.0, -65.0)  # south, west, north, east: the states (Alaska and Hawaii too)
FINE_SPAN_DEGREES = 5.0  # a grid at most this wide and tall gets the 1:10m coastline


@dataclass(frozen=True)
class CellPlace:
    """The place a cell is named by; `inside` is False when the cell holds no candidate and the nearest one
    outside names it, `km` is its distance from the cell's centre."""

    name: str
    inside: bool
    km: float

    @property
    def text(self) -> str:
        """"Des Moines, IA", or "near Duluth, MN" for a place outside the cell (in the active language)."""
        return self.name if self.inside or not self.name else gettext("near %(place)s") % {"place": self.name}


@dataclass(frozen=True)
class GridPlaces:
    """Per cell its place, and the labels of a map of the grid (each with the first zoom level, counted from
    the zoom that fits the grid, at which it is drawn)."""

    cells: tuple[CellPlace, ...]
    labels: tuple[dict, ...]

    @cached_property
    def texts(self) -> tuple[str, ...]:
        """Each cell's place as shown: "Des Moines, IA", "near Duluth, MN"."""
        return tuple(cell.text for cell in self.cells)

    def cell_texts(self) -> tuple[str, ...]:
        return self.texts


# A name in Japanese writing: kana or kanji.
_JAPANESE = re.compile(r"[\u3041-\u30ff\u3400-\u4dbf\u4e00-\u9fff]")


def _latin(name: str) -> bool:
    return not _JAPANESE.search(name) and any(c.isalpha() for c in name) and all(
        not c.isalpha() or unicodedata.name(c, "").startswith("LATIN") for c in name)


def local_name(place: Place, gazetteer: Gazetteer, language: str | None = None) -> str:
    """A place's name in ``language`` where the gazetteer has one: Japanese (kana, kanji) on a Japanese page,
    romanized on any other ("渋谷区" / "Shibuya", "東京" / "Tokyo"); else its name as the gazetteer has it (most of
    Japan's municipalities have no romanized name there, no US place a Japanese one). The names are the
    gazetteer's own (its "names": the name and its aliases), never made up. Without a language, the name."""
    if language is None:
        return place.name
    wanted = _JAPANESE.search if language == "ja" else _latin
    if wanted(place.name):
        return place.name
    return next((name for name in gazetteer.names_of(place) if wanted(name)), place.name)


def place_name(place: Place, gazetteer: Gazetteer, language: str | None = None) -> str:
    """How a map names a place: a US city with its state's postal code ("Des Moines, IA"), any other place by
    its name in ``language`` where the gazetteer has one ("新宿区" / "Shinjuku", "川崎市中原区")."""
    if place.country == "US" and place.admin1:
        codes = gazetteer.abbreviations_of(place.admin1)
        if codes:
            return f"{local_name(place, gazetteer, language)}, {codes[0]}"
    return local_name(place, gazetteer, language)


def _box(grid: Grid, margin: float) -> tuple[float, float, float, float]:
    dlat, dlon = (grid.north - grid.south) * margin, (grid.east - grid.west) * margin
    return (max(grid.south - dlat, -90.0), max(grid.west - dlon, -180.0), min(grid.north + dlat, 90.0),
            min(grid.east + dlon, 180.0))


def naming_candidates(grid: Grid, gazetteer: Gazetteer) -> list[Place]:
    """The places that may name the grid's cells: in the grid or near it, of the most preferred kind present,
    most populous first."""
    near = gazetteer.in_box(*_box(grid, MARGIN))
    for kind in NAMING_KINDS:
        found = [p for p in near if p.kind == kind]
        if found:
            return found
    return []


def cell_places(grid: Grid, gazetteer: Gazetteer | None = None, language: str | None = None) -> list[CellPlace]:
    """For every cell (in id order) the most populous candidate place inside it (ties: the nearest to the
    cell's centre), or for a cell with none the nearest sizable candidate (population >= SIZABLE_POPULATION,
    or any when there is none). Vectorized: one pass over the places, one nearest-neighbour query for the rest.
    A grid with no candidate place at all gets an empty name per cell."""
    gazetteer = gazetteer or Gazetteer.load()
    places = naming_candidates(grid, gazetteer)
    centers = grid.centers()
    if not places:
        return [CellPlace("", False, 0.0)] * grid.n_cells
    lat = np.array([p.lat for p in places])
    lon = np.array([p.lon for p in places])
    population = np.array([p.population for p in places], dtype=np.int64)
    points = np.radians(np.column_stack([lat, lon]))
    # Inside: per cell the place with the largest population, then the smallest distance to the centre.
    cell = grid.cells_of(lat, lon)
    inside = np.flatnonzero(cell >= 0)
    chosen = np.full(grid.n_cells, -1, dtype=np.int64)
    if inside.size:
        centre = centers[cell[inside]]
        distance = _km(centre[:, 0], centre[:, 1], lat[inside], lon[inside])
        order = np.lexsort((distance, -population[inside], cell[inside]))  # by cell, then best first
        ranked = inside[order]
        first = np.r_[True, cell[ranked][1:] != cell[ranked][:-1]]
        chosen[cell[ranked[first]]] = ranked[first]
    # Outside: the nearest sizable place to the centre of each cell still unnamed.
    empty = np.flatnonzero(chosen < 0)
    if empty.size:
        sizable = np.flatnonzero(population >= SIZABLE_POPULATION)
        pool = sizable if sizable.size else np.arange(len(places))
        tree = BallTree(points[pool], metric="haversine")
        _, nearest = tree.query(np.radians(centers[empty]), k=1)
        chosen[empty] = pool[nearest[:, 0]]
    km = _km(centers[:, 0], centers[:, 1], lat[chosen], lon[chosen])
    names: dict[int, str] = {}
    out = []
    for c, (i, d) in enumerate(zip(chosen.tolist(), km.tolist(), strict=True)):
        if i not in names:
            names[i] = place_name(places[i], gazetteer, language)
        out.append(CellPlace(names[i], bool(cell[i] == c), round(d, 1)))
    return out


def _km(lat1, lon1, lat2, lon2) -> np.ndarray:
    phi1, phi2 = np.radians(lat1), np.radians(lat2)
    a = (np.sin((phi2 - phi1) / 2) ** 2
         + np.cos(phi1) * np.cos(phi2) * np.sin(np.radians(np.subtract(lon2, lon1)) / 2) ** 2)
    return 2 * EARTH_RADIUS_KM * np.arcsin(np.sqrt(np.clip(a, 0.0, 1.0)))


def map_labels(grid: Grid, gazetteer: Gazetteer | None = None, limit: int = MAX_LABELS,
               language: str | None = None) -> list[dict]:
    """Labels of the candidate places inside the grid, most populous first, each with the zoom `level` (0 =
    the zoom that fits the grid) from which it is drawn: greedily, a place is drawn at the first level where
    no more populous label is closer than the level's spacing, so labels thin out as the map zooms out."""
    gazetteer = gazetteer or Gazetteer.load()
    places = [p for p in naming_candidates(grid, gazetteer) if grid.contains(p.lat, p.lon)][:limit * 5]
    if not places:
        return []
    # Distances in units of the level-0 spacing, longitudes shrunk by the grid's middle latitude (Mercator-ish).
    x = np.array([p.lon for p in places]) / ((grid.east - grid.west) * LABEL_SPACING[0])
    y = np.array([p.lat for p in places]) / ((grid.north - grid.south) * LABEL_SPACING[1])
    level = np.full(len(places), LABEL_LEVELS, dtype=np.int64)
    for lv in range(LABEL_LEVELS):
        scale = 2.0 ** lv
        placed: list[int] = [i for i in range(len(places)) if level[i] <= lv]
        for i in range(len(places)):
            if level[i] <= lv:
                continue
            if placed:
                j = np.array(placed)
                if np.any((np.abs(x[j] - x[i]) * scale < 1) & (np.abs(y[j] - y[i]) * scale < 1)):
                    continue
            level[i] = lv
            placed.append(i)
    shown = [i for i in np.argsort(level, kind="stable").tolist() if level[i] < LABEL_LEVELS][:limit]
    return [{"name": place_name(places[i], gazetteer, language), "lat": places[i].lat, "lon": places[i].lon,
             "population": places[i].population, "level": int(level[i])} for i in sorted(shown)]


def geography_layers(grid: Grid) -> list[dict]:
    """The vendored TopoJSON files to draw under the grid, bottom first: `path` (under the static files),
    `object` (the topology's object), `borders` (draw the lines between its features) and `exclude` (feature
    ids left out). Land and coast from Natural Earth (1:10m for a city-scale grid), US states from us-atlas.
    Japan has no prefecture outlines here (no npm package with them was found; see static/vendor/README.md)."""
    south, west, north, east = grid.south, grid.west, grid.north, grid.east
    in_us = south <= US_BOX[2] and north >= US_BOX[0] and west <= US_BOX[3] and east >= US_BOX[1]
    if max(north - south, east - west) <= FINE_SPAN_DEGREES:
        layers = [{"path": WORLD_FINE, "object": "land", "borders": False, "exclude": []}]
    else:
        layers = [{"path": WORLD_COARSE, "object": "countries", "borders": True,
                   "exclude": [US_COUNTRY_ID] if in_us else []}]
    if in_us:
        layers.append({"path": US_STATES, "object": "states", "borders": True, "exclude": []})
    return layers


def grid_places(grid: Grid, language: str | None = None) -> GridPlaces:
    """Cell names and map labels of a grid with the shipped gazetteer, in ``language`` (by default the active one:
    anonymizer.texts), computed once per grid, language and process; without the gazetteer file, empty names and
    no labels (the maps still draw). Names shown only: what is released is the user's text, never these."""
    return _grid_places(grid, _shown_language(language))


def _shown_language(language: str | None) -> str | None:
    """Which of a place's names to show: "ja" (Japanese ones), "en" (romanized ones) or None (the gazetteer's
    name: outside the web app)."""
    language = language or active_language()
    return None if language is None else "ja" if language == "ja" else "en"


@lru_cache(maxsize=64)
def _grid_places(grid: Grid, language: str | None) -> GridPlaces:
    try:
        gazetteer = Gazetteer.load()
    except OSError:
        return GridPlaces((CellPlace("", False, 0.0),) * grid.n_cells, ())
    return GridPlaces(tuple(cell_places(grid, gazetteer, language)),
                      tuple(map_labels(grid, gazetteer, language=language)))


# Uncached, as an lru_cache'd function offers it (tests compute a grid's places afresh with it).
grid_places.__wrapped__ = lambda grid, language=None: _grid_places.__wrapped__(  # type: ignore[attr-defined]
    grid, _shown_language(language))


def map_description(grid: Grid) -> dict:
    """What a client needs to draw a grid's geography: `cell_places` (one name per cell, in id order),
    `place_labels` and `geography` (the layers, paths under the static files)."""
    places = grid_places(grid)
    return {"cell_places": list(places.cell_texts()), "place_labels": [dict(label) for label in places.labels],
            "geography": geography_layers(grid)}
