"""The gazetteer scorer: where the place mentions of a post put it, as a probability per grid cell (no Django).

A classifier trained on a few thousand posts knows few places; a reader or a geocoder knows them all. This
scorer is the defender's stand-in for them: every place unit of a post (a place mention, a hashtag, an @mention
or a URL that names a place) is resolved with the gazetteer, or else with what the training corpus taught about
that unit, into p(cell | mention); mentions combine as naive Bayes over the grid,

    p(cell | mentions) ∝ prior(cell) · Π p(cell | mention) / prior(cell),

which is a linear model with a softmax link over the units present: intercept log prior, one weight row per
mention. So it is one more ``LinearScorer`` for the exact search, deleted units and all.

Resolution, by unit kind (the norm tells the kind, see ``units``): "#…", "@…" and "url:…" are searched for
names inside them; "地:…" (a Japanese place unit) is resolved whole, else by the most specific name inside it;
an English norm with a capital is a place unit ("Des Moines", "NE"). Lower-case words are the classifier's.
A point place spreads over the cells near it (wider for a populous city: "Tokyo" covers much of its grid); an
area (state, prefecture) over its member cities' cells, weighted by the prior; an ambiguous name is a
population-weighted mixture, and the share of it outside the grid falls back to the prior.
"""

from __future__ import annotations

import re
import threading
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from anonymizer.location.classifier import BIGRAM_SEPARATOR, JA_PART_SEPARATOR, UNIT_JOINER
from anonymizer.location.deidentify import LinearScorer
from anonymizer.location.hashtag_words import HashtagWords
from anonymizer.location.tokenize import COORDINATES_PREFIX
from anonymizer.location.tokens import Token
from anonymizer.location.units import JA_PLACE_PREFIX, is_common_word
from anonymizer.platform.grid import Grid, haversine_km
from anonymizer.recognize.gazetteer import Gazetteer, Place, place_weights

PLACE_SCORER = "places"
_FLOOR = 1e-6
# Above this many unresolvable features remembered, the negative cache starts over (positives stay).
_NEGATIVE_CACHE = 200_000


def place_spread_km(place: Place) -> float:
    """How far a point place's mentions reach: a neighbourhood is a point, Tokyo is most of a city grid, a
    Japanese ward a few km across whatever its population."""
    spread = max(0.7, float(np.sqrt(max(place.population, 0))) / 300.0)
    # A municipality of a million or more is a whole city (Yokohama, Kawasaki), not a ward.
    return min(spread, 0.8) if place.kind == "municipality" and place.population < 1_000_000 else spread


# An address split after each suffix: 横浜市|港北区|綱島駅, 品川区|上大崎3丁目, 東京都|世田谷区.
_ADDRESS_PARTS = re.compile(r".+?(?:都|道|府|県|市|区|町|村|郡|駅|丁目|$)")
# Parts that add nothing a reader could place (an exit of a station that was named already).
_GENERIC_PARTS = frozenset("東口 西口 南口 北口 中央口 改札 前 駅".split())


@dataclass(frozen=True)
class Resolution:
    """What one unit resolved to: its places, and its distribution over the grid's cells."""

    places: tuple[Place, ...]
    learned: bool
    distribution: np.ndarray


