"""Deletion units on top of morphemes: place mentions, hashtags, @mentions, URLs and contractions (no Django here).

The paper deletes morphemes; a reader does not read morphemes. "Des Moines" minus "Des" still names the city,
"don't" minus "do" leaves "n't", and a hashtag the model never saw is still read. So the tokenizer (with
``TokenizerSettings.units``) hands the models and the search *units*: what a reader sees as one thing is
deleted, masked or generalized as one thing, and is one feature of its own.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Callable, Mapping, Sequence
from functools import lru_cache
from itertools import pairwise

from anonymizer.location.classifier import JA_PART_SEPARATOR, JA_UNIT_PREFIX, UNIT_JOINER, unit_parts
from anonymizer.location.tokens import Token, norm_of

# A unit's norm carries its parts (classifier.unit_parts reads them back): "地:品川|区", "Des_Moines".
JA_PLACE_PREFIX = JA_UNIT_PREFIX
# Japanese: suffixes that make the noun before them (or a run of place names) an address, a station or a line.
JA_PLACE_SUFFIXES = frozenset(
    "区 市 町 村 都 道 府 県 郡 駅 駅前 丁目 番地 番 号 通り 通 街道 線 口 東口 西口 南口 北口 中央口 改札 本線 沿線 "
    "インター IC 橋 坂 公園 前".split())
# After a proper noun, these make it a road (明治通り, 川越街道).
JA_ROAD_WORDS = frozenset("通り 通 大通り 街道 道路 バイパス".split())
# Suffixes strong enough to make any noun before them a place ("綱島" is tagged a person's name; "綱島駅" is not).
JA_STRONG_SUFFIXES = frozenset("区 市 町 村 郡 駅 丁目 線 東口 西口 南口 北口 中央口".split())
# Gazetteer kinds whose names make a common noun (or a run of them) a place: stations, railway lines and roads
# (kind "line"), and landmarks (皇居, 国技館, スカイツリー). Airport terminals (kind "terminal": T1, 第2ターミナル) are
# not: they are places only beside an airport cue (see tokenize._JA_TERMINAL_RE).
JA_NAMED_KINDS = frozenset({"station", "line", "landmark"})
# A number is part of an address only before one of these.
JA_NUMBER_COUNTERS = frozenset("丁目 番地 番 号".split())
# English words too common to be read as a place when capitalised alone ("Mobile", "Normal", "Independence").
COMMON_WORD_FREQUENCY = 3000
# A run-together handle is read as naming a place it starts with only for a city this big, or a state.
RUN_TOGETHER_POPULATION = 100_000
_MEMO_SIZE = 200_000  # names remembered as known or not, per process, before the memo starts over
_CONTRACTION_RE = re.compile(r"^(?:n['\u2019]t|['\u2019](?:s|re|ll|ve|m|d|t))$", re.IGNORECASE)
_HASHTAG_WORDS_RE = re.compile(r"[A-Z]?[a-z]+|[A-Z]+(?![a-z])|\d+|[^\W\d_A-Za-z]+")
_URL_HOST_RE = re.compile(r"^(?:https?://)?(?:www\.)?([^/?#\s]+)", re.IGNORECASE)
_ALNUM_RE = re.compile(r"[^\W_]")


def hashtag_norm(tag: str) -> str:
    """"#NorthLittleRock" -> "#north_little_rock": camel case and digits split (a reader splits them too)."""
    body = unicodedata.normalize("NFKC", tag[1:])
    words = _HASHTAG_WORDS_RE.findall(body) or [body]
    return "#" + UNIT_JOINER.join(words).lower()


def noise_token(text: str, start: int, end: int, kind: str) -> Token:
    """A hashtag, mention or URL as one deletable unit."""
    piece = text[start:end]
    if kind == "hashtag":
        norm = hashtag_norm(piece)
    elif kind == "mention":
        norm = "@" + unicodedata.normalize("NFKC", piece[1:]).lower()
    else:
        match = _URL_HOST_RE.match(piece)
        norm = "url:" + (match.group(1).lower() if match else "")
    return Token(piece, start, end, norm, True, kind)


def merge_contractions(tokens: list[Token], text: str) -> list[Token]:
    """spaCy splits "don't" into "do" + "n't"; a reader sees one word, and deleting half of it leaves debris.
    A place's possessive joins the place unit and keeps its norm ("Oklahoma's" is Oklahoma); run it after the
    places are marked."""
    out: list[Token] = []
    for token in tokens:
        if not out or out[-1].end != token.start or not _CONTRACTION_RE.match(token.text):
            out.append(token)
        elif out[-1].kind == "place" and token.text[1:].lower() == "s":
            place = out.pop()
            out.append(Token(text[place.start:token.end], place.start, token.end, place.norm, True, "place"))
        elif out[-1].kind == "word":
            previous = out.pop()
            merged = text[previous.start:token.end]
            out.append(Token(merged, previous.start, token.end, previous.norm + token.norm,
                             previous.deletable or token.deletable))
        else:
            out.append(token)
    return out


@lru_cache(maxsize=1)
def _common_words():
    from spellchecker import SpellChecker

    return SpellChecker(language="en", distance=1).word_frequency


def _is_common_word(word: str) -> bool:
    return _common_words()[word.lower()] >= COMMON_WORD_FREQUENCY


def is_common_word(word: str) -> bool:
    """Whether an English word is too common to be read as a place alone ("mobile", "normal", "march")."""
    return _is_common_word(word)




# A USGS stream gauge's site number (8 to 15 digits) after "USGS": "USGS08178980". It names one spot on a river
# that a reader finds in seconds, but it cannot be placed offline (the site list is not shipped): the place scorer
# treats it as a place inside the grid whose whereabouts it does not know (see place_scorer.is_gauge).
GAUGE_RE = re.compile(r"^USGS_?(\d{8,15})$", re.IGNORECASE)
# An airport's ICAO or IATA code ("KDSM", "DSM") is a place only in a post about weather or flying: elsewhere
# three capitals are an abbreviation far more often.
_AIRPORT_CODE_RE = re.compile(r"^[A-Z]{3,4}$")
_CODE_CONTEXT_RE = re.compile(
    r"\b(?:flights?|flying|flew|fly|landed|landing|takeoff|airport|airports|layover|gate|departing|departure|"
    r"arriving|arrival|boarding|delayed|delays?|TSA|METAR|TAF|SPECI|ASOS|AWOS|NWS|wx|weather|temps?|winds?|gusts?|"
    r"visibility|ceiling|dew ?point|humidity|precip|rain|snow|storm|hail|tornado|forecast|mph|knots)\b"
    r"|\b\d{6}Z\b|\b\d{5}(?:G\d{2,3})?KT\b|°F|✈", re.IGNORECASE)


_COMPASS = frozenset("N NNE NE ENE E ESE SE SSE S SSW SW WSW W WNW NW NNW".split())


def _after_bearing(previous: Sequence[Token]) -> bool:
    """Whether the tokens so far end in a distance and bearing: "5 miles WNW of", "3 E", "12 mi SW of"."""
    words = [t.text for t in previous[-4:]]
    if words and words[-1] == "of":
        words = words[:-1]
    if len(words) < 2 or words[-1] not in _COMPASS:
        return False
    before = words[:-1]
    if before and before[-1].lower() in ("mi", "miles", "mile", "km"):
        before = before[:-1]
    return bool(before) and before[-1].replace(".", "", 1).isdigit()


def _dotless(word: str) -> str:
    return word.replace(".", "")


def _title(surface: str) -> str:
    """"des moines" -> "Des_Moines": a capital marks an English place unit's feature."""
    words = unicodedata.normalize("NFKC", surface).split()
    return UNIT_JOINER.join(word[:1].upper() + word[1:].lower() for word in words)


