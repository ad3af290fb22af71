"""Morpheme tokenizer for the location classifier and de-identifier (no Django here).

Japanese goes through MeCab (fugashi + unidic-lite), English through spaCy's rule-based tokenizer. Every token
keeps its character offsets into the original post, so deletions can be drawn on the text as it was written.

With ``units`` on (every model trained since the threat model was written down), a token is a *deletion unit*:
- a place mention is one unit however many morphemes it has ("Des Moines", "North Little Rock",
  "品川区上大崎３丁目", "横浜市港北区綱島駅"), found with the gazetteer's multi-word names and capitalised names
  (English) or UniDic's 固有名詞-地名 tags and address suffixes (Japanese);
- a hashtag, an @mention and a URL are each one unit, with a feature of their own: a reader sees them, so the
  models must too ("#NorthLittleRock" has the norm "#north little rock");
- an English contraction stays whole ("don't"), so a deletion never leaves "n't" behind.
Models trained before keep ``units`` off and tokenize as they were trained: URLs, hashtags and mentions masked.
"""

from __future__ import annotations

import os
import re
import threading
import unicodedata
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import asdict, dataclass, fields
from typing import Any

from anonymizer.location import units
from anonymizer.location.tokens import Token, norm_of
from anonymizer.location.units import JA_PLACE_PREFIX, EnglishPlaces, noise_token

LANGUAGES = ("ja", "en")

# Alternation order matters: a URL is matched first, so a "#fragment" or "@" inside it never counts as a
# hashtag or mention even when URL removal is switched off.
_NOISE_RE = re.compile(
    r"(?P<url>(?:https?://|(?<![\w.])www\.)\S+|(?<![\w./])t\.co/\S+)"
    # "&#39;"-style HTML entities are not hashtags.
    r"|(?P<hashtag>(?<!&)[#\uff03]\w+)"  # also the full-width sign
    r"|(?P<mention>[@\uff20][A-Za-z0-9_]+)",
    re.IGNORECASE,
)
# MeCab only skips ASCII space, tab, LF and VT; NBSP, U+3000, CR etc. would come back as tokens, so every
# whitespace character becomes a plain space (same length, offsets unchanged). NUL would end MeCab's C string
# and lone surrogates cannot be encoded to UTF-8.
_ENTITY_RE = re.compile(r"&(?:[A-Za-z]{2,8}|#\d{1,6}|#x[0-9A-Fa-f]{1,6});")
_SANITIZE_RE = re.compile(r"[^\S ]|[\x00\ud800-\udfff]")
# A latitude and a longitude written out ("35.725632，139.588658", "41.59, -93.62"): the post's place itself.
_COORDINATES_RE = re.compile(r"(?<![\d.])(-?\d{1,2}\.\d{2,})\s?[,，、/ ]\s?(-?\d{1,3}\.\d{2,})(?![\d.])")
COORDINATES_PREFIX = "geo:"
# Japanese road names MeCab cuts into ordinary words: ring roads (環七, 環状八号線), national routes (国道16号,
# R246), 第一京浜. A road is read like a railway line: a band across the map.
_JA_ROAD_RE = re.compile(r"環[状]?[一二三四五六七八1-8１-８](?:号線|号|通り)?|(?<![A-Za-z0-9])R ?[0-9]{1,3}(?![0-9])"
                         r"|国道 ?[0-9０-９]{1,3}号線?|第[一二三]京浜")
# Airport terminal words (T1, T2, 第2ターミナル) name a terminal of Haneda or Narita only in a post with an airport
# cue; elsewhere T2 is a film, a size or a tax form. The gazetteer has them as places of kind "terminal".
_JA_AIRPORT_CUE_RE = re.compile(r"出発ロビー|到着ロビー|国際線|国内線|空港|搭乗|保安検査|チェックイン|羽田|成田")
_JA_TERMINAL_RE = re.compile(r"(?<![A-Za-z0-9Ａ-Ｚａ-ｚ０-９])[TＴ][1-3１-３](?![0-9０-９])"
                             r"|第[1-3１-３一二三](?:旅客)?ターミナル")
# Station and line nicknames that are an ordinary word elsewhere (お茶: tea; 山手: uptown, a Yokohama district)
# name the station or line only where a railway cue is in the post ("お茶で緊急停止中", "山手が止まってる"), and
# only right before a particle or a cue of where a train is (お茶で, お茶着, 山手内回り). The gazetteer has
# neither as a name (PROVENANCE.txt): the unit's norm carries the station's or line's own name.
_JA_RAIL_CUE_RE = re.compile(r"電車|列車|駅|停止|見合わせ|遅延|遅れ|運休|止ま|乗り換え|乗換|下車|快速|各停|各駅|線")
_JA_CUED_STATIONS = {"お茶": "御茶ノ水", "山手": "山手線"}
_JA_CUED_STATION_RE = re.compile(r"お茶(?=で|から|まで|に|着|発|なう|駅|方面|止まり)"
                                 r"|(?<![横浜])山手(?=が|で|は|も|から|まで|に|止|遅|運|内回り|外回り|一周)")