class PlaceResolver:
    """Turns a unit's norm into p(cell | unit), from the gazetteer, else from what the corpus taught."""

    def __init__(self, grid: Grid, prior: np.ndarray, learned: Mapping[str, Mapping[int, int]] | None = None,
                 gazetteer: Gazetteer | None = None) -> None:
        self.grid, self.prior = grid, np.asarray(prior, dtype=np.float64)
        self.learned = dict(learned or {})
        self.gazetteer = gazetteer or Gazetteer.load()
        bounds = np.array([grid.cell_bounds(c) for c in range(grid.n_cells)])
        self._south, self._west, self._north, self._east = bounds.T
        self._area_cells: dict[str, np.ndarray] = {}
        self._hashtag_words = HashtagWords(lambda piece: bool(self.gazetteer.resolve(piece)))

    # -- which places a unit names -----------------------------------------------------------------------
    def places_of(self, norm: str) -> tuple[Place, ...]:
        """The gazetteer places a unit names (the most specific match for a compound), most likely first."""
        if BIGRAM_SEPARATOR in norm or not norm:
            return ()
        if norm.startswith(COORDINATES_PREFIX):  # "geo:35.7256,139.5887": a point, the post's own place
            lat, _, lon = norm[len(COORDINATES_PREFIX):].partition(",")
            return (Place(norm, norm, float(lat), float(lon), "coordinates", 0, "", ""),)
        if is_gauge(norm):
            return (self._gauge(norm),)
        if norm[0] == "#":
            return self._hashtag(norm[1:])
        if norm[0] == "@" or norm.startswith("url:"):
            body = norm[4:] if norm.startswith("url:") else norm[1:]
            if norm.startswith("url:"):
                body = body.rsplit(".", 1)[0]  # "desmoinesregister.com" -> no TLD
            return self._inside(body.replace(UNIT_JOINER, ""))
        if norm.startswith(JA_PLACE_PREFIX):
            name = _ja_name(norm)
            if name.endswith(_ROADS_NAMED_FOR_WHERE_THEY_GO):
                return ()  # 川越街道 runs from Tokyo to Kawagoe: a road across the grid, not the city
            return self._address(name)[0]
        if norm[0].isupper():
            if len(norm) == 2 and norm.isupper():
                return tuple(self.gazetteer.resolve_abbreviation(norm))
            if 3 <= len(norm) <= 4 and norm.isupper():  # an airport code the tokenizer marked ("KDSM")
                codes = tuple(self.gazetteer.resolve_code(norm))
                if codes:
                    return codes
            return tuple(self.gazetteer.resolve(norm.replace(UNIT_JOINER, " ")))
        return ()

    def _address(self, name: str) -> tuple[tuple[Place, ...], bool]:
        """A Japanese place unit read as an address, general to specific (横浜市|港北区|綱島駅): the places of its
        most specific part the gazetteer knows, and whether a more specific part follows that the gazetteer
        does not know (a reader with a map does: the unit then pinpoints a spot inside that place)."""
        parts = self._address_parts(name)
        best: tuple[Place, ...] = ()
        finer = False
        for part in parts:
            places = tuple(self.gazetteer.resolve(part))
            rest = False
            if not places:
                # 新宿四丁目, 大久保通り, 錦糸町駅前: the longest known start, and a spot inside it that follows.
                for end in range(min(len(part) - 1, self.gazetteer.longest_name_at(part, 0)), 1, -1):
                    places = tuple(self.gazetteer.resolve(part[:end]))
                    if places:
                        rest = part[end:] not in _GENERIC_PARTS
                        break
            if not places and len(part) >= 3:
                # 東中野, 二子玉川: a place name we do not know around one we do; read it as a spot near that one (a
                # wrong guess only makes the unit look more revealing, so it is deleted rather than kept).
                places, rest = self._known_inside(part), True
            if places and best:
                # 中央区|新川: the 新川 inside 中央区, not a station of that name 100 km away. A finer part whose
                # places all lie elsewhere is a spot inside the coarser one that we cannot locate.
                places = tuple(p for p in places if _within(p, best))
                if not places:
                    finer = finer or part not in _GENERIC_PARTS
                    continue
            if places and (not best or not all(p.is_area for p in places)):
                best, finer = places, rest
            elif best and part not in _GENERIC_PARTS:
                finer = True
        return best, finer

    def _address_parts(self, name: str) -> list[str]:
        """横浜市港北区綱島駅 -> 横浜市|港北区|綱島駅. At each point the longest name the gazetteer knows is one part
        (水道橋駅 is a station, not 水道|橋駅; 府中市 is a city, not 府|中市); else up to the next suffix."""
        parts: list[str] = []
        start = 0
        while start < len(name):
            for end in range(min(len(name), start + self.gazetteer.longest_name_at(name, start)), start + 1, -1):
                if self.gazetteer.resolve(name[start:end]):
                    break
            else:
                end = start + len(_ADDRESS_PARTS.match(name, start).group())
            parts.append(name[start:end])
            start = end
        return parts

    def _known_inside(self, name: str) -> tuple[Place, ...]:
        """The places of the longest name inside ``name`` (leftmost among equals) that is not only areas."""
        longest = [min(len(name) - start, self.gazetteer.longest_name_at(name, start)) for start in range(len(name))]
        for length in range(min(len(name) - 1, max(longest, default=0)), 1, -1):
            for start in range(len(name) - length + 1):
                if longest[start] < length:
                    continue
                places = tuple(self.gazetteer.resolve(name[start:start + length]))
                if places and not all(p.is_area for p in places):
                    return places
        return ()

    def _gauge(self, norm: str) -> Place:
        """A USGS gauge as a place without a known point: the grid's centre stands in (see ``is_gauge``)."""
        south, west = float(self._south.min()), float(self._west.min())
        north, east = float(self._north.max()), float(self._east.max())
        site = _GAUGE_NORM.match(norm).group(1)
        return Place(f"usgs:{site}", f"USGS site {site}", (south + north) / 2, (west + east) / 2, GAUGE_KIND, 0, "US",
                     "")

    def _hashtag(self, body: str) -> tuple[Place, ...]:
        """The places a hashtag names, read as words ("#lilacfestival": lilac festival; "#NorthLittleRock": north
        little rock; "#golsu": go lsu).

        A body that is a name whole resolves whole ("#Lincoln", "#UAPB"; three letters only for the curated
        kinds: "#LSU", not every three-letter town). Otherwise its words (the writer's capitals split them, a
        segmenter splits a run in one case) are matched as phrases, longest first: a name must start and end on
        a word boundary, so "#picoftheday" names no "thed" (Detroit) and "#instagood" no Agoo, and one word that
        is an ordinary English word is no place inside a longer hashtag ("#mobilephone", "#marchmadness"), as a
        capitalised common word is none in the text. Non-ASCII hashtags (Japanese) are searched as before."""
        parts = [part for part in body.split(UNIT_JOINER) if part]
        joined = "".join(parts)
        if not joined.isascii():
            return self._inside(joined)
        if len(joined) >= 3:
            whole = tuple(self.gazetteer.resolve(joined))
            if whole and (len(joined) >= 4 or any(p.kind in SHORT_NAME_KINDS for p in whole)):
                return whole
        words = [word for part in parts for word in self._hashtag_words.words(part)]
        found: list[tuple[Place, ...]] = []
        i = 0
        while i < len(words):
            for j in range(min(len(words), i + _PHRASE_WORDS), i, -1):
                key = "".join(words[i:j])
                places = tuple(self.gazetteer.resolve(key)) if len(key) >= 3 else ()
                if places and (len(key) >= 4 or any(p.kind in SHORT_NAME_KINDS for p in places)) and not (
                        j - i == 1 and len(words) > 1 and is_common_word(key)):
                    found.append(places)
                    i = j
                    break
            else:
                i += 1
        # As for a search inside a string: an address runs general to specific, a point beats an area.
        points = [places for places in found if any(not p.is_area for p in places)]
        return (points or found or [()])[-1]

    def _inside(self, text: str) -> tuple[Place, ...]:
        found = self.gazetteer.find(text)
        if not found:
            return ()
        # An address runs from the general to the specific; a point beats an area ("#desmoinesiowa").
        points = [places for _, _, places in found if any(not p.is_area for p in places)]
        return tuple((points or [found[-1][2]])[-1])

    # -- where a unit puts the post ------------------------------------------------------------------------
    def resolve(self, norm: str) -> Resolution | None:
        # The gazetteer first: a reader reads "品川" as 品川 wherever the posts that named it were written. What
        # the corpus taught is for the units the gazetteer cannot place.
        places = self.places_of(norm)
        if places and places[0].kind == GAUGE_KIND:
            # Where the gauge is, no file here says; that it names one spot a reader finds is certain. Its row is
            # the prior (it moves no score), and its resolving at all makes it a place inside the grid: deleted in
            # automatic mode, listed by the verdict's Places check, never silently kept.
            return Resolution(places, False, self.prior.copy())
        if not places:
            # Only for place units: a "#job" or "url:t.co" seen everywhere would be evidence against every
            # place named beside it (naive Bayes trusts it as independent); the classifier has those features.
            counts = self.learned.get(norm) if norm.startswith(JA_PLACE_PREFIX) or norm[:1].isupper() else None
            if not counts:
                return None
            distribution = self.prior.copy()  # one pseudo-post of prior
            for cell, count in counts.items():
                distribution[int(cell)] += count
            return Resolution((), True, distribution / distribution.sum())
        if norm.startswith(JA_PLACE_PREFIX) and self._address(_ja_name(norm))[1]:
            pinned = self._pinpoint(places[0])
            if pinned is not None:
                return Resolution(places, False, pinned)
        weights = place_weights(list(places))
        inside = np.zeros(self.grid.n_cells)
        mass_inside = 0.0
        for place, weight in zip(places, weights, strict=True):
            spread = self._spread(place)
            if spread is not None:
                inside += weight * spread
                mass_inside += weight
        if mass_inside <= 0.05:
            return None  # a place elsewhere says nothing about where in this grid the post was written
        distribution = inside + (1.0 - mass_inside) * self.prior
        return Resolution(places, False, distribution / distribution.sum())

    def _pinpoint(self, place: Place) -> np.ndarray | None:
        """A spot inside ``place`` that we cannot locate but a reader can: as revealing as a point, put in the
        grid cell nearest the place (when the place reaches into the grid)."""
        lat = np.clip(place.lat, self._south, self._north)
        lon = np.clip(place.lon, self._west, self._east)
        distance = haversine_km(place.lat, place.lon, lat, lon)
        nearest = int(np.argmin(distance))
        if distance[nearest] > 3 * place_spread_km(place):
            return None
        out = np.full(self.grid.n_cells, 1e-3 / self.grid.n_cells)
        out[nearest] = 1.0
        return out / out.sum()

    def _spread(self, place: Place) -> np.ndarray | None:
        """p(cell | place) for one place, or None when it is not in the grid."""
        if place.is_area:
            cells = self._cells_of_area(place)
            if not len(cells):
                return None
            out = np.zeros(self.grid.n_cells)
            out[cells] = self.prior[cells]
            return out / out.sum()
        # Distance from the place to each cell (0 inside it), then a Gaussian of the place's spread.
        lat = np.clip(place.lat, self._south, self._north)
        lon = np.clip(place.lon, self._west, self._east)
        distance = haversine_km(place.lat, place.lon, lat, lon)
        spread = place_spread_km(place)
        # A place whose centre lies just outside the grid still reaches into it (横浜: its northern wards are
        # inside a Tokyo grid, and a post from the grid that names it was written there); one further off is
        # elsewhere.
        if self.grid.cell_of(place.lat, place.lon) is None and distance.min() > _REACH_OUTSIDE * spread:
            return None
        out = np.exp(-0.5 * (distance / spread) ** 2)
        return out / out.sum()

    def _cells_of_area(self, area: Place) -> np.ndarray:
        cells = self._area_cells.get(area.id)
        if cells is None:
            members = self.gazetteer.members(area.id)
            found = {self.grid.cell_of(p.lat, p.lon) for p in members}
            found.discard(None)
            cells = self._area_cells[area.id] = np.array(sorted(found), dtype=np.int64)
        return cells