class EnglishPlaces:
    """Marks English place mentions: multi-word gazetteer names in any case, one capitalised word that the
    gazetteer knows and that is not a common word, and a state code after a comma ("Lincoln, NE")."""

    def __init__(self) -> None:
        from anonymizer.recognize.gazetteer import Gazetteer

        self.gazetteer = Gazetteer.load()
        self.by_first: dict[str, set[tuple[str, ...]]] = {}
        for words in self.gazetteer.multiword_names():
            # Without dots, as a post writes them: "St Charles" and "ST. CHARLES" are GeoNames' "St. Charles".
            dotless = tuple(word for word in map(_dotless, words) if word)
            if len(dotless) > 1:
                self.by_first.setdefault(dotless[0], set()).add(dotless)
        self.longest = max((len(w) for w in self.gazetteer.multiword_names()), default=1)
        self._known: dict[str, bool] = {}
        self._stations: dict[str, bool] = {}

    def _too_long(self, name: str) -> bool:
        # Longer than any name the gazetteer knows: not looked up, and not remembered (the memos stay small
        # whatever posts are sent).
        return len(name) > self.gazetteer.longest_name_at(name, 0)

    def _remember(self, memo: dict[str, bool], name: str, found: bool) -> bool:
        if len(memo) > _MEMO_SIZE:
            memo.clear()
        memo[name] = found
        return found

    def known(self, word: str) -> bool:
        found = self._known.get(word)
        if found is None:
            if self._too_long(word):
                return False
            found = self._remember(self._known, word,
                                   bool(self.gazetteer.resolve(word)) and not _is_common_word(word))
        return found

    def run_together(self, word: str) -> str | None:
        """The big place a run-together handle starts with ("omahakungfuacademy" -> "omaha", "desmoinesfood"
        -> "des moines"): a reader sees it. Only words of 9 or more lower-case letters that are not words of
        the dictionary, and places of at least RUN_TOGETHER_POPULATION people or states."""
        if len(word) < 9 or not word.isascii() or not word.isalpha() or not word.islower() \
                or _common_words()[word] > 0:
            return None
        for length in range(min(len(word) - 3, 16), 4 - 1, -1):
            head = word[:length]
            for place in self.gazetteer.resolve(head):
                if place.kind == "state" or (place.kind == "city" and place.population >= RUN_TOGETHER_POPULATION):
                    return place.name
        return None

    def known_japanese(self, name: str) -> bool:
        """Whether a Japanese proper noun (two characters or more) is a place the gazetteer knows."""
        found = self._known.get(name)
        if found is None:
            if self._too_long(name):
                return False
            found = self._remember(self._known, name, len(name) >= 2 and bool(self.gazetteer.resolve(name)))
        return found

    def known_station(self, name: str) -> bool:
        """Whether a word UniDic reads as a common noun is a station's, railway line's, road's or landmark's name
        (新橋, 目白, 両国, 田園都市線, 外環道, 皇居, スカイツリー), or a town's of three characters or more (上小田中).
        The gazetteer leaves out the names that are ordinary words first (公園, 日の出, 王子, 場外): those count
        only as 〜駅, or inside a longer name (築地場外)."""
        found = self._stations.get(name)
        if found is None:
            if self._too_long(name):
                return False
            found = self._remember(self._stations, name, len(name) >= 2 and any(
                p.kind in JA_NAMED_KINDS or (p.kind == "neighbourhood" and len(name) >= 3)
                for p in self.gazetteer.resolve(name)))
        return found

    def mark(self, tokens: list[Token], text: str) -> list[Token]:
        out: list[Token] = []
        codes_are_places: bool | None = None  # whether the post is about weather or flying; asked once, if at all
        i = 0
        while i < len(tokens):
            token = tokens[i]
            merged = self._multiword(tokens, i, text)
            if merged is not None:
                length, unit = merged
                out.append(unit)
                i += length
                continue
            word = token.text
            if token.kind == "word" and word[:1].isupper() and len(word) >= 3 and word.replace(".", "").isalpha() \
                    and self.known(word):
                out.append(Token(word, token.start, token.end, _title(word), True, "place"))
            elif (token.kind == "word" and len(word) == 2 and word.isupper() and out and out[-1].text == ","
                  and self.gazetteer.resolve_abbreviation(word)):
                out.append(Token(word, token.start, token.end, word, True, "place"))
            elif token.kind == "word" and word.isupper() and len(word) >= 3 and _after_bearing(out) \
                    and self.gazetteer.resolve(word):
                # "5 miles WNW of BELLS", "3 E ARNOLD": a weather report's bearing names a place in capitals.
                out.append(Token(word, token.start, token.end, _title(word), True, "place"))
            elif token.kind == "word" and GAUGE_RE.match(word):
                out.append(Token(word, token.start, token.end, "USGS" + GAUGE_RE.match(word).group(1), True,
                                 "place"))
            elif token.kind == "word" and _AIRPORT_CODE_RE.match(word) and self.gazetteer.resolve_code(word) and (
                    codes_are_places := (codes_are_places if codes_are_places is not None
                                         else bool(_CODE_CONTEXT_RE.search(text)))):
                out.append(Token(word, token.start, token.end, word, True, "place"))
            elif token.kind == "word" and (place := self.run_together(word)) is not None:
                out.append(Token(word, token.start, token.end, _title(place), True, "place"))
            else:
                out.append(token)
            i += 1
        return out

    def _multiword(self, tokens: Sequence[Token], i: int, text: str) -> tuple[int, Token] | None:
        candidates = self.by_first.get(_dotless(tokens[i].text.casefold()))
        if not candidates or tokens[i].kind != "word":
            return None
        for length in range(min(self.longest, len(tokens) - i), 1, -1):
            span = tokens[i:i + length]
            if any(t.kind != "word" for t in span) or any(text[a.end:b.start] != " "
                                                          for a, b in pairwise(span)):
                continue
            if tuple(_dotless(t.text.casefold()) for t in span) in candidates:
                start, end = span[0].start, span[-1].end
                return length, Token(text[start:end], start, end, _title(text[start:end]), True, "place")
        return None


