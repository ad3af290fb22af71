"""Attackers written apart from the defender: other code, other features, other training data (no Django here).

A de-identifier that only fools the model it was built from proves little. These attackers share nothing with
the defender's tokenizer, classifier, de-identifier or gazetteer code; they read raw text and the gazetteer data
file with their own code. Each follows scikit-learn's habits: ``fit(texts, cells)`` returns the attacker,
``predict_proba(texts)`` gives one row per text over *all* cells of the grid (zeros for cells the training
posts never reached), ``predict(texts)`` the top cell.

- ``CharNgramAttacker``: character 2–4-grams within word boundaries (tf-idf) and multinomial logistic
  regression. Knows no language: English and Japanese alike, hashtags and URLs included.
- ``ComplementNBAttacker``: Complement Naive Bayes over words (Latin script) and character bigrams (kana and
  kanji, which are written without spaces).
- ``GazetteerAttacker``: no learning but the prior; it looks the post's place names up in the gazetteer data
  file and spreads each over the cells of the places it can mean, weighted by population.
"""

from __future__ import annotations

import gzip
import json
import re
import unicodedata
from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

import numpy as np
from sklearn.feature_extraction.text import TfidfVectorizer
from sklearn.linear_model import LogisticRegression
from sklearn.naive_bayes import ComplementNB

from anonymizer.platform.grid import Grid
from anonymizer.share import shipped_data_dir

GAZETTEER_FILE = shipped_data_dir() / "geo" / "gazetteer" / "places.json.gz"
GAZETTEER_VERSION = 1


class _CellModel:
    """Shared parts: the cell count, the training prior and mapping class columns onto all grid cells."""

    def __init__(self, n_cells: int) -> None:
        if n_cells < 1:
            raise ValueError(f"an attacker needs a grid of at least one cell, got {n_cells}")
        self.n_cells = int(n_cells)

    def _fit_prior(self, cells: np.ndarray) -> np.ndarray:
        cells = np.asarray(cells, dtype=np.int64)
        if len(cells) == 0:
            raise ValueError("no training posts")
        if cells.min() < 0 or cells.max() >= self.n_cells:
            raise ValueError(f"cells must be ids of the grid (0 to {self.n_cells - 1})")
        self.prior_ = np.bincount(cells, minlength=self.n_cells) / len(cells)
        return cells

    def predict(self, texts: Sequence[str]) -> np.ndarray:
        """The most probable cell of each text."""
        return np.argmax(self.predict_proba(texts), axis=1)

    def predict_proba(self, texts: Sequence[str]) -> np.ndarray:  # pragma: no cover - overridden
        raise NotImplementedError


class _LinearTextAttacker(_CellModel):
    """A vectorizer and a probabilistic classifier, trained on the cells with posts."""

    def _make(self):  # pragma: no cover - overridden
        raise NotImplementedError

    def fit(self, texts: Sequence[str], cells: np.ndarray):
        cells = self._fit_prior(cells)
        self.classes_ = np.unique(cells)
        self.vectorizer_, self.model_ = self._make()
        X = self.vectorizer_.fit_transform(list(texts))
        if len(self.classes_) > 1:
            self.model_.fit(X, cells)
        return self

    def predict_proba(self, texts: Sequence[str]) -> np.ndarray:
        out = np.zeros((len(texts), self.n_cells))
        if len(texts) == 0:
            return out
        if len(self.classes_) == 1:
            out[:, self.classes_[0]] = 1.0
            return out
        out[:, self.model_.classes_] = self.model_.predict_proba(self.vectorizer_.transform(list(texts)))
        return out


class CharNgramAttacker(_LinearTextAttacker):
    """Character 2–4-grams inside word boundaries (tf-idf, sublinear) and multinomial logistic regression."""

    def __init__(self, n_cells: int, *, C: float = 5.0, ngram_range: tuple[int, int] = (2, 4), min_df: int = 2,
                 max_features: int = 200_000, max_iter: int = 300, tol: float = 1e-3, solver: str = "saga") -> None:
        super().__init__(n_cells)
        self.C, self.ngram_range, self.min_df = C, ngram_range, min_df
        self.max_features, self.max_iter, self.tol, self.solver = max_features, max_iter, tol, solver

    def _make(self):
        vectorizer = TfidfVectorizer(analyzer="char_wb", ngram_range=self.ngram_range, min_df=self.min_df,
                                     sublinear_tf=True, max_features=self.max_features, dtype=np.float32)
        # With several classes every solver but liblinear fits the multinomial (softmax) loss. SAGA with tol
        # 1e-3 reaches lbfgs's held-out accuracy and top-5 on both default corpora (0.106 / 0.214) 4-5 times
        # faster: 14 s instead of 62 s on the English attacker's 6,277 posts x 137 cells.
        return vectorizer, LogisticRegression(C=self.C, solver=self.solver, max_iter=self.max_iter, tol=self.tol,
                                              random_state=0)  # SAGA visits the posts in a random order