GAUGE_KIND = "gauge"
# A gauge unit's norm: "USGS08178980" (a word the tokenizer marked) or "#usgs_08178980" (a hashtag).
_GAUGE_NORM = re.compile(r"^#?usgs_?(\d{8,15})$", re.IGNORECASE)


def is_gauge(norm: str) -> bool:
    """Whether a unit is a USGS stream gauge's site number ("USGS08178980", "#USGS08178980"). Those name one spot
    on a river (the site's page gives its coordinates), but the site list is not shipped, so a gauge cannot be put
    on the grid; since a reader with a search engine can, it counts as a place inside the grid."""
    return bool(_GAUGE_NORM.match(norm))


# Kinds whose three-letter names count inside a hashtag ("#LSU", "#golsu"): the curated universities, teams and
# landmarks (data/geo/gazetteer/us_curated.tsv); a three-letter town ("Ada", "Rye") is matched from four letters on,
# as in a search inside a string.
SHORT_NAME_KINDS = frozenset({"university", "team", "chant", "venue", "event", "landmark", "nickname"})
# The most words of a hashtag one name may span ("#letsgoredwingsgo").
_PHRASE_WORDS = 6
# Roads named after the town they lead to, not the one they are in.
_ROADS_NAMED_FOR_WHERE_THEY_GO = ("街道", "バイパス")
# A point place outside the grid counts as in it when the grid's nearest cell is within this many of its spreads.
_REACH_OUTSIDE = 1.5
# How far a finer part of an address may lie from the coarser part it follows (a municipality's point is its
# office; a big city reaches further).
_ADDRESS_REACH_KM = 15.0