# -- venues and landmarks -----------------------------------------------------------------------------------------
# A venue or landmark is where the post was written as plainly as a city is, and a reader with a search engine
# finds it even where no gazetteer lists it: such a unit has kind "venue" and, in automatic mode with
# places="all", is always deleted (see LocationModel.deidentify).
#
# Check-in services write the venue in a fixed shape: Foursquare "I'm at VENUE in CITY, ST https://…",
# Instagram "… @ VENUE https://t.co/…", Untappd "… @ VENUE — https://…", and the Japanese corpus's Foursquare
# posts "… (錦糸町駅 (Kinshicho Sta.)) [pic]:" (a bracket at the very end, after a space).
_LINKS_TO_END = r"\s*(?:(?:https?://|www\.)\S+\s*)*$"
# Foursquare always ends with its link; "I'm at the meeting where …" without one is a person's sentence. Read
# with string operations, not one pattern: a pattern with a lazy venue, an optional " in …" and " w/ …" takes
# cubic time on a long post that repeats "I'm at A in B w/ C" (4 s on 1,856 characters).
_FOURSQUARE_AT_RE = re.compile(r"\bI['’]m at ")
_TRAILING_LINKS_RE = re.compile(r"(?:\s+(?:https?://|www\.)\S+)+\s*$")
_IN_PLACE_RE = re.compile(r" in (?=[A-Z])")
_INSTAGRAM_RE = re.compile(r"(?:^|\s)@ (?P<venue>[A-Z0-9][^@\n]{1,80}?)\s*(?:https?://\S+\s*)+$")
# Untappd: "Drinking a Golden Frau by Thunderhead Brewing Company @ angelic nails — https://…"
_UNTAPPD_RE = re.compile(r"\bDrinking an? .{1,120}? @ (?P<venue>[^@\n—]{2,80}?)\s*—")
_TRAILING_BRACKET_RE = re.compile(
    r"(?<=\s)(?P<venue>[(（](?:[^()（）\n]|[(（][^()（）\n]*[)）])+[)）])(?=\s*(?:\[pic\]|\[photo\])?\s*[:：]?"
    + _LINKS_TO_END + ")")