_ALNUM_RE = re.compile(r"[^\W_]")  # \w without "_" is exactly str.isalnum()
_KANA_RE = re.compile(r"[\u3041-\u3096\u309d\u309e\u30a1-\u30fa\u30fd\u30fe\u31f0-\u31ff\uff66-\uff9d]")
_CJK_RE = re.compile(r"[\u3005\u3007\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\U00020000-\U0003134f]")
_BATCH = 1000


@dataclass(frozen=True)
class TokenizerSettings:
    """How posts are tokenized; part of a trained model, so it serialises to a plain dict."""

    language: str
    remove_urls: bool = True
    remove_hashtags: bool = True
    remove_mentions: bool = True
    lowercase: bool = True  # English only
    units: bool = False  # place mentions, hashtags, mentions, URLs and contractions as whole units (see above)

    @classmethod
    def current(cls, language: str) -> TokenizerSettings:
        """The settings every new model is trained with: nothing a reader sees is invisible to the models."""
        return cls(language, remove_urls=False, remove_hashtags=False, remove_mentions=False, units=True)

    def __post_init__(self) -> None:
        if self.language not in LANGUAGES:
            raise ValueError(f"language must be one of {LANGUAGES}, not {self.language!r}")

    def to_dict(self) -> dict[str, Any]:
        """Plain JSON-able dict."""
        return asdict(self)

    @classmethod
    def from_dict(cls, d: Mapping[str, Any]) -> TokenizerSettings:
        """Inverse of to_dict; unknown keys are ignored so settings stored by newer code still load."""
        known = {f.name for f in fields(cls)}
        values = {k: v for k, v in d.items() if k in known}
        for key, value in values.items():
            if key != "language" and not isinstance(value, bool):
                raise ValueError(f"{key} must be a boolean, not {value!r}")
        return cls(**values)

    def removes(self, kind: str) -> bool:
        """Whether noise of this kind ("url", "hashtag", "mention") is removed."""
        return {"url": self.remove_urls, "hashtag": self.remove_hashtags, "mention": self.remove_mentions}[kind]


def noise_spans(text: str, settings: TokenizerSettings) -> list[tuple[int, int, str]]:
    """(start, end, kind) of the URLs / hashtags / mentions that settings remove, sorted and non-overlapping."""
    wanted = {k for k in ("url", "hashtag", "mention") if settings.removes(k)}
    if not wanted:
        return []
    return [(m.start(), m.end(), m.lastgroup) for m in _NOISE_RE.finditer(text) if m.lastgroup in wanted]


def _masked(text: str, spans: list[tuple[int, int, str]]) -> str:
    """text with noise spans and every whitespace character replaced by spaces, same length."""
    if spans:
        parts, pos = [], 0
        for start, end, _ in spans:
            parts.append(text[pos:start])
            parts.append(" " * (end - start))
            pos = end
        parts.append(text[pos:])
        text = "".join(parts)
    return _SANITIZE_RE.sub(" ", text)


def detect_language(text: str) -> str:
    """Return "ja" when kana/kanji make up a meaningful share of the post, else "en".

    URLs and mentions are ignored. A lone kana in Latin text (the "¯\\_(ツ)_/¯" shrug) does not make a post
    Japanese: it needs two kana, or kana + ideographs making at least 30% of its letters.
    """
    text = _NOISE_RE.sub(lambda m: m.group() if m.lastgroup == "hashtag" else " ", text)
    kana = len(_KANA_RE.findall(text))
    if kana >= 2:
        return "ja"
    cjk = kana + len(_CJK_RE.findall(text))
    if cjk == 0:
        return "en"
    letters = sum(c.isalpha() for c in text)
    return "ja" if cjk >= 0.3 * letters else "en"


def _add_pieces(text: str, spans: list[tuple[int, int, str]], kept: list[Token], pattern: re.Pattern, kind: str,
                token: Callable[[re.Match], Token | None]) -> list[tuple[int, int, str]]:
    """The pattern's matches that start in no span yet and make a token become units (appended to ``kept``);
    the spans with theirs added, sorted."""
    taken = [(start, end) for start, end, _ in spans]
    found = [(m, unit) for m in pattern.finditer(text) if not any(a <= m.start() < b for a, b in taken)
             and (unit := token(m)) is not None]
    if not found:
        return spans
    kept.extend(unit for _, unit in found)
    return sorted([*spans, *((m.start(), m.end(), kind) for m, _ in found)])


def _entity_token(m: re.Match) -> Token:
    return Token(m.group(), m.start(), m.end(), m.group().lower(), False)


