"""Generalization hierarchies for terms in texts: the textual twin of the relational recoding.

Every sensitive term has a path from itself (the leaf) up to its entity type (the root), one node per level:

- DATE: day -> month -> year -> decade -> DATE ("June 5, 2004" -> "June 2004" -> "2004" -> "the 2000s");
  a day or a month without a year -> the month's name ("a day in June"); a weekday -> "a day of the week".
- TIME: minute -> hour -> part of the day -> TIME ("8:30 pm" -> "8 pm" -> "an evening time").
- GPE / LOC: place -> state or prefecture -> country -> type, through the project's gazetteer (GeoNames; the
  most populous place of a name) and a short table of how countries are written in posts ("the US", "UK").
  ("Omaha" -> "a city in Nebraska" -> "a city in the United States").
- MONEY / PERCENT / QUANTITY / CARDINAL: value -> a range of its leading digit -> its order of magnitude
  ("$37" -> "$30-39" -> "$10-99"), the unit kept.
- NORP: nationality -> region ("German" -> "European"), religion -> "a religion", party -> "a political group",
  from the tables below.
- every other type (PERSON, ORG, ...): the term, then its type. A name shared by a whole class is kept;
  otherwise it is suppressed.

A level is a number: the leaf has the level of what it states ("2004" is a year: level 2 of DATE); a node
is written as the term itself when it has the leaf's level (nothing is lost), otherwise as its generic text.
``loss(leaf, node) = (level(node) - level(leaf)) / (level(root) - level(leaf))``: 0 for the term kept, 1 for
its type, in between for a generalized term (the textual NCP, see ``metrics``).
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from functools import cached_property

__all__ = ["TermHierarchies", "TermNode", "loss"]


@dataclass(frozen=True, slots=True)
class TermNode:
    """One node of a term's path. ``key`` is unique within the entity type; the leaf's is ("term", term key)."""

    key: tuple[str, str]
    level: int
    text: str  # the generic text; for the leaf, its first spelling


def loss(leaf: TermNode, node: TermNode, root_level: int) -> float:
    span = root_level - leaf.level
    return 1.0 if span <= 0 else (node.level - leaf.level) / span


MONTHS = ("january", "february", "march", "april", "may", "june", "july", "august", "september", "october",
          "november", "december")
_MONTH_NUMBER = {name: i + 1 for i, name in enumerate(MONTHS)} | {
    name[:3]: i + 1 for i, name in enumerate(MONTHS) if name != "may"} | {"sept": 9}
_WEEKDAYS = ("monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday")
_MONTH = r"(?P<month>" + "|".join(sorted(_MONTH_NUMBER, key=len, reverse=True)) + r")\.?"
_DAY = r"(?P<day>[0-3]?\d)(?:st|nd|rd|th)?"
_YEAR = r"(?P<year>(?:19|20)\d\d)"
_DATE_FORMS = [
    re.compile(rf"\b{_MONTH}\s+{_DAY}(?:\s*,?\s*{_YEAR})?\b", re.I),
    re.compile(rf"\b{_DAY}\s+(?:of\s+)?{_MONTH}(?:\s*,?\s*{_YEAR})?\b", re.I),
    re.compile(rf"\b{_MONTH}\s*,?\s*(?:of\s+)?{_YEAR}\b", re.I),
    re.compile(r"\b(?P<year>(?:19|20)\d\d)[-/.](?P<month>[01]?\d)[-/.](?P<day>[0-3]?\d)\b"),
    re.compile(r"\b(?P<month>[01]?\d)/(?P<day>[0-3]?\d)/(?P<year>(?:19|20)?\d\d)\b"),
    re.compile(r"\b(?P<day>[0-3]?\d)\.(?P<month>[01]?\d)\.(?P<year>(?:19|20)?\d\d)\b"),
]
_MONTH_ONLY = re.compile(rf"\b{_MONTH}\b", re.I)
_YEAR_ONLY = re.compile(r"(?<![\d$£€])(?P<year>(?:19|20)\d\d)(?![\d%])")
_DECADE = re.compile(r"\b(?:the\s+)?(?:(?P<century>19|20)|')?(?P<decade>\d)0'?s\b", re.I)
_WEEKDAY = re.compile(r"\b(?P<weekday>" + "|".join(_WEEKDAYS) + r")s?\b", re.I)

_CLOCK = re.compile(r"\b(?P<hour>[01]?\d|2[0-3])(?::(?P<minute>[0-5]\d))?\s*(?P<half>a\.?m\.?|p\.?m\.?)?(?!\w)", re.I)
_PARTS = (("night", "a night time"), ("morning", "a morning time"), ("afternoon", "an afternoon time"),
          ("evening", "an evening time"))
_PART_WORDS = {"morning": "morning", "mornings": "morning", "dawn": "morning", "sunrise": "morning",
               "breakfast": "morning", "afternoon": "afternoon", "afternoons": "afternoon", "noon": "afternoon",
               "lunch": "afternoon", "lunchtime": "afternoon", "evening": "evening", "evenings": "evening",
               "dusk": "evening", "sunset": "evening", "dinner": "evening", "night": "night", "nights": "night",
               "tonight": "night", "midnight": "night", "overnight": "night"}

_NUMBER = re.compile(r"(?P<number>\d[\d,]*(?:\.\d+)?)\s*(?P<scale>k\b|thousand|million|billion|bn\b|m\b)?", re.I)
_SCALES = {"k": 1e3, "thousand": 1e3, "million": 1e6, "m": 1e6, "billion": 1e9, "bn": 1e9}
_CURRENCY = re.compile(r"[$£€¥]|\b(?:dollars?|bucks?|pounds?|euros?|yen|cents?)\b", re.I)

# How countries are written in posts, where the gazetteer has no such name (it names countries as GeoNames).
COUNTRY_ALIASES = {
    "us": "US", "u.s": "US", "u.s.": "US", "usa": "US", "u.s.a.": "US", "u.s.a": "US", "america": "US",
    "the us": "US", "the u.s.": "US", "the usa": "US", "the united states": "US", "united states of america": "US",
    "the states": "US", "uk": "GB", "u.k.": "GB", "the uk": "GB", "the u.k.": "GB", "britain": "GB",
    "great britain": "GB", "england": "GB", "scotland": "GB", "wales": "GB", "northern ireland": "GB",
    "holland": "NL", "the netherlands": "NL", "the philippines": "PH", "korea": "KR", "south korea": "KR",
    "north korea": "KP", "russia": "RU", "china": "CN", "taiwan": "TW", "vietnam": "VN", "iran": "IR",
    "syria": "SY", "the uae": "AE", "uae": "AE", "czech republic": "CZ",
}
_DEFINITE = frozenset({"US", "GB", "NL", "PH", "AE", "CZ", "DO", "BS", "CF", "KM", "MV", "MH", "SB", "VA"})

# Nationalities and groups by region, religions, political groups (NORP): the words a post uses most.
_REGIONS = {
    "North American": "american americans canadian canadians yankee yankees",
    "Latin American": "mexican mexicans cuban cubans brazilian brazilians argentine argentinian colombian "
                      "venezuelan chilean peruvian puerto rican latino latina latinos hispanic hispanics",
    "European": "british brit brits english irish scottish scots welsh french german germans italian italians "
                "spanish spaniard dutch swedish swede swedes norwegian danish finnish russian russians polish "
                "greek greeks portuguese swiss austrian belgian czech hungarian romanian ukrainian serbian "
                "croatian bosnian european europeans icelandic",
    "Asian": "chinese japanese korean koreans indian indians pakistani pakistanis vietnamese filipino filipinos "
             "filipina thai indonesian malaysian singaporean taiwanese tibetan mongolian bangladeshi "
             "nepalese sri lankan asian asians",
    "Middle Eastern": "arab arabs arabic iraqi iraqis iranian iranians persian israeli israelis palestinian "
                      "palestinians afghan afghans saudi saudis turkish turk turks kurdish kurds lebanese syrian "
                      "egyptian egyptians jordanian kuwaiti",
    "African": "african africans nigerian kenyan ethiopian somali ghanaian sudanese moroccan algerian "
               "south african",
    "Oceanian": "australian australians aussie aussies kiwi kiwis maori",
}
_GROUPS = {
    "a religious group": "christian christians catholic catholics protestant protestants muslim muslims moslem "
                         "islamic jewish jew jews buddhist buddhists hindu hindus mormon mormons baptist baptists "
                         "methodist methodists lutheran lutherans evangelical evangelicals orthodox sikh sikhs "
                         "atheist atheists agnostic pagan pagans wiccan presbyterian episcopal anglican",
    "a political group": "democrat democrats democratic republican republicans gop liberal liberals "
                         "conservative conservatives libertarian libertarians socialist socialists communist "
                         "communists marxist fascist fascists nazi nazis green greens tory tories labour "
                         "neocon neocons progressive progressives",
}
_NORP_NODE: dict[str, tuple[str, str, str]] = {}
for _region, _words in _REGIONS.items():
    for _word in _words.replace("puerto rican", "puerto_rican").replace("sri lankan", "sri_lankan").replace(
            "south african", "south_african").split():
        _NORP_NODE[_word.replace("_", " ")] = ("region", _region, _region)
for _text, _words in _GROUPS.items():
    for _word in _words.split():
        _NORP_NODE[_word] = ("group", _text, _text)

#: Levels (leaf 0 .. root) of the types that have a hierarchy; other types: 0 term, 1 root.
ROOT_LEVEL = {"DATE": 4, "TIME": 3, "GPE": 3, "LOC": 3, "MONEY": 3, "PERCENT": 3, "QUANTITY": 3, "CARDINAL": 3,
              "NORP": 2}


class TermHierarchies:
    """Paths of terms to their type. ``gazetteer``: a ``location.gazetteer.Gazetteer`` (loaded on first use
    of a place when None). Paths are computed once per (type, key) and kept."""

    def __init__(self, gazetteer=None, *, enabled: bool = True) -> None:
        self.enabled = enabled
        self._gazetteer = gazetteer
        self._paths: dict[tuple[str, str], tuple[TermNode, ...]] = {}
        self._texts: dict[tuple[str, tuple[str, str]], set[str]] = {}

    @cached_property
    def gazetteer(self):
        if self._gazetteer is None:
            from anonymizer.recognize.gazetteer import Gazetteer

            self._gazetteer = Gazetteer.load()
        return self._gazetteer

    def root_level(self, label: str) -> int:
        return ROOT_LEVEL.get(label, 1) if self.enabled else 1

    def root(self, label: str) -> TermNode:
        return TermNode(("type", label), self.root_level(label), label)

    def path(self, label: str, key: str, text: str) -> tuple[TermNode, ...]:
        """Leaf first, root last. ``key`` is the term's normalised key, ``text`` one spelling of it."""
        found = self._paths.get((label, key))
        if found is None:
            found = self._paths[(label, key)] = self._build(label, key, text)
            for node in found:
                texts = self._texts.setdefault((label, node.key), set())
                texts.add(node.text)
                if node.level == found[0].level:  # a node on the leaf's level is written as the term itself
                    texts.add(text)
        return found

    def texts_of(self, label: str, node_key: tuple[str, str]) -> set[str]:
        """How a node has been written so far ("a city in Nebraska", "a place in Nebraska"; for the country of
        "America", also "America")."""
        return self._texts.get((label, node_key), set())

    def _build(self, label: str, key: str, text: str) -> tuple[TermNode, ...]:
        inner: list[tuple[str, str, int, str]] = []  # (kind, id, level, text)
        leaf_level = 0
        if self.enabled:
            inner, leaf_level = _INNER.get(label, _nothing)(self, key, text)
        leaf = TermNode(("term", key), leaf_level, text)
        nodes = [leaf] + [TermNode((kind, ident), level, shown) for kind, ident, level, shown in inner]
        return (*nodes, self.root(label))

    # ----------------------------------------------------------------------------- per type

    def _places(self, key: str, text: str) -> tuple[list, int]:
        name = key.strip()
        bare = re.sub(r"^the\s+", "", name)
        code = COUNTRY_ALIASES.get(name) or COUNTRY_ALIASES.get(bare)
        gazetteer = self.gazetteer
        if code:
            return [("country", code, 2, _in_country(gazetteer, code, "a place"))], 2
        found = gazetteer.resolve(bare)
        if not found and "," in bare:  # "Lincoln, Nebraska", "Omaha, NE": the city in the state named after it
            city, _, area = (part.strip() for part in bare.partition(","))
            areas = {p.id for p in gazetteer.resolve(area) + gazetteer.resolve_abbreviation(area.upper())}
            found = [p for p in gazetteer.resolve(city) if p.admin1 in areas or f"country:{p.country}" in areas]
        if not found:
            return [], 0
        place = found[0]
        if place.kind == "country":
            return [("country", place.country, 2, _in_country(gazetteer, place.country, "a place"))], 2
        if place.kind in ("state", "prefecture", "region"):
            nodes = [("area", place.id, 1, f"a place in {place.name}")]
            if place.country:
                nodes.append(("country", place.country, 2, _in_country(gazetteer, place.country, "a place")))
            return nodes, 1
        what = "a city" if place.kind in ("city", "municipality") else "a place"
        nodes = []
        area = gazetteer.area_of(place)
        if area is not None:
            nodes.append(("area", area.id, 1, f"{what} in {area.name}"))
        if place.country:
            nodes.append(("country", place.country, 2, _in_country(gazetteer, place.country, what)))
        return nodes, 0

    def _dates(self, key: str, text: str) -> tuple[list, int]:
        for form in _DATE_FORMS:
            m = form.search(key)
            if m is None:
                continue
            month = _month(m.group("month"))
            day = int(m.group("day")) if "day" in m.groupdict() and m.group("day") else None
            year = _year(m.group("year"))
            if month is None or not 1 <= month <= 12 or (day is not None and not 1 <= day <= 31):
                continue
            if year is None:  # "June 5": the month's name is all that can be shared above it
                return [("month-name", str(month), 1, f"a day in {MONTHS[month - 1].title()}")], 0 if day else 1
            nodes = []
            if day is not None:
                nodes.append(("day", f"{year}-{month:02d}-{day:02d}", 0,
                              f"{MONTHS[month - 1].title()} {day}, {year}"))
            nodes += [("month", f"{year}-{month:02d}", 1, f"{MONTHS[month - 1].title()} {year}"),
                      ("year", str(year), 2, str(year)), ("decade", str(year // 10 * 10), 3, f"the {year // 10 * 10}s")]
            return nodes, 0 if day is not None else 1
        m = _DECADE.search(key)
        if m:
            century = m.group("century") or ("20" if m.group("decade") in "012" and m.group("century") else "19")
            decade = int(century + m.group("decade") + "0")
            return [("decade", str(decade), 3, f"the {decade}s")], 3
        m = _YEAR_ONLY.search(key)
        if m:
            year = int(m.group("year"))
            decade = year // 10 * 10
            return [("year", str(year), 2, str(year)), ("decade", str(decade), 3, f"the {decade}s")], 2
        m = _MONTH_ONLY.search(key)
        if m and _month(m.group("month")):
            month = _month(m.group("month"))
            return [("month-name", str(month), 1, f"a day in {MONTHS[month - 1].title()}")], 1
        if _WEEKDAY.search(key):
            return [("weekday", "", 1, "a day of the week")], 0
        return [], 0

    def _times(self, key: str, text: str) -> tuple[list, int]:
        words = re.findall(r"[a-z]+", key)
        m = _CLOCK.search(key)
        if m and (m.group("minute") or m.group("half") or "o'clock" in key or "oclock" in key):
            hour = int(m.group("hour"))
            half = (m.group("half") or "").lower().replace(".", "")
            if half == "pm" and hour < 12:
                hour += 12
            elif half == "am" and hour == 12:
                hour = 0
            part = _part_of_day(hour)
            shown = f"{(hour % 12) or 12} {'am' if hour < 12 else 'pm'}"
            return [("hour", str(hour), 1, shown), ("part", part[0], 2, part[1])], 0 if m.group("minute") else 1
        for word in words:
            if word in _PART_WORDS:
                part = _PART_WORDS[word]
                return [("part", part, 2, dict(_PARTS)[part])], 2
        return [], 0

    def _numbers(self, key: str, text: str) -> tuple[list, int]:
        m = _NUMBER.search(key)
        if m is None:
            return [], 0
        try:
            value = float(m.group("number").replace(",", ""))
        except ValueError:
            return [], 0
        scale = (m.group("scale") or "").lower()
        value *= _SCALES.get(scale, 1)
        if not math.isfinite(value) or value < 0:
            return [], 0
        prefix, suffix = _unit(key, text, m)
        digits = max(len(str(int(value))), 1)
        step = 10 ** (digits - 1)
        low = int(value // step * step)
        nodes = []
        if digits > 1:
            nodes.append(("range", f"{prefix}|{low}|{suffix}", 1, f"{prefix}{_n(low)}-{_n(low + step - 1)}{suffix}"))
        else:
            nodes.append(("range", f"{prefix}|{low}|{suffix}", 1, f"{prefix}{_n(low)}{suffix}"))
        magnitude_low = step if digits > 1 else 0
        nodes.append(("magnitude", f"{prefix}|{digits}|{suffix}", 2,
                      f"{prefix}{_n(magnitude_low)}-{_n(10 ** digits - 1)}{suffix}"))
        return nodes, 0

    def _groups(self, key: str, text: str) -> tuple[list, int]:
        name = re.sub(r"^the\s+", "", key.strip())
        node = _NORP_NODE.get(name)
        if node is None:
            return [], 0
        kind, ident, shown = node
        is_region = name in (ident.lower(), ident.lower() + "s")  # "european(s)" is the region itself
        return [(kind, ident, 1, shown)], 1 if is_region else 0


def _nothing(self, key, text):
    return [], 0


_INNER = {"GPE": TermHierarchies._places, "LOC": TermHierarchies._places, "DATE": TermHierarchies._dates,
          "TIME": TermHierarchies._times, "MONEY": TermHierarchies._numbers, "PERCENT": TermHierarchies._numbers,
          "QUANTITY": TermHierarchies._numbers, "CARDINAL": TermHierarchies._numbers, "NORP": TermHierarchies._groups}


def _in_country(gazetteer, code: str, what: str) -> str:
    country = gazetteer.get(f"country:{code}")
    name = country.name if country is not None else code
    return f"{what} in {'the ' if code in _DEFINITE else ''}{name}"


def _month(value: str | None) -> int | None:
    if value is None:
        return None
    if value.isdigit():
        return int(value)
    return _MONTH_NUMBER.get(value.lower().rstrip("."))


def _year(value: str | None) -> int | None:
    if not value:
        return None
    year = int(value)
    if year < 100:
        year += 2000 if year < 30 else 1900
    return year


def _part_of_day(hour: int) -> tuple[str, str]:
    if 5 <= hour < 12:
        return _PARTS[1]
    if 12 <= hour < 17:
        return _PARTS[2]
    if 17 <= hour < 21:
        return _PARTS[3]
    return _PARTS[0]


def _unit(key: str, text: str, number: re.Match) -> tuple[str, str]:
    if "%" in key or "percent" in key:
        return "", "%"
    currency = _CURRENCY.search(text)
    if currency:
        symbol = currency.group()
        return (symbol, "") if symbol in "$£€¥" else ("", f" {symbol.lower().rstrip('s')}s")
    rest = key[number.end():].strip().split()
    return "", (f" {rest[0]}" if rest and rest[0].isalpha() else "")


def _n(value: int) -> str:
    return f"{value:,}"