# A venue names something: two letters in a row of kanji, katakana or Latin script (not a kaomoji, "(笑)" or a
# hiragana aside "(なんてね)"), and no emoji ("@ Jesus 😭").
_VENUE_LETTERS_RE = re.compile(r"[A-Za-z\u00c0-\u024f\u30a1-\u30fa\u30fc\u3005\u4e00-\u9fff]{2}")
# English facility names: Title-case words before one of these ("East Towne Mall", "Tims Ford State Park").
EN_FACILITY_HEADS = frozenset("""
AFB Academy Airport Amphitheater Amphitheatre Aquarium Arboretum Arena Ballpark Basilica Brewery Campground Campus
Capitol Casino Cathedral Cemetery Center Centre Church Coliseum College Colosseum Courthouse Elevator Fairgrounds
Field Gardens Hospital Library Mall Marina Museum Observatory Park Pavilion Plaza Raceway Ranch Speedway Square
Stadium Lake Beach Falls River Island Creek Vineyard Vineyards Winery Resort Hotel Inn Lodge Club
Temple Theater Theatre University Zoo
""".split())
# Title-case words that start a sentence or a phrase far more often than they name a venue's first word.
EN_FACILITY_STOPWORDS = frozenset("""
A An And At By For From Go Going Here I In Is It Its Just My Of On Our Out Posted The This To We What When Where
Who With Your Happy Great Good New Old Big Little Best Last Next Watch Welcome Visit Love Come See Check Join
Visiting Leaving Heading Headed Watching Getting Walking Driving Enjoying Celebrating Back Finally Today Tonight
Day Night Morning Evening Weekend
""".split())
# What a venue's own words do not start with: the stop-words, and "St." / "&" (kept only inside a name).
_FACILITY_LEADING_WORDS = EN_FACILITY_STOPWORDS | {"St.", "&"}
# Japanese: a run of nouns with a proper noun in it, ending in one of these, is a landmark (東京タワー, 新宿御苑,
# 羽田空港, 古賀政男音楽博物館, 六本木ヒルズ, 明治神宮).
JA_FACILITY_ENDINGS = (
    "博物館", "美術館", "記念館", "会館", "図書館", "庭園", "離宮", "体育館", "水族館", "動物園", "植物園", "遊園地",
    "公会堂", "劇場",
    "ホール", "タワー", "ドーム", "ヒルズ", "御苑", "神社", "神宮", "大社", "寺", "院", "教会", "大学", "病院", "空港",
    "学校", "小学校", "中学校", "高校", "高等学校", "学園", "幼稚園", "保育園",
    "スタジアム", "競技場", "球場", "アリーナ", "ランド", "シー", "サイト", "城", "庁", "霊園", "モール",
    "センター", "プラザ", "アウトレット", "ガーデン", "パーク", "公園")