# Kana, kanji and the iteration mark: written without spaces, so cut into character bigrams.
_CJK_RUN = r"[\u3005\u3041-\u309f\u30a0-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\uff66-\uff9f]+"
_NB_TOKEN = re.compile(rf"(?P<cjk>{_CJK_RUN})|(?P<word>[#@]?[^\W_](?:[\w'’]*[^\W_])?)")
_SHORT_LINK = re.compile(r"https?://t\.co/\S*", re.IGNORECASE)


def words_and_bigrams(text: str) -> list[str]:
    """The ComplementNB attacker's features: lower-cased words (hashtags and mentions also without their sign),
    and character bigrams of kana/kanji runs (a one-character run is itself)."""
    text = _SHORT_LINK.sub(" ", unicodedata.normalize("NFKC", text)).casefold()
    out: list[str] = []
    for match in _NB_TOKEN.finditer(text):
        run = match.group("cjk")
        if run is not None:
            out.extend([run] if len(run) == 1 else [run[i:i + 2] for i in range(len(run) - 1)])
            continue
        word = match.group("word")
        out.append(word)
        if word[0] in "#@" and len(word) > 2:
            out.append(word[1:])
    return out


class ComplementNBAttacker(_LinearTextAttacker):
    """Complement Naive Bayes over tf-idf weighted words and (for Japanese) character bigrams."""

    def __init__(self, n_cells: int, *, alpha: float = 0.3, min_df: int = 2) -> None:
        super().__init__(n_cells)
        self.alpha, self.min_df = alpha, min_df

    def _make(self):
        vectorizer = TfidfVectorizer(analyzer=words_and_bigrams, min_df=self.min_df, sublinear_tf=True,
                                     dtype=np.float64)
        return vectorizer, ComplementNB(alpha=self.alpha)


# -- the gazetteer attacker ---------------------------------------------------------------------------------------

@dataclass(frozen=True)
class GazetteerPlace:
    """One record of the gazetteer file, as this attacker reads it."""

    id: str
    name: str
    names: tuple[str, ...]
    lat: float
    lon: float
    kind: str  # city | municipality | neighbourhood | station | state | prefecture | line | region | country
    population: int
    country: str
    admin1: str
    abbreviations: tuple[str, ...] = ()
    lines: tuple[str, ...] = ()  # a station's railway lines (ids of "line" records)

    @property
    def is_area(self) -> bool:
        return self.kind in ("state", "prefecture", "line")


def read_gazetteer(path: Path | str) -> tuple[GazetteerPlace, ...]:
    """The places of a gazetteer file (gzip JSON, ``{"version": 1, "places": [...]}``), cached per file
    version (path, size and modification time)."""
    path = Path(path)
    stat = path.stat()
    return _read_gazetteer(str(path), stat.st_size, stat.st_mtime_ns)


@lru_cache(maxsize=4)
def _read_gazetteer(path: str, size: int, mtime: int) -> tuple[GazetteerPlace, ...]:
    opener = gzip.open if path.endswith(".gz") else open
    with opener(path, "rt", encoding="utf-8") as handle:
        document = json.load(handle)
    if not isinstance(document, dict) or document.get("version") != GAZETTEER_VERSION:
        raise ValueError(f"{path}: not a version {GAZETTEER_VERSION} gazetteer file")
    return tuple(places_from_records(document["places"]))


def places_from_records(records: Iterable[dict]) -> list[GazetteerPlace]:
    return [GazetteerPlace(id=str(r["id"]), name=str(r["name"]),
                           names=tuple(dict.fromkeys([str(r["name"]), *map(str, r.get("names") or ())])),
                           lat=float(r["lat"]), lon=float(r["lon"]), kind=str(r["kind"]),
                           population=int(r.get("population") or 0), country=str(r.get("country") or ""),
                           admin1=str(r.get("admin1") or ""),
                           abbreviations=tuple(map(str, r.get("abbreviations") or ())),
                           lines=tuple(map(str, r.get("lines") or ()))) for r in records]