def _within(place: Place, coarser: tuple[Place, ...]) -> bool:
    """Whether ``place`` can be a part of one of the ``coarser`` places of an address: inside an area (by its
    state or prefecture), or near a point."""
    for outer in coarser:
        if outer.is_area:
            if place.admin1 == outer.id or place.id == outer.id:
                return True
        elif haversine_km(place.lat, place.lon, outer.lat, outer.lon) <= max(_ADDRESS_REACH_KM,
                                                                             3 * place_spread_km(outer)):
            return True
    return False


def _ja_name(norm: str) -> str:
    """"地:横浜|市|港北|区" -> 横浜市港北区."""
    return norm[len(JA_PLACE_PREFIX):].replace(JA_PART_SEPARATOR, "")


class _Rows:
    """A weight matrix that grows as units are resolved: what ``LinearScorer`` indexes like an array."""

    def __init__(self, width: int) -> None:
        self._array = np.zeros((256, width))
        self._n = 0

    @property
    def shape(self) -> tuple[int, int]:
        return self._n, self._array.shape[1]

    def append(self, row: np.ndarray) -> int:
        if self._n == len(self._array):
            grown = np.zeros((2 * len(self._array), self._array.shape[1]))
            grown[: self._n] = self._array[: self._n]
            self._array = grown
        self._array[self._n] = row
        self._n += 1
        return self._n - 1

    def __getitem__(self, key):
        return self._array[: self._n][key]


