"""Deletion units on top of morphemes: place mentions, hashtags, @mentions, URLs and contractions (no Django here).

The paper deletes morphemes; a reader does not read morphemes. "Des Moines" minus "Des" still names the city,
"don't" minus "do" leaves "n't", and a hashtag the model never saw is still read. So the tokenizer (with
``TokenizerSettings.units``) hands the models and the search *units*: what a reader sees as one thing is
deleted, masked or generalized as one thing, and is one feature of its own.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Callable, Sequence
from functools import lru_cache
from itertools import pairwise

from anonymizer.location.classifier import JA_PART_SEPARATOR, JA_UNIT_PREFIX, UNIT_JOINER
from anonymizer.location.tokenize import Token, norm_of

# A unit's norm carries its parts (classifier.unit_parts reads them back): "地:品川|区", "Des_Moines".
JA_PLACE_PREFIX = JA_UNIT_PREFIX
# Japanese: suffixes that make the noun before them (or a run of place names) an address, a station or a line.
JA_PLACE_SUFFIXES = frozenset(
    "区 市 町 村 都 道 府 県 郡 駅 駅前 丁目 番地 番 号 通り 通 線 口 東口 西口 南口 北口 中央口 改札 本線 沿線 "
    "インター IC 橋 坂 公園 前".split())
# Suffixes strong enough to make any noun before them a place ("綱島" is tagged a person's name; "綱島駅" is not).
JA_STRONG_SUFFIXES = frozenset("区 市 町 村 郡 駅 丁目 線 東口 西口 南口 北口 中央口".split())
# A number is part of an address only before one of these.
JA_NUMBER_COUNTERS = frozenset("丁目 番地 番 号".split())
# English words too common to be read as a place when capitalised alone ("Mobile", "Normal", "Independence").
COMMON_WORD_FREQUENCY = 3000
_CONTRACTION_RE = re.compile(r"^(?:n['\u2019]t|['\u2019](?:s|re|ll|ve|m|d|t))$", re.IGNORECASE)
_HASHTAG_WORDS_RE = re.compile(r"[A-Z]?[a-z]+|[A-Z]+(?![a-z])|\d+|[^\W\d_A-Za-z]+")
_URL_HOST_RE = re.compile(r"^(?:https?://)?(?:www\.)?([^/?#\s]+)", re.IGNORECASE)


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




def _title(surface: str) -> str:
    """"des moines" -> "Des_Moines": a capital marks an English place unit's feature."""
    words = unicodedata.normalize("NFKC", surface).split()
    return UNIT_JOINER.join(word[:1].upper() + word[1:].lower() for word in words)


class EnglishPlaces:
    """Marks English place mentions: multi-word gazetteer names in any case, one capitalised word that the
    gazetteer knows and that is not a common word, and a state code after a comma ("Lincoln, NE")."""

    def __init__(self) -> None:
        from anonymizer.location.gazetteer import Gazetteer

        self.gazetteer = Gazetteer.load()
        self.by_first: dict[str, set[tuple[str, ...]]] = {}
        for words in self.gazetteer.multiword_names():
            self.by_first.setdefault(words[0], set()).add(words)
        self.longest = max((len(w) for w in self.gazetteer.multiword_names()), default=1)
        self._known: dict[str, bool] = {}
        self._stations: dict[str, bool] = {}

    def known(self, word: str) -> bool:
        found = self._known.get(word)
        if found is None:
            found = self._known[word] = bool(self.gazetteer.resolve(word)) and not _is_common_word(word)
            if len(self._known) > 200_000:
                self._known.clear()
        return found

    def known_japanese(self, name: str) -> bool:
        """Whether a Japanese proper noun (two characters or more) is a place the gazetteer knows."""
        found = self._known.get(name)
        if found is None:
            found = self._known[name] = len(name) >= 2 and bool(self.gazetteer.resolve(name))
        return found

    def known_station(self, name: str) -> bool:
        """Whether a word UniDic reads as a common noun is a station's or railway line's name (新橋, 目白, 両国,
        田園都市線). The gazetteer leaves out the names that are ordinary words first (公園, 日の出, 王子):
        those count only as 〜駅."""
        found = self._stations.get(name)
        if found is None:
            found = len(name) >= 2 and any(p.kind in ("station", "line") for p in self.gazetteer.resolve(name))
            self._stations[name] = found
        return found

    def mark(self, tokens: list[Token], text: str) -> list[Token]:
        out: list[Token] = []
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
            else:
                out.append(token)
            i += 1
        return out

    def _multiword(self, tokens: Sequence[Token], i: int, text: str) -> tuple[int, Token] | None:
        candidates = self.by_first.get(tokens[i].text.casefold())
        if not candidates or tokens[i].kind != "word":
            return None
        for length in range(min(self.longest, len(tokens) - i), 1, -1):
            span = tokens[i:i + length]
            if any(t.kind != "word" for t in span) or any(text[a.end:b.start] != " "
                                                          for a, b in pairwise(span)):
                continue
            if tuple(t.text.casefold() for t in span) in candidates:
                start, end = span[0].start, span[-1].end
                return length, Token(text[start:end], start, end, _title(text[start:end]), True, "place")
        return None


# UniDic splits some station and line names into ordinary morphemes (後楽|園, 表|参道, 田園|都市|線): runs of up
# to this many.
JA_STATION_RUN = 4


def _merge_station_runs(tokens: list[Token], tags: list[tuple[str, str, str]], text: str,
                        known_station: Callable[[str], bool]) -> tuple[list[Token], list[tuple[str, str, str]]]:
    """Adjacent morphemes that together spell a station's or a line's name become one place-name morpheme."""
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
            return (i + 1 >= n or tokens[i + 1].text not in JA_HONORIFICS) and known_station(tokens[i].text)
        if tags[i][1] != "固有名詞":
            return False
        if tags[i][2] == "地名":
            return True
        return (i + 1 >= n or tokens[i + 1].text not in JA_HONORIFICS) and known(tokens[i].text)

    def suffix(i: int) -> bool:
        return tokens[i].text in JA_PLACE_SUFFIXES

    def starts_place(i: int) -> bool:
        # A place name, or a noun right before a strong suffix (綱島 + 駅, 山手 + 線).
        return place_name(i) or (tags[i][0] == "名詞" and tags[i][1] != "数詞" and i + 1 < n
                                 and tokens[i + 1].text in JA_STRONG_SUFFIXES and tokens[i + 1].start == tokens[i].end)

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
