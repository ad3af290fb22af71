"""TopoJSON → shapes clipped to a box, in pure Python + numpy (no Django, no GIS library): what the downloadable
map report draws under the grid, from the same vendored files the inspect page draws (static/vendor/world-atlas,
us-atlas; the layers geography.geography_layers chooses).

A topology's arcs are delta-encoded integers under a transform; a polygon's rings are lists of arc indices (~i
is arc i reversed). Land is returned as polygons clipped to the box (Sutherland–Hodgman, as static/js/geography.js
does), coasts and borders as the arcs' runs inside the box.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

import numpy as np

Box = tuple[float, float, float, float]  # south, west, north, east
Ring = list[tuple[float, float]]  # (lon, lat) points


@dataclass(frozen=True)
class Shapes:
    """What to draw in a box: filled `polygons` (each a list of rings, the first the outer one) and `lines`
    (coast and borders), all (lon, lat), rounded to `digits` decimals."""

    polygons: list[list[Ring]]
    lines: list[Ring]

    def geojson(self) -> dict:
        features = [{"type": "Feature", "properties": {"kind": "land"},
                     "geometry": {"type": "Polygon", "coordinates": [[list(p) for p in ring] for ring in polygon]}}
                    for polygon in self.polygons]
        features += [{"type": "Feature", "properties": {"kind": "line"},
                      "geometry": {"type": "LineString", "coordinates": [list(p) for p in line]}}
                     for line in self.lines]
        return {"type": "FeatureCollection", "features": features}


@lru_cache(maxsize=4)
def _topology(path: Path) -> tuple[list[np.ndarray], dict]:
    """The decoded arcs (each an (n, 2) array of lon, lat) and the objects of a TopoJSON file, once per process."""
    document = json.loads(path.read_text())
    transform = document.get("transform")
    arcs = []
    for arc in document["arcs"]:
        points = np.asarray(arc, dtype=np.float64)[:, :2]
        if transform:
            points = np.cumsum(points, axis=0) * transform["scale"] + transform["translate"]
        arcs.append(points)
    return arcs, document["objects"]


def _arc(arcs: list[np.ndarray], index: int) -> np.ndarray:
    return arcs[index] if index >= 0 else arcs[~index][::-1]


def _ring(arcs: list[np.ndarray], indices: list[int]) -> np.ndarray:
    parts = [_arc(arcs, i) for i in indices]
    return np.concatenate([parts[0], *[p[1:] for p in parts[1:]]]) if parts else np.zeros((0, 2))


def _polygons(geometry: dict) -> list[list[list[int]]]:
    if geometry.get("type") == "Polygon":
        return [geometry["arcs"]]
    if geometry.get("type") == "MultiPolygon":
        return list(geometry["arcs"])
    return []


def _overlaps(points: np.ndarray, box: Box) -> bool:
    south, west, north, east = box
    return bool(len(points) and points[:, 0].min() <= east and points[:, 0].max() >= west
                and points[:, 1].min() <= north and points[:, 1].max() >= south)


def clip_ring(ring: np.ndarray, box: Box) -> np.ndarray:
    """Sutherland–Hodgman: a closed ring clipped to the box, one edge after the other."""
    south, west, north, east = box
    out = [tuple(p) for p in ring]
    for axis, value, keep_above in ((0, west, True), (0, east, False), (1, south, True), (1, north, False)):
        points, out = out, []
        if not points:
            break

        def inside(p, axis=axis, value=value, keep_above=keep_above) -> bool:
            return p[axis] >= value if keep_above else p[axis] <= value

        def cut(a, b, axis=axis, value=value):
            t = (value - a[axis]) / (b[axis] - a[axis])
            return (value, a[1] + t * (b[1] - a[1])) if axis == 0 else (a[0] + t * (b[0] - a[0]), value)

        for i, current in enumerate(points):
            previous = points[i - 1]
            if inside(current):
                if not inside(previous):
                    out.append(cut(previous, current))
                out.append(current)
            elif inside(previous):
                out.append(cut(previous, current))
    return np.asarray(out, dtype=np.float64).reshape(-1, 2)


def clip_line(line: np.ndarray, box: Box) -> list[np.ndarray]:
    """The runs of a line inside the box, each with the first point outside at either end (they reach the
    box's edge; a renderer clips the rest)."""
    south, west, north, east = box
    inside = (line[:, 0] >= west) & (line[:, 0] <= east) & (line[:, 1] >= south) & (line[:, 1] <= north)
    keep = inside.copy()
    keep[1:] |= inside[:-1]
    keep[:-1] |= inside[1:]
    runs, start = [], None
    for i, k in enumerate([*keep.tolist(), False]):
        if k and start is None:
            start = i
        elif not k and start is not None:
            if i - start > 1:
                runs.append(line[start:i])
            start = None
    return runs


def _simplify(points: np.ndarray, digits: int) -> Ring:
    rounded = np.round(points, digits)
    out: Ring = []
    for lon, lat in rounded.tolist():
        if not out or out[-1] != (lon, lat):
            out.append((lon, lat))
    return out


def shapes_in_box(path: Path, layers: list[dict], box: Box, digits: int = 3) -> Shapes:
    """Land polygons and coast/border lines of the given layers (geography.geography_layers: `object`,
    `exclude`; `path` is relative to ``path``, the static files' root) clipped to the box."""
    polygons: list[list[Ring]] = []
    lines: list[Ring] = []
    for layer in layers:
        arcs, objects = _topology(path / layer["path"])
        geometries = [g for g in objects[layer["object"]].get("geometries", [])
                      if str(g.get("id", "")) not in set(layer.get("exclude", []))]
        used: set[int] = set()
        for geometry in geometries:
            for polygon in _polygons(geometry):
                rings = []
                for k, indices in enumerate(polygon):
                    used.update(i if i >= 0 else ~i for i in indices)
                    ring = _ring(arcs, indices)
                    if not _overlaps(ring, box) or (k and not rings):  # no hole without its outer ring
                        continue
                    clipped = _simplify(clip_ring(ring, box), digits)
                    if len(clipped) >= 3:
                        rings.append(clipped)
                if rings:
                    polygons.append(rings)
        for index in sorted(used):
            if _overlaps(arcs[index], box):
                lines.extend(run for run in (_simplify(r, digits) for r in clip_line(arcs[index], box))
                             if len(run) > 1)
    return Shapes(polygons, lines)


@lru_cache(maxsize=16)
def _cached(root: Path, layers: str, box: Box, digits: int) -> Shapes:
    return shapes_in_box(root, json.loads(layers), box, digits)


def cached_shapes(root: Path, layers: list[dict], box: Box, digits: int) -> Shapes:
    """shapes_in_box, computed once per process for each set of layers and box (a grid's map)."""
    return _cached(root, json.dumps(layers, sort_keys=True), box, digits)