JA_KATAKANA_FACILITIES = tuple(e for e in JA_FACILITY_ENDINGS if all("\u30a0" <= c <= "\u30ff" for c in e))
_KATAKANA_NAME_RE = re.compile(r"[\u30a1-\u30fa\u30fc]{6,}")


def _foursquare_venue(text: str) -> tuple[int, int] | None:
    """The venue of "I'm at VENUE [in WHERE] [w/ FRIENDS] LINK…" (the last "I'm at" before the closing links):
    what follows "I'm at" up to " w/ " and to the last " in " before a capital ("Play in the Park in Ames, IA")."""
    links = _TRAILING_LINKS_RE.search(text)
    if links is None:
        return None
    at = next(reversed(list(_FOURSQUARE_AT_RE.finditer(text, 0, links.start()))), None)
    if at is None:
        return None
    segment = text[at.end():links.start()]
    if "\n" in segment:
        return None
    segment = segment.split(" w/ ", 1)[0]
    where = next(reversed(list(_IN_PLACE_RE.finditer(segment))), None)
    venue = segment[: where.start() if where is not None else len(segment)]
    start = at.end() + (len(venue) - len(venue.lstrip()))
    end = at.end() + len(venue.rstrip())
    return (start, end) if end > start else None


def venue_spans(text: str, language: str) -> list[tuple[int, int]]:
    """Character spans of check-in venues: Foursquare's "I'm at …", Instagram's "@ …" before the link,
    Untappd's "@ … —", and (Japanese posts) a bracketed venue at the very end."""
    found: list[tuple[int, int]] = []
    spans = [_foursquare_venue(text)]
    for pattern in (_INSTAGRAM_RE, _UNTAPPD_RE, *((_TRAILING_BRACKET_RE,) if language == "ja" else ())):
        match = pattern.search(text)
        spans.append(match.span("venue") if match else None)
    for span in spans:
        if span is None:
            continue
        start, end = span
        venue = text[start:end]
        if _VENUE_LETTERS_RE.search(venue) and not any(unicodedata.category(c) == "So" for c in venue):
            found.append((start, end))
    found.sort()
    out: list[tuple[int, int]] = []
    for start, end in found:  # overlapping shapes ("I'm at … @ …"): one span
        if out and start < out[-1][1]:
            out[-1] = (out[-1][0], max(end, out[-1][1]))
        else:
            out.append((start, end))
    return out


def _venue_norm(tokens: Sequence[Token], language: str) -> str:
    """A venue unit's feature form, carrying its words as parts (unit_parts): "Tims_Ford_State_Park",
    "地:錦糸町|駅|kinshicho|sta"."""
    words: list[str] = []
    for token in tokens:
        parts = unit_parts(token.norm) if token.kind != "word" else []
        pieces = parts or [token.norm]
        words.extend(p for p in pieces if _ALNUM_RE.search(p) and p[:1] not in "@#" and not p.startswith("url:"))
    if not words:
        words = [t.norm for t in tokens]
    if language == "ja":
        return JA_PLACE_PREFIX + JA_PART_SEPARATOR.join(w.lower() if w.isascii() else w for w in words)
    return UNIT_JOINER.join(w[:1].upper() + w[1:].lower() for w in words)


