"""The word data the lexicon recognizers share, at the bottom of ``recognize`` (it imports no recognizer): the
US Census 1990 name lists of the ``names`` package and the gazetteer's places, loaded once per process.
``lexicons``, ``handles`` and ``precision`` read them here."""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass
from functools import cache
from importlib import resources

from anonymizer.recognize.frequency import word_frequency

#: Alternate names (other than the name and its ASCII form) of smaller places are not used: GeoNames lists
#: "May" for Mayville and "Sale" for Salé.
ALTERNATE_NAMES_POPULATION = 500_000
#: An alternate name must be rarer than this as a word ("Google" is one of Mountain View's).
ALTERNATE_NAME_FREQUENCY = 1_000

# What the gazetteer lacks (it has sovereign countries, US states, cities): label by lower-case word tuple.
_EXTRA_PLACES = {
    **{tuple(n.split()): "GPE" for n in (
        "england", "scotland", "wales", "northern ireland", "britain", "great britain", "america",
        "korea", "north korea", "holland", "tibet", "palestine", "kosovo", "taiwan", "hong kong", "macau",
        "bombay", "calcutta", "madras", "peking", "saigon", "frankfurt", "puerto rico", "guam",
        "ontario", "quebec", "british columbia", "alberta", "manitoba", "saskatchewan", "nova scotia",
        "new brunswick", "newfoundland", "queensland", "new south wales", "tasmania", "bavaria",
        "catalonia", "sicily", "sardinia", "siberia", "kashmir", "punjab", "yorkshire", "cornwall",
        "manhattan", "brooklyn", "bronx", "staten island", "hollywood",
        "silicon valley", "long island")},
    **{tuple(n.split()): "LOC" for n in (
        "africa", "asia", "europe", "antarctica", "oceania", "australasia", "north america",
        "south america", "latin america", "central america", "middle east", "far east", "caribbean",
        "scandinavia", "balkans", "midwest", "mediterranean", "sahara",
        "himalayas", "alps", "rocky mountains", "east coast", "west coast", "gulf coast", "pacific ocean",
        "atlantic ocean", "indian ocean",
        "southeast asia", "eastern europe", "western europe", "the midwest", "new england")},
}


@dataclass(frozen=True, slots=True)
class Place:
    label: str          # GPE or LOC
    population: int
    area: bool          # country, state, region, continent: taken even if a common word (mid-sentence)
    country: str = ""   # ISO code of a city's country


@dataclass
class WordData:
    first: dict[str, float]        # lower-case first name -> Census share in percent (max of male, female)
    surnames: frozenset[str]
    places: dict[str, Place]      # one word (lower case)
    multi: dict[str, dict[tuple[str, ...], Place]]     # first word -> word tuples of 2+ words


def census_shares(name: str) -> dict[str, float]:
    """A Census 1990 list of the `names` package: NAME, percent, cumulative percent, rank."""
    share: dict[str, float] = {}
    for line in (resources.files("names") / name).read_text(encoding="ascii").splitlines():
        parts = line.split()
        if len(parts) >= 2:
            share[parts[0].lower()] = float(parts[1])
    return share


def fold(text: str) -> str:
    """Lower case without diacritics: "São" -> "sao"."""
    if text.isascii():  # NFKD leaves ASCII as it is: most names, and word_data folds 130,000 of them
        return text.lower()
    decomposed = unicodedata.normalize("NFKD", text.lower())
    return "".join(c for c in decomposed if not unicodedata.combining(c))


def place_words(name: str) -> tuple[str, ...]:
    return tuple(w.rstrip(".").lower() for w in name.replace(",", " ").split() if w.rstrip("."))


_KANA_OR_KANJI = re.compile(r"[\u3040-\u30ff\u3400-\u9fff]")


@cache
def word_data() -> WordData:
    first: dict[str, float] = {}
    for list_name in ("dist.male.first", "dist.female.first"):
        for name, share in census_shares(list_name).items():
            first[name] = max(first.get(name, 0.0), share)
    surnames = frozenset(census_shares("dist.all.last"))

    from anonymizer.recognize.gazetteer import Gazetteer

    gazetteer = Gazetteer.load()
    places: dict[str, Place] = {}
    multi: dict[str, dict[tuple[str, ...], Place]] = {}

    def add(words: tuple[str, ...], place: Place) -> None:
        if not words:
            return
        if len(words) == 1:
            table = places
            key: object = words[0]
        else:
            table = multi.setdefault(words[0], {})
            key = words
        old = table.get(key)  # type: ignore[call-overload]
        if old is None or (place.area, place.population) > (old.area, old.population):
            table[key] = place  # type: ignore[index]

    for p in gazetteer.places:
        if p.kind not in ("city", "country", "state"):
            continue          # Japanese municipalities, stations, lines, neighbourhoods
        names = gazetteer.names_of(p)
        place = Place("GPE", p.population, p.kind in ("country", "state"), p.country)
        primary = {names[0], fold(names[0])}
        for name in names:
            ascii_name = name.isascii()  # the checks below hold for any ASCII name: skipped (a process's start)
            if not name[:1].isalpha() or not (ascii_name or all(
                    c.isascii() or c.isalpha() for c in name if not c.isspace())):
                continue
            folded = fold(name)
            if name not in primary and folded not in primary and (
                    p.population < ALTERNATE_NAMES_POPULATION
                    or word_frequency(name.lower()) >= ALTERNATE_NAME_FREQUENCY):
                continue
            if not ascii_name and _KANA_OR_KANJI.search(name):
                continue
            add(place_words(name), place)
            add(place_words(folded), place)
    for words, label in _EXTRA_PLACES.items():
        add(words, Place(label, 10_000_000, True))
    return WordData(first, surnames, places, multi)