def _fold(text: str) -> str:
    """Latin text without diacritics, case-folded."""
    return "".join(ch for ch in unicodedata.normalize("NFKD", text) if not unicodedata.combining(ch)).casefold()


_LATIN_WORD = re.compile(r"[a-z0-9]+")
_JAPANESE = re.compile(r"[\u3005\u3041-\u309f\u30a0-\u30ff\u3400-\u4dbf\u4e00-\u9fff]")
_VARIANTS = {"saint": "st", "st": "saint", "fort": "ft", "ft": "fort", "mount": "mt", "mt": "mount"}
# Single words that are names of places but, written in a post, far more often something else: ordinary words
# (written capitalised at the start of a sentence) and given names / surnames. Multi-word names ("Green Bay",
# "Lake Charles") are not affected.
COMMON_WORDS = frozenset("""
about alliance area ball beach bear bell best bright canyon center central chance christian christmas church
city climax commerce competition corn creek delta democrat early earth east energy english enterprise faith
fireworks forest freedom friend friendship garden gardens golden golf green happy harmony haven heard heights
hill hills home hook hope hurt independence island justice king lake lane lead liberal liberty liking long
love loving loyal luck lucky many market mechanic midway miles mission mountain nails nice normal north ocean
okay opportunity paradise park peace pink plain plus point post rapids reading rich rule sharp slaughter south
spring springs star start story strong success summit sunrise sunset supreme surprise tree trip union
university valley victory village voters wake wall ways weed welcome wells west western white winner wise
worth
alex allen anderson anna anthony bailey baker bernie blaine brady brandon brown bryan bush butler chelsea clinton
cody cole collins cook davis douglas durant franklin fraser freeman george gordon harden harper henry jack
jackson james johnson johnston jones jordan junior justin kelly kramer kyle logan mark martin mason miller
newman perry remy rogers ross russell ryan scott shelby spencer sully taylor thomas tucker tyler vince watson
williams wilson
""".split())
# Japanese words that are also place names but mostly mean something else in a post.
COMMON_WORDS_JA = frozenset({"中央", "国立", "本町", "大和", "日本", "海岸"})
_KANJI = re.compile(r"[\u3005\u3400-\u4dbf\u4e00-\u9fff]")
# A place of a kind not listed (a landmark, an airport terminal, a county, a venue) weighs as a city when it is a
# point and as a state when it is an area: new kinds in the gazetteer file need no change here.
_KIND_FACTOR = {"city": 1.0, "municipality": 1.0, "neighbourhood": 1.0, "station": 1.0, "state": 0.5,
                "prefecture": 0.5, "line": 0.5, "region": 0.5}


def _kind_factor(place: GazetteerPlace) -> float:
    return _KIND_FACTOR.get(place.kind, 0.5 if place.is_area else 1.0)


_SPECIAL = re.compile(r"(?P<url>(?:https?://|www\.)\S+)|(?P<tag>[#＃@＠](?P<body>[^\W_][\w]*))", re.IGNORECASE)
_TEXT_WORD = re.compile(r"[A-Za-z0-9\u00c0-\u024f]+")
_WORD_GAP = re.compile(r"[ .\-'’]{1,3}")
_CAMEL = re.compile(r"[A-Z]+(?![a-z])|[A-Z][a-z]+|[a-z]+|\d+")
_STATE_AFTER_COMMA = re.compile(r"(?<=[A-Za-z.]),[ ]?([A-Z]{2})\b")


@dataclass(frozen=True)
class _Match:
    surface: str
    start: int
    end: int
    name: str  # index key