def merge_venues(tokens: list[Token], text: str, spans: Sequence[tuple[int, int]], language: str) -> list[Token]:
    """The tokens inside each venue span become one "venue" unit (a span that cuts a token grows to hold it)."""
    if not spans:
        return tokens
    out: list[Token] = []
    i, n = 0, len(tokens)
    for span_start, span_end in spans:
        while i < n and tokens[i].end <= span_start:
            out.append(tokens[i])
            i += 1
        j = i
        while j < n and tokens[j].start < span_end:
            j += 1
        inside = tokens[i:j]
        if not inside:
            continue
        # Nothing but places and punctuation ("@ Dubuque, Iowa"): they stay places, a coarser one can replace them.
        # No word at all ("I'm at @user in …"): the mention stays a mention.
        if all(t.kind == "place" or not _ALNUM_RE.search(t.text) for t in inside) or not any(
                t.kind in ("word", "venue") for t in inside):
            out.extend(inside)
        else:
            start, end = inside[0].start, inside[-1].end
            out.append(Token(text[start:end], start, end, _venue_norm(inside, language), True, "venue"))
        i = j
    out.extend(tokens[i:])
    return out


def _title_word(word: str) -> bool:
    return len(word) >= 2 and word[0].isupper() and any(c.islower() for c in word[1:]) and word.replace(
        "'", "").replace("’", "").replace(".", "").replace("-", "").isalpha()


# Lower-case hashtags written as one word ("#burtlake", "#starviewvineyards") are read by their ending.
_LOWER_FACILITY_RE = re.compile(
    "[a-z]{3,}(?:" + "|".join(sorted((h.lower() for h in EN_FACILITY_HEADS if len(h) >= 4), key=len, reverse=True))
    + ")")
_LOWER_NOT_A_NAME = ("the", "my", "our", "this", "love", "best", "at", "in", "on", "go", "day", "summer", "fun")


def hashtag_venues(tokens: list[Token]) -> list[Token]:
    """A hashtag that names a facility ("#SouthforkRanch", "#OffuttAFB", "#JordanCreekTownCenter", "#burtlake")
    is a venue."""
    out = []
    for token in tokens:
        if token.kind == "hashtag":
            body = unicodedata.normalize("NFKC", token.text[1:])
            words = _HASHTAG_WORDS_RE.findall(body)
            named = len(words) >= 2 and words[-1] in EN_FACILITY_HEADS and words[0] not in EN_FACILITY_STOPWORDS
            if not named and body.islower() and _LOWER_FACILITY_RE.fullmatch(body):
                named = not body.startswith(_LOWER_NOT_A_NAME) and _common_words()[body] == 0
            if named:
                token = Token(token.text, token.start, token.end, token.norm, True, "venue")
        out.append(token)
    return out


def mark_english_facilities(tokens: list[Token], text: str) -> list[Token]:
    """Title-case words before a facility word become one "venue" unit ("Jordan Creek Town Center", "Des Moines
    Art Center"): a reader looks a named park, mall or stadium up as easily as a town."""
    out: list[Token] = []
    for token in tokens:
        # The head may end a gazetteer place ("Gray's Lake Park": "Lake Park" is a town in Iowa).
        if token.kind in ("word", "place") and token.text.split()[-1] in EN_FACILITY_HEADS and out:
            k = len(out)
            while k > 0:
                previous = out[k - 1]
                gap = text[previous.end:(out[k].start if k < len(out) else token.start)]
                if gap != " " or previous.kind not in ("word", "place", "venue"):  # "Jordan Creek" + "Town Center"
                    break
                if previous.kind == "word" and not _title_word(previous.text) and previous.text not in ("St.", "&"):
                    break
                k -= 1
            # The venue's own words start after any sentence-opening or phrase word ("Visit Gray's Lake Park").
            while k < len(out) and out[k].kind == "word" and out[k].text in _FACILITY_LEADING_WORDS:
                k += 1
            if k < len(out):
                inside = [*out[k:], token]
                start = inside[0].start
                del out[k:]
                out.append(Token(text[start:token.end], start, token.end, _venue_norm(inside, "en"), True, "venue"))
                continue
        out.append(token)
    return out