class PlaceVocabulary(Mapping):
    """Feature -> weight row id, resolving a feature the first time it is asked for (thread-safe)."""

    def __init__(self, resolver: PlaceResolver, rows: _Rows) -> None:
        self.resolver, self.rows = resolver, rows
        self._ids: dict[str, int] = {}
        self._unknown: set[str] = set()
        self._lock = threading.Lock()
        self._log_prior = np.log(resolver.prior)

    def get(self, feature: str, default=None):
        found = self._ids.get(feature)
        if found is not None:
            return found
        if feature in self._unknown or BIGRAM_SEPARATOR in feature:
            return default
        resolution = self.resolver.resolve(feature)
        with self._lock:
            if resolution is None:
                if len(self._unknown) > _NEGATIVE_CACHE:
                    self._unknown.clear()
                self._unknown.add(feature)
                return default
            if feature not in self._ids:
                self._ids[feature] = self.rows.append(np.log(resolution.distribution + _FLOOR) - self._log_prior)
            return self._ids[feature]

    def __getitem__(self, feature: str) -> int:
        found = self.get(feature)
        if found is None:
            raise KeyError(feature)
        return found

    def __iter__(self) -> Iterator[str]:
        return iter(dict(self._ids))

    def __len__(self) -> int:
        return len(self._ids)


def smoothed_prior(grid: Grid, cell_counts: Mapping[int, int] | None, classes: np.ndarray) -> np.ndarray:
    """The share of training posts per cell, smoothed so a cell without posts is unlikely, not impossible."""
    counts = np.zeros(grid.n_cells)
    if cell_counts:
        for cell, count in cell_counts.items():
            counts[int(cell)] = count
    else:  # a model trained before cell counts were kept: uniform over the cells it knows
        counts[np.asarray(classes, dtype=np.int64)] = 1.0
    counts += 0.1 * max(counts.sum(), 1.0) / (grid.n_cells * 100)
    return counts / counts.sum()


def place_scorer(resolver: PlaceResolver, threshold: float) -> LinearScorer:
    """The gazetteer scorer for the search: softmax over the cells of log prior + the mentions' rows."""
    rows = _Rows(resolver.grid.n_cells)
    return LinearScorer(PLACE_SCORER, PlaceVocabulary(resolver, rows), rows, np.log(resolver.prior), threshold)


def places_in_grid(resolver: PlaceResolver, tokens: Sequence[Token], allowed: set[int]) -> list[int]:
    """The deletable units that name a place the gazetteer puts inside the grid (not what the corpus taught:
    a reader needs a map, not our training posts, to read those), every place name the gazetteer does not
    know, and every venue or landmark: a reader with a search engine finds those wherever no gazetteer
    does."""
    out = []
    for i in sorted(allowed):
        if tokens[i].kind == "word":  # place mentions, hashtags, @mentions and URLs are units of their own
            continue
        if tokens[i].kind == "venue":
            out.append(i)
            continue
        # A place name the gazetteer cannot place at all (成城, 宮前区菅生: a neighbourhood, a ward of a
        # designated city) is still read as a place; one it places elsewhere (京都) says nothing here.
        if tokens[i].kind == "place" and not resolver.places_of(tokens[i].norm):
            out.append(i)
            continue
        resolution = resolver.resolve(tokens[i].norm)
        if resolution is not None and not resolution.learned:
            out.append(i)
    return out


def coarser_place(resolver: PlaceResolver, token: Token, language: str) -> str | None:
    """A coarser place for a place unit: its state or prefecture ("Des Moines" -> "Iowa", "品川区" -> "東京"),
    or None when the unit is not a gazetteer place inside an area."""
    if token.kind not in ("place", "hashtag"):
        return None
    for place in resolver.places_of(token.norm)[:1]:
        area = place if place.is_area else resolver.gazetteer.area_of(place)
        if area is None or area is place:
            return None
        if language == "ja":
            name = next((n for n in (area.name[:-1],) if area.name[-1:] in "都府県" and len(n) >= 2), area.name)
            return name
        return area.name
    return None