class GazetteerAttacker(_CellModel):
    """Places named in the raw text, looked up in the gazetteer file with this attacker's own matcher.

    Matching: Latin names of 4 or more letters, whole words, case-insensitively, when written capitalised
    ("Des Moines", "DES MOINES") or inside a hashtag, @mention or URL, where they are written without spaces
    ("#desmoines", "#DesMoinesEats", "#iowastatefair"); a state's two-letter code after a comma ("Watts, OK");
    Japanese names of 2 or more characters anywhere in the text ("横浜", "新宿区"). A one-word name must belong
    to a place of at least ``min_single_word_population`` people and not be a common word or given name.

    A name counts when most of the places it can mean (by population, countries and cities abroad included,
    places inside the grid weighted ``locality`` times: people name what is near) lie inside the grid: "Paris"
    means Paris, France far more often than Paris, Texas; "St. Louis" is Missouri's rather than Senegal's.
    Each counted name spreads over the cells of its places inside the grid by population (a state, prefecture or
    railway line over its member cities or stations, at half weight); a city named with its state
    ("Springfield, IL") keeps that state's candidates. Posts with no counted name get the prior, the cell shares
    of the training posts.
    """

    def __init__(self, n_cells: int, *, grid: Grid, path: Path | str | None = None,
                 places: Sequence[GazetteerPlace] | None = None, min_in_grid_share: float = 0.5,
                 min_single_word_population: int = 10_000, locality: float = 5.0, prior_weight: float = 0.05
                 ) -> None:
        super().__init__(n_cells)
        if grid.n_cells != self.n_cells:
            raise ValueError(f"the grid has {grid.n_cells} cells, not {n_cells}")
        self.grid, self.min_in_grid_share = grid, min_in_grid_share
        self.min_single_word_population, self.prior_weight = min_single_word_population, prior_weight
        self.locality = locality
        self.path = Path(path) if path is not None else GAZETTEER_FILE
        self.places = tuple(places) if places is not None else read_gazetteer(self.path)
        self.prior_ = np.full(self.n_cells, 1.0 / self.n_cells)
        self._build()

    # -- the index -------------------------------------------------------------------------------------------
    def _build(self) -> None:
        self._build_cells()
        self._index_names(*self._name_keys())
        self._resolved: dict[str, tuple[float, np.ndarray, frozenset[str]] | None] = {}

    def _build_cells(self) -> None:
        """Each place's weight and the grid cells it covers (an area: its member places inside the grid)."""
        places = self.places
        self._weight_total = np.zeros(len(places))
        self._cells: list[np.ndarray] = []
        self._cell_weights: list[np.ndarray] = []
        members: dict[str, list[int]] = defaultdict(list)
        for i, place in enumerate(places):
            if not place.is_area and place.kind != "country":
                members[place.admin1].append(i)
                for line in place.lines:
                    members[line].append(i)
        for i, place in enumerate(places):
            own = float(max(place.population, 1000))
            if place.kind == "country":  # never a place inside a city grid: it only tells what is abroad
                cells, weights = np.zeros(0, dtype=np.int64), np.zeros(0)
            elif place.is_area and members.get(place.id):
                found = [(self.grid.cell_of(places[j].lat, places[j].lon), max(places[j].population, 1000))
                         for j in members[place.id]]
                total = sum(w for _, w in found)
                inside = [(c, w) for c, w in found if c is not None]
                own = max(float(place.population), float(total))
                cells = np.array([c for c, _ in inside], dtype=np.int64)
                weights = np.array([w for _, w in inside], dtype=np.float64) * (own / total)
            else:
                cell = self.grid.cell_of(place.lat, place.lon)
                cells = np.array([] if cell is None else [cell], dtype=np.int64)
                weights = np.array([] if cell is None else [own])
            self._weight_total[i] = own
            self._cells.append(cells)
            self._cell_weights.append(weights)

    def _name_keys(self) -> tuple[dict[tuple[str, ...], set[int]], dict[str, set[int]], dict[str, set[int]],
                                  set[str]]:
        """The places of each Latin name (as words), Japanese name and two-letter abbreviation, and the spaceless
        main names."""
        places = self.places
        latin: dict[tuple[str, ...], set[int]] = defaultdict(set)
        japanese: dict[str, set[int]] = defaultdict(set)
        abbreviations: dict[str, set[int]] = defaultdict(set)
        primary: set[str] = set()  # spaceless main names, the only ones looked for inside a longer hashtag
        for i, place in enumerate(places):
            main_latin = None
            for name in place.names:
                name = unicodedata.normalize("NFKC", name).strip()
                if _JAPANESE.search(name):
                    if len(name) >= 2 and name not in COMMON_WORDS_JA:
                        japanese[name].add(i)
                    continue
                words = tuple(_LATIN_WORD.findall(_fold(name)))
                main_latin = main_latin or words
                if not words or len("".join(words)) < 4:
                    continue
                if len(words) == 1 and (
                        words[0] in COMMON_WORDS or words[0].isdigit() or words != main_latin
                        or (not place.is_area and place.population < self.min_single_word_population)):
                    # One-word alternates are mostly transliterations and old names ("Soni" for Shawnee).
                    continue
                latin[words].add(i)
                if words == main_latin and len("".join(words)) >= (4 if place.is_area else 5):
                    primary.add("".join(words))
                if words[0] in _VARIANTS and len(words) > 1:
                    latin[(_VARIANTS[words[0]], *words[1:])].add(i)
            if place.is_area:
                for code in place.abbreviations:
                    if len(code) == 2 and code.isalpha():
                        abbreviations[code.upper()].add(i)
        return latin, japanese, abbreviations, primary

    def _index_names(self, latin: dict[tuple[str, ...], set[int]], japanese: dict[str, set[int]],
                     abbreviations: dict[str, set[int]], primary: set[str]) -> None:
        """Name keys: "l:des moines" (Latin words), "s:desmoines" (Latin, no spaces), "j:横浜" (Japanese) and
        "a:IA" (abbreviations), each with its candidate places."""
        self._candidates: dict[str, tuple[int, ...]] = {}
        self._latin: dict[tuple[str, ...], str] = {}
        self._squashed: dict[str, str] = {}
        for words, found in latin.items():
            key = "l:" + " ".join(words)
            self._candidates[key] = tuple(sorted(found))
            self._latin[words] = key
            squashed = "".join(words)
            other = self._squashed.get(squashed)
            if other is None:
                self._squashed[squashed] = key
            else:  # "Fort Smith" and "Fortsmith": one set of places for the spaceless form
                merged = "s:" + squashed
                self._candidates[merged] = tuple(sorted({*self._candidates[other], *found}))
                self._squashed[squashed] = merged
        self._primary = frozenset(primary)
        self._max_words = max((len(words) for words in latin), default=1)
        self._japanese: dict[str, list[str]] = defaultdict(list)  # first two characters -> names
        for name, found in japanese.items():
            self._candidates["j:" + name] = tuple(sorted(found))
            self._japanese[name[:2]].append(name)
        for names in self._japanese.values():
            names.sort(key=len, reverse=True)
        self._abbreviations = {}
        for code, found in abbreviations.items():
            self._candidates["a:" + code] = tuple(sorted(found))
            self._abbreviations[code] = "a:" + code

    def _resolve(self, key: str, areas: frozenset[str] = frozenset()) -> tuple[float, np.ndarray] | None:
        """(in-grid share, distribution over the cells weighted by kind) of a name key, or None when the name
        does not point inside the grid. With ``areas`` (ids of the states named in the same post), candidates in
        those areas are preferred."""
        candidates = self._candidates.get(key, ())
        if areas:
            preferred = tuple(i for i in candidates if self.places[i].admin1 in areas)
            if any(len(self._cells[i]) for i in preferred):
                candidates = preferred
        total = sum(self._weight_total[i] for i in candidates)
        inside = sum(self._cell_weights[i].sum() for i in candidates)
        if total <= 0 or inside <= 0:
            return None
        share = self.locality * inside / (self.locality * inside + total - inside)
        if share < self.min_in_grid_share:
            return None
        distribution = np.zeros(self.n_cells)
        for i in candidates:
            if len(self._cells[i]):
                np.add.at(distribution, self._cells[i], self._cell_weights[i] * _kind_factor(self.places[i]))
        return share, distribution / inside

    # -- matching --------------------------------------------------------------------------------------------
    def _matches(self, text: str) -> list[_Match]:
        text = unicodedata.normalize("NFKC", text)
        found: list[_Match] = []
        masked = list(text)
        for special in _SPECIAL.finditer(text):
            masked[special.start():special.end()] = " " * (special.end() - special.start())
            if special.group("url"):
                found.extend(self._in_url(special.group("url"), special.start()))
            else:
                found.extend(self._in_tag(special.group("body"), special.start(), special.end(), special.group()))
        masked_text = "".join(masked)
        found.extend(self._in_words(masked_text))
        for code in _STATE_AFTER_COMMA.finditer(masked_text):
            key = self._abbreviations.get(code.group(1))
            if key:
                found.append(_Match(code.group(1), code.start(1), code.end(1), key))
        if self._japanese and _JAPANESE.search(text):
            found.extend(self._in_japanese(text))
        return found

    def _in_words(self, text: str) -> list[_Match]:
        words = list(_TEXT_WORD.finditer(text))
        folded = [_fold(w.group()) for w in words]
        found, i = [], 0
        while i < len(words):
            for n in range(min(self._max_words, len(words) - i), 0, -1):
                if n > 1 and not all(_WORD_GAP.fullmatch(text[words[j].end():words[j + 1].start()])
                                     for j in range(i, i + n - 1)):
                    continue
                key = self._latin.get(tuple(piece for f in folded[i:i + n] for piece in _LATIN_WORD.findall(f)))
                if key and words[i].group()[0].isupper():
                    start, end = words[i].start(), words[i + n - 1].end()
                    found.append(_Match(text[start:end], start, end, key))
                    i += n
                    break
            else:
                i += 1
        return found

    def _squashed_key(self, piece: str) -> str | None:
        return self._squashed.get(piece) if len(piece) >= 4 else None

    def _in_tag(self, body: str, start: int, end: int, written: str = "") -> list[_Match]:
        whole = "".join(_LATIN_WORD.findall(_fold(body)))
        key = self._squashed_key(whole)
        if key:
            return [_Match(written or body, start, end, key)]
        out = []
        parts = _CAMEL.findall(body)
        if len(parts) > 1:  # "#DesMoinesEats", "#visit_little_rock"
            folded, i = [_fold(p) for p in parts], 0
            while i < len(parts):
                for n in range(len(parts) - i, 0, -1):
                    key = self._squashed_key("".join(folded[i:i + n]))
                    if key and not (n == 1 and folded[i] in COMMON_WORDS):
                        out.append(_Match("".join(parts[i:i + n]), start, end, key))
                        i += n
                        break
                else:
                    i += 1
            if out:
                return out
        if whole and (body.islower() or body.isupper()):  # "#iowastatefair", "#visitdesmoines"
            for length in range(len(whole) - 1, 3, -1):
                for piece in (whole[:length], whole[-length:]):
                    key = self._squashed_key(piece) if piece in self._primary else None
                    if key:
                        return [_Match(piece, start, end, key)]
        return out

    def _in_url(self, url: str, start: int) -> list[_Match]:
        if re.match(r"(?:https?://)?t\.co/", url, re.IGNORECASE):  # a shortened link: a random code
            return []
        host, _, path = re.sub(r"^(?:https?://)?(?:www\.)?", "", url, flags=re.IGNORECASE).partition("/")
        out = []
        for segment in re.split(r"[^A-Za-z0-9]+", host)[:-1] + re.split(r"[^A-Za-z0-9]+", path):
            matched = self._in_tag(segment, start, start + len(url)) if segment else []
            out.extend(matched)
        return out

    def _in_japanese(self, text: str) -> list[_Match]:
        found, i = [], 0
        while i < len(text) - 1:
            after_kanji = i > 0 and bool(_KANJI.match(text[i - 1])) and not (found and found[-1].end == i)
            for name in self._japanese.get(text[i:i + 2], ()):
                if len(name) == 2 and name[-1] in "区市町村" and after_kanji:
                    continue  # the tail of a longer name the gazetteer lacks: 港北区 is not 北区
                if text.startswith(name, i):
                    found.append(_Match(name, i, i + len(name), "j:" + name))
                    i += len(name)
                    break
            else:
                i += 1
        return found

    def _resolved_matches(self, text: str) -> list[tuple[_Match, float, np.ndarray]]:
        matches = self._matches(text)
        keys = list(dict.fromkeys(m.name for m in matches))
        areas = frozenset(self.places[i].id for key in keys for i in self._candidates.get(key, ())
                          if self.places[i].is_area and len(self._cells[i]))
        out = []
        for match in matches:
            cache_key = (match.name, areas) if areas else match.name
            resolved = self._resolved.get(cache_key, False)
            if resolved is False:
                resolved = self._resolve(match.name, areas)
                self._resolved[cache_key] = resolved
            if resolved is not None:
                out.append((match, *resolved))
        return out

    # -- the attacker's interface ------------------------------------------------------------------------------
    def fit(self, texts: Sequence[str], cells: np.ndarray) -> GazetteerAttacker:
        """Learns only the prior: the share of the training posts in each cell."""
        self._fit_prior(cells)
        return self

    def predict_proba(self, texts: Sequence[str]) -> np.ndarray:
        out = np.zeros((len(texts), self.n_cells))
        for row, text in enumerate(texts):
            scores = self.prior_weight * self.prior_
            seen = set()
            for match, share, distribution in self._resolved_matches(text):
                if match.name not in seen:  # a name written twice counts once
                    seen.add(match.name)
                    scores = scores + share * distribution
            out[row] = scores / scores.sum()
        return out

    def mentions_in_grid(self, text: str) -> list[str]:
        """The place names in ``text`` that point inside the grid, as written, each once."""
        return list(dict.fromkeys(match.surface for match, _, _ in self._resolved_matches(text)))