def merge_japanese_facilities(tokens: list[Token], tags: Mapping[int, tuple[str, str, str]], text: str
                              ) -> list[Token]:
    """Run after the places are merged. A run of nouns with a proper noun (or a place unit) in it that ends in a
    facility word becomes one "venue" unit: 東京|タワー, 羽田|空港, 古賀|政男|音楽|博物|館. Runs without a proper
    noun (首相官邸, 武道館) stay words. ``tags`` maps a morpheme's start offset to its (pos1, pos2, pos3)."""
    n = len(tokens)

    def tag(k: int) -> tuple[str, str, str]:
        return ("名詞", "固有名詞", "地名") if tokens[k].kind == "place" else tags.get(tokens[k].start, ("", "", ""))

    def noun(k: int) -> bool:  # 松沢|小|学校: the prefix 小 belongs to the run
        return tokens[k].kind in ("word", "place") and tag(k)[0] in ("名詞", "接尾辞", "接頭辞") and tag(k)[1] != "数詞"

    def facility_end(i: int, e: int) -> bool:  # tokens i..e-1 end in a facility word, on a morpheme boundary
        last = tokens[e - 1].text
        return last in JA_FACILITY_ENDINGS or (e - 2 >= i and tokens[e - 2].text + last in JA_FACILITY_ENDINGS)

    # One long katakana word MeCab does not know, ending in a facility word, is a name: アークヒルズフロントタワー.
    tokens = [Token(t.text, t.start, t.end, _venue_norm([t], "ja"), True, "venue")
              if t.kind == "word" and _KATAKANA_NAME_RE.fullmatch(t.text)
              and any(t.text.endswith(e) and len(t.text) - len(e) >= 3 for e in JA_KATAKANA_FACILITIES) else t
              for t in tokens]
    out: list[Token] = []
    i = 0
    while i < n:
        if not noun(i):
            out.append(tokens[i])
            i += 1
            continue
        j = i + 1
        while j < n and noun(j) and tokens[j].start == tokens[j - 1].end:
            j += 1
        # The longest stretch from the run's first proper noun that ends in a facility word.
        proper = [k for k in range(i, j) if tag(k)[1] == "固有名詞"]
        for e in range(j, i + 1, -1):
            first = next((k for k in proper if k < e - 1), None)
            if first is not None and facility_end(first, e) and tokens[e - 1].kind == "word":
                out.extend(tokens[i:first])
                begin, end = tokens[first].start, tokens[e - 1].end
                out.append(Token(text[begin:end], begin, end, _venue_norm(tokens[first:e], "ja"), True, "venue"))
                out.extend(tokens[e:j])
                break
        else:
            out.extend(tokens[i:j])
        i = j
    return out


# UniDic splits some station and line names into ordinary morphemes (後楽|園, 表|参道, 田園|都市|線): runs of up
# to this many.
JA_STATION_RUN = 4


def _merge_station_runs(tokens: list[Token], tags: list[tuple[str, str, str]], text: str,
                        known_station: Callable[[str], bool]) -> tuple[list[Token], list[tuple[str, str, str]]]:
    """Adjacent morphemes that together spell a station's or a line's name (or a town's, see known_station)
    become one place-name morpheme. MeCab sometimes cuts inside the name (浜松|町着, 上|小田|中１): a morpheme
    that a known name of three or more characters ends inside is split there first."""
    tokens, tags = _split_at_known_names(tokens, tags, text, known_station)
    out: list[Token] = []
    out_tags: list[tuple[str, str, str]] = []
    i, n = 0, len(tokens)
    while i < n:
        for length in range(min(JA_STATION_RUN, n - i), 1, -1):
            span = tokens[i:i + length]
            # Any morphemes but symbols (鷺|ノ|宮): only a known name's exact spelling is merged.
            if any(t.kind != "word" or tags[i + k][0] in ("補助記号", "空白")
                   for k, t in enumerate(span)) or any(a.end != b.start for a, b in pairwise(span)):
                continue
            name = text[span[0].start:span[-1].end]
            if span[-1].text != "駅" and known_station(name):  # 駅 stays a suffix part: 地:後楽園|駅
                out.append(Token(name, span[0].start, span[-1].end, norm_of(name, False), True))
                out_tags.append(("名詞", "固有名詞", "地名"))
                i += length
                break
        else:
            out.append(tokens[i])
            out_tags.append(tags[i])
            i += 1
    return out, out_tags


def _split_at_known_names(tokens: list[Token], tags: list[tuple[str, str, str]], text: str,
                          known_station: Callable[[str], bool]) -> tuple[list[Token], list[tuple[str, str, str]]]:
    tokens, tags = list(tokens), list(tags)
    i = 0
    while i < len(tokens) - 1:
        if tokens[i].kind != "word" or tags[i][0] != "名詞":
            i += 1
            continue
        start = tokens[i].start
        for j in range(i + 1, min(i + JA_STATION_RUN, len(tokens))):
            if tokens[j].kind != "word" or tokens[j].start != tokens[j - 1].end:
                break
            cut = next((p for p in range(tokens[j].end - 1, tokens[j].start, -1)
                        if p - start >= 3 and known_station(text[start:p])), None)
            if cut is not None:
                whole = tokens[j]
                head = Token(text[whole.start:cut], whole.start, cut, norm_of(text[whole.start:cut], False), True)
                tail_text = text[cut:whole.end]
                tail = Token(tail_text, cut, whole.end, norm_of(tail_text, False),
                             _ALNUM_RE.search(tail_text) is not None)
                tokens[j:j + 1] = [head, tail]
                tags[j:j + 1] = [tags[j], tags[j]]
                break
        i += 1
    return tokens, tags