def _coordinates_token(m: re.Match) -> Token | None:
    lat, lon = float(m.group(1)), float(m.group(2))
    if abs(lat) > 90 or abs(lon) > 180:
        return None
    return Token(m.group(), m.start(), m.end(), f"{COORDINATES_PREFIX}{lat:.4f},{lon:.4f}", True, "place")


def _road_token(m: re.Match) -> Token:
    return Token(m.group(), m.start(), m.end(), JA_PLACE_PREFIX + norm_of(m.group(), False), True, "place")


@dataclass(frozen=True, slots=True)
class Morpheme:
    """One morpheme of a Japanese text as UniDic tags it: where it is, its part of speech (pos1..pos4, "*" where
    UniDic leaves one out) and whether MeCab did not know the word (an unknown word is read by its characters)."""

    start: int
    end: int
    pos: tuple[str, str, str, str]
    unknown: bool


def _cued_station_token(m: re.Match) -> Token:
    return Token(m.group(), m.start(), m.end(), JA_PLACE_PREFIX + _JA_CUED_STATIONS[m.group()], True, "place")


class Tokenizer:
    """Reusable tokenizer for one TokenizerSettings; get one through get_tokenizer()."""

    def __init__(self, settings: TokenizerSettings):
        self.settings = settings
        self._lock = threading.Lock()
        if settings.language == "ja":
            import fugashi

            # The Tagger keeps one lattice, and nodes point into it: one parse at a time, read out at once.
            self._tagger = fugashi.Tagger()
        else:
            import spacy

            from anonymizer.platform.spacy_tokenizer import BoundedTokenizer

            # Only the tokenizer is used; a blank pipeline has the same tokenizer rules as en_core_web_sm.
            self._spacy_tokenizer = BoundedTokenizer(spacy.blank("en").tokenizer)
        self._lower = settings.lowercase and settings.language == "en"
        self._places = None
        if settings.units:
            # Latin place names appear in Japanese posts too ("(錦糸町駅 (Kinshicho Sta.))").
            self._places = EnglishPlaces()

    def tokenize(self, text: str) -> list[Token]:
        """Tokens of one post, in text order."""
        if self.settings.units:
            return self._units(text, None)
        masked = _masked(text, noise_spans(text, self.settings))
        if masked.isspace() or not masked:
            return []
        if self.settings.language == "ja":
            return self._tokenize_ja(text, masked)
        return self._from_spacy(text, self._spacy_tokenizer(masked))

    def _unit_spans(self, text: str) -> tuple[str, list[Token]]:
        """The text to hand the morphological analyser (every hashtag, mention and URL blanked out) and those
        kept as units of their own."""
        spans = noise_spans(text, TokenizerSettings(self.settings.language, True, True, True))
        kept = [noise_token(text, start, end, kind) for start, end, kind in spans if not self.settings.removes(kind)]
        # Pieces the analyser must not cut, each one unit: an HTML entity ("&amp;" is one symbol: split,
        # deleting "amp" would leave "&;"), coordinates written out, and (Japanese) a road's name.
        spans = _add_pieces(text, spans, kept, _ENTITY_RE, "entity", _entity_token)
        spans = _add_pieces(text, spans, kept, _COORDINATES_RE, "coordinates", _coordinates_token)
        if self.settings.language == "ja":
            spans = _add_pieces(text, spans, kept, _JA_ROAD_RE, "road", _road_token)
            if _JA_AIRPORT_CUE_RE.search(text):
                spans = _add_pieces(text, spans, kept, _JA_TERMINAL_RE, "terminal", _road_token)
            if _JA_RAIL_CUE_RE.search(text):
                spans = _add_pieces(text, spans, kept, _JA_CUED_STATION_RE, "station", _cued_station_token)
        return _masked(text, spans), kept

    def _units(self, text: str, doc) -> list[Token]:
        masked, noise = self._unit_spans(text)
        if masked.isspace() or not masked:
            words = []
        elif self.settings.language == "ja":
            tags: list[tuple[str, str, str]] = []
            morphemes = self._tokenize_ja(text, masked, tags)
            words = units.merge_japanese_places(morphemes, tags, text, self._places.known_japanese,
                                                self._places.known_station)
            words = units.merge_japanese_facilities(words, {t.start: tag for t, tag in zip(morphemes, tags,
                                                                                         strict=True)}, text)
            words = self._places.mark(words, text)
        else:
            words = self._from_spacy(text, self._spacy_tokenizer(masked) if doc is None else doc)
            words = units.mark_english_facilities(units.merge_contractions(self._places.mark(words, text), text),
                                                  text)
        if noise:
            words = units.hashtag_venues(sorted([*words, *noise], key=lambda t: t.start))
        return units.merge_venues(words, text, units.venue_spans(text, self.settings.language),
                                  self.settings.language)

    def morphemes(self, text: str) -> list[Morpheme]:
        """The UniDic morphemes of a Japanese text, as the units are built from them (hashtags, mentions, URLs,
        entities, coordinates and road names are not analysed): what a check of the units needs to know about
        the words left as words (a proper noun, an unknown word). Empty for English."""
        if self.settings.language != "ja":
            return []
        masked, _ = self._unit_spans(text)
        with self._lock:
            nodes = [(n.surface, len(n.white_space), (n.feature.pos1, n.feature.pos2, n.feature.pos3,
                                                       n.feature.pos4), n.stat == 1) for n in self._tagger(masked)]
        out, pos = [], 0
        for surface, skipped, tag, unknown in nodes:
            pos += skipped
            if not surface:
                continue
            if not masked.startswith(surface, pos):  # realign as _tokenize_ja does
                found = masked.find(surface, pos)
                if found < 0:
                    continue
                pos = found
            start, pos = pos, pos + len(surface)
            if not surface.isspace():
                out.append(Morpheme(start, pos, tag, unknown))
        return out

    def tokenize_many(self, texts: Iterable[str]) -> Iterator[list[Token]]:
        """Tokens of each post, lazily, in input order."""
        if self.settings.language == "ja":
            for text in texts:
                yield self.tokenize(text)
            return
        batch: list[str] = []
        for text in texts:
            batch.append(text)
            if len(batch) >= _BATCH:
                yield from self._en_batch(batch)
                batch = []
        if batch:
            yield from self._en_batch(batch)

    def _en_batch(self, texts: list[str]) -> Iterator[list[Token]]:
        if self.settings.units:
            masked = [self._unit_spans(text)[0] for text in texts]
            for text, doc in zip(texts, self._spacy_tokenizer.pipe(masked), strict=True):
                yield self._units(text, doc)
            return
        masked = [_masked(text, noise_spans(text, self.settings)) for text in texts]
        for text, doc in zip(texts, self._spacy_tokenizer.pipe(masked), strict=True):
            yield self._from_spacy(text, doc)

    def _from_spacy(self, text: str, doc) -> list[Token]:
        tokens = []
        lower = self._lower
        for tok in doc:
            if tok.is_space:
                continue
            start = tok.idx
            end = start + len(tok.text)
            piece = text[start:end]
            tokens.append(Token(piece, start, end, norm_of(piece, lower), self._deletable(piece)))
        return tokens

    def _deletable(self, piece: str) -> bool:
        # A token without a letter or digit (punctuation, kaomoji pieces) stays a feature but is not offered for
        # deletion; with units, an emoji is (a post of emoji alone must be able to get under the threshold).
        if _ALNUM_RE.search(piece) is not None:
            return True
        return self.settings.units and any(unicodedata.category(c) == "So" for c in piece)

    def _tokenize_ja(self, text: str, masked: str, tags: list[tuple[str, str, str]] | None = None) -> list[Token]:
        with self._lock:
            if tags is None:
                nodes = [(n.surface, len(n.white_space), None) for n in self._tagger(masked)]
            else:
                nodes = [(n.surface, len(n.white_space), (n.feature.pos1, n.feature.pos2, n.feature.pos3))
                         for n in self._tagger(masked)]
        tokens = []
        pos = 0
        for surface, skipped, tag in nodes:
            pos += skipped
            if not surface:
                continue
            if not masked.startswith(surface, pos):
                # Never seen; realign rather than emit offsets that do not match the text.
                found = masked.find(surface, pos)
                if found < 0:
                    continue
                pos = found
            start, end = pos, pos + len(surface)
            pos = end
            if surface.isspace():
                continue
            piece = text[start:end]
            # One rule for both languages: a token without a letter or digit (punctuation, emoji, kaomoji
            # pieces) stays a feature but is never offered for deletion; UniDic's symbol tag would also
            # exclude letters such as small kana or Hangul.
            tokens.append(Token(piece, start, end, norm_of(piece, False), self._deletable(piece)))
            if tags is not None:
                tags.append(tag)
        return tokens


_cache: dict[TokenizerSettings, Tokenizer] = {}
_cache_pid = os.getpid()
_cache_lock = threading.Lock()


def get_tokenizer(settings: TokenizerSettings) -> Tokenizer:
    """The process's Tokenizer for these settings (a Tagger / spaCy pipeline is slow to create)."""
    global _cache_pid
    with _cache_lock:
        # A forked worker builds its own rather than sharing the parent's MeCab lattice and lock.
        if _cache_pid != os.getpid():
            _cache.clear()
            _cache_pid = os.getpid()
        tokenizer = _cache.get(settings)
        if tokenizer is None:
            tokenizer = _cache[settings] = Tokenizer(settings)
        return tokenizer