# Written right after a word, these make it a place being passed, reached or stood at.
JA_PLACE_CUES = frozenset("通過 着 到着 なう 付近 周辺 界隈 駅前 方面 下車 乗り換え".split())

# After a proper noun, these make it a person (中野さん), not a place.
JA_HONORIFICS = frozenset("さん 君 くん 様 さま 氏 ちゃん 先生 選手".split())


def merge_japanese_places(tokens: list[Token], tags: list[tuple[str, str, str]], text: str,
                          known: Callable[[str], bool] = lambda name: False,
                          known_station: Callable[[str], bool] = lambda name: False) -> list[Token]:
    """Runs of place names, address suffixes and address numbers become one unit: 品川|区|上大崎|３|丁目 ->
    品川区上大崎３丁目, 横浜|市|港北|区|綱島|駅 -> 横浜市港北区綱島駅. ``tags[i]`` is token i's (pos1, pos2, pos3).
    A place name is a 固有名詞-地名, or any proper noun the gazetteer ``known``s that is not followed by an
    honorific (大森 and 中野 are tagged as surnames; a reader of 大森通過 reads a place), or a common noun that
    ``known_station`` says is a station's name (新橋 is tagged a common noun: a bridge)."""
    tokens, tags = _merge_station_runs(tokens, tags, text, known_station)
    n = len(tokens)

    def place_name(i: int) -> bool:
        if tags[i][1] == "普通名詞":
            if i + 1 < n and tokens[i + 1].text in JA_PLACE_CUES and tokens[i + 1].start == tokens[i].end:
                # 大門通過, 公園なう: a station whose name is an ordinary word, written where a place goes.
                return known_station(tokens[i].text + "駅") or known_station(tokens[i].text)
            return (i + 1 >= n or tokens[i + 1].text not in JA_HONORIFICS) and known_station(tokens[i].text)
        if tags[i][1] != "固有名詞":
            return False
        if tags[i][2] == "地名":
            return True
        return (i + 1 >= n or tokens[i + 1].text not in JA_HONORIFICS) and known(tokens[i].text)

    def suffix(i: int) -> bool:
        return tokens[i].text in JA_PLACE_SUFFIXES

    def starts_place(i: int) -> bool:
        # A place name, a noun right before a strong suffix (綱島 + 駅, 山手 + 線), or a proper noun before a
        # road's word (明治 + 通り, 甲州 + 街道).
        if i + 1 >= n or tokens[i + 1].start != tokens[i].end:
            return place_name(i)
        after = tokens[i + 1].text
        return place_name(i) or (tags[i][0] == "名詞" and tags[i][1] != "数詞" and after in JA_STRONG_SUFFIXES) or (
            tags[i][1] == "固有名詞" and after in JA_ROAD_WORDS)

    out: list[Token] = []
    i = 0
    while i < n:
        if tokens[i].kind != "word" or not starts_place(i):
            out.append(tokens[i])
            i += 1
            continue
        j = i + 1
        while j < n and tokens[j].start == tokens[j - 1].end and tokens[j].kind == "word":
            if place_name(j) or suffix(j) or starts_place(j):
                j += 1
            elif tags[j][1] == "数詞" or tokens[j].text.isdigit():
                k = j
                while (k < n and (tags[k][1] == "数詞" or tokens[k].text.isdigit())
                       and tokens[k].start == tokens[k - 1].end):
                    k += 1
                if k < n and tokens[k].text in JA_NUMBER_COUNTERS and tokens[k].start == tokens[k - 1].end:
                    j = k + 1
                else:
                    break
            else:
                break
        start, end = tokens[i].start, tokens[j - 1].end
        piece = text[start:end]
        # The prefix keeps a place unit's feature apart from the same characters as a common word (海岸, 中央).
        parts = JA_PART_SEPARATOR.join(norm_of(t.text, False) for t in tokens[i:j])
        out.append(Token(piece, start, end, JA_PLACE_PREFIX + parts, True, "place"))
        i = j
    return out
