"""What no scorer could resolve: the names left in a released text that a reader should check (no Django here).

The place check passes when the gazetteer puts no unit of the released text inside the map. A name no list holds
("ハチ公前", "Kinnick", "Wrigley", a shop's name) is invisible to it, yet a reader who knows the town places the
post by it. Such a name cannot be called safe, nor deleted blindly (most are a friend's shop, a band, a brand):
it is listed for the reader to check, and the verdict is "review", never "pass", while one is left.

An item is a unit of the released text (tokenized as the models tokenize it) that the place resolver cannot
place, neither inside the map nor outside it (a place elsewhere says nothing about where in the map the post was
written), and that is one of:

* a place unit or a venue unit the gazetteer does not know (kept, or left by the "needed" policy), except a
  country (UniDic's 地名-国: 日本 is not a city);
* Japanese: a proper noun (UniDic 固有名詞) that a reader can use as a place:
  - any proper noun, or an unknown word or an interjection (an invented name: ほげほげ), written right before a
    place word (前, 駅, 口, 通り, 商店街, 店, 寺…: "ハチ公前", "ほげほげ商店街"): the place word says it is a place;
  - 固有名詞-一般 and -組織 alone (ハチ公, a landmark; a shop's or a school's name) unless frequent in Japanese
    (wordfreq Zipf ``JA_KNOWN_ZIPF`` or more: ツイッター 4.55, スタバ 3.73, グーグル 3.56 are services and chains,
    known everywhere and placing nothing);
  - a person's name (人名) alone is not listed: a friend's name places no post (the People check reads people),
    and a surname the gazetteer knows as a place is a place unit already (units.merge_japanese_places);
  - 地名 left as a word (the units merge every 地名 into a place unit, so this is rare) except a country;
* English: a capitalised word that is no ordinary word (the recognizer's ``precision.is_ordinary``, wordfreq Zipf
  and pyspellchecker: "Cubs", "Diner", "Go" are words; "Kinnick", "Wrigley", "Hawkeyes" are not), tested in lower
  case at a sentence's start (a capital there is ordinary capitalisation), and in a post whose words are mostly
  capitalised; not a weekday or a month, not "I" nor an acronym of three capitals or fewer (NFL, LOL, BBQ), not a
  drawn-out word ("Sooo"), not a Census first name (a person: "Nicole"; the People check reads people), and not a
  name so frequent that everyone knows it (Zipf ``EN_KNOWN_ZIPF`` or more: Google, Lego; a place that frequent is
  in the gazetteer). A surname stays (Kinnick and Wrigley are surnames: venues are named after people). Adjacent
  capitalised words join it ("Zubrowka's Diner"), the sentence words that start a phrase do not ("Go");
* a hashtag or an @mention in camel case or with a capital with such a word in it ("#GoHawkeyes",
  "@WrigleyField"); lower-case run-together tags ("#kinnickstadium") cannot be split and are not listed.

"Resolved" is the place resolver's answer (``PlaceResolver.places_of``, else ``resolve``): whatever the
gazetteer or the corpus can place is not a review item (inside the map it is a place left, see
inspect.places_left; outside it is no give-away).
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from functools import cache, lru_cache
from typing import TYPE_CHECKING

from anonymizer.location.place_scorer import PlaceResolver
from anonymizer.location.tokenize import Morpheme, Token, TokenizerSettings, get_tokenizer
from anonymizer.location.units import (
    EN_FACILITY_STOPWORDS,
    JA_FACILITY_ENDINGS,
    JA_PLACE_CUES,
    JA_PLACE_PREFIX,
    JA_PLACE_SUFFIXES,
)
from anonymizer.recognize.precision import is_first_name, is_ordinary
from anonymizer.recognize.time_words import MONTH_ABBREVIATIONS, MONTHS, WEEKDAY_ABBREVIATIONS, WEEKDAYS
from anonymizer.texts import gettext_noop

if TYPE_CHECKING:
    from anonymizer.location.model import LocationModel

# Why an item is listed (the API's `why`; shown as gettext(why)).
UNKNOWN_PLACE = gettext_noop("place name not in the gazetteer")
UNKNOWN_VENUE = gettext_noop("venue or landmark not in the gazetteer")
PROPER_NOUN = gettext_noop("proper noun not in the gazetteer")
NAME_BEFORE_PLACE_WORD = gettext_noop("name before a place word, not in the gazetteer")
NAME_TAG = gettext_noop("hashtag or @mention that looks like a name, not in the gazetteer")

# A name at least this frequent (wordfreq Zipf: log10 of uses per billion words) is known everywhere: a brand, a
# service, a celebrity (English: Google 4.86, Obama 4.86, NFL 4.54, Lego 3.83, Bruh 3.51; Japanese: ツイッター 4.55,
# スタバ 3.73, ヤフー 3.72, グーグル 3.56). Local landmarks are rarer (Beale 3.19, Wrigley 2.95, Hawkeyes 2.54,
# Kinnick 1.76; ハチ公 2.96). On 600 held-out posts per default model (bench/bench_review.py) the verdict reads
# "review" instead of "pass" for 1.5% (Tokyo; 2.0% before the gazetteer learned 京急, 伊勢丹…) and 9.0% (US) of the
# released texts under every threshold.
EN_KNOWN_ZIPF = 3.5
JA_KNOWN_ZIPF = 3.3
# Written right after a name, these make it a place (ハチ公前, 〇〇商店街, 〇〇通り, 〇〇なう).
JA_PLACE_WORDS = tuple(sorted(
    JA_PLACE_SUFFIXES | JA_PLACE_CUES | frozenset(JA_FACILITY_ENDINGS)
    | frozenset("商店街 店 本店 支店 横丁 交差点 広場 像 商店 市場 温泉 海岸 展望台".split()), key=len, reverse=True))
_NOT_NAMES_EN = WEEKDAYS | MONTHS | WEEKDAY_ABBREVIATIONS | MONTH_ABBREVIATIONS | frozenset({"i", "i'm", "i've",
                                                                                             "i'll", "i'd"})
# What ends a sentence or a phrase: a capital right after it is ordinary capitalisation.
_SENTENCE_END = re.compile(r"(?:^|[.!?…:;\"“”()\[\]{}*•|<>~=–—\-]|\n)\s*$")
_NAME_TAG_WORDS = re.compile(r"[A-Z][a-z]+|[A-Z]+(?![a-z])|[a-z]+|\d+|[^\W\d_A-Za-z]+")
_POSSESSIVE = re.compile(r"['’]s$")
# A name has a capital or letters of a script without case (東京, ハチ公).
_NAME_LETTERS = re.compile(r"[A-Z]|[^\W\da-zA-Z_]")
_DRAWN_OUT = re.compile(r"([a-z])\1\1")
# A post whose words are mostly capitalised ("Bestfriend But We Work") or in capitals: its capitals say nothing, and
# every word is read as at a sentence's start (in lower case). From this share of its words, at least this many.
_CAPITALISED_POST_SHARE, _CAPITALISED_POST_WORDS = 0.6, 4


@dataclass(frozen=True)
class ReviewItem:
    """A name left in the released text that no scorer could resolve: its text, where it is, and why it is
    listed."""

    text: str
    start: int
    end: int
    why: str

    def to_dict(self) -> dict:
        return asdict(self)


def _resolved(resolver: PlaceResolver, norm: str) -> bool:
    return bool(resolver.places_of(norm)) or resolver.resolve(norm) is not None


@cache
def _ja_frequencies() -> dict[str, float]:
    from wordfreq import get_frequency_dict

    # wordfreq's zipf_frequency("…", "ja") needs the MeCab module to tokenize; the surfaces are UniDic
    # morphemes already, so they are looked up as they are.
    return get_frequency_dict("ja")


def _ja_zipf(word: str) -> float:
    import math

    frequency = _ja_frequencies().get(word, 0.0)
    return math.log10(frequency * 1e9) if frequency > 0 else 0.0


@lru_cache(maxsize=100_000)
def _en_zipf(word: str) -> float:
    from wordfreq import zipf_frequency

    return zipf_frequency(word, "en")


@lru_cache(maxsize=100_000)
def english_name(word: str, sentence_start: bool) -> bool:
    """Whether a capitalised English word (a possessive "'s" is ignored) reads as a name no dictionary holds."""
    word = _POSSESSIVE.sub("", word)
    if len(word) < 2 or not word[0].isupper() or not word.replace("-", "").replace(".", "").isalpha():
        return False
    low = word.lower()
    if low in _NOT_NAMES_EN or (word.isupper() and len(word) <= 3) or _DRAWN_OUT.search(low):
        return False  # a weekday, "I", an acronym, a drawn-out word ("Shitttt", "Sooo")
    if is_first_name(low):
        return False  # a person ("Nicole", "Willie's"): the People check's, and a first name alone places nothing
    # At a sentence's start (or in capitals) the capital says nothing: the word is read as written in lower case.
    if is_ordinary(low if sentence_start or word.isupper() else word):
        return False
    return _en_zipf(low) < EN_KNOWN_ZIPF


def _sentence_start(text: str, start: int, previous: Token | None) -> bool:
    if previous is not None and previous.kind in ("hashtag", "mention", "url") and not text[:previous.start].strip():
        return True  # "@friend Kinnick was…": a reply's first word
    before = text[max(0, start - 40):start]
    return bool(_SENTENCE_END.search(before)) or (bool(before) and unicodedata.category(before.rstrip()[-1:] or "a")
                                                  == "So")


def _title_word(token: Token) -> bool:
    word = _POSSESSIVE.sub("", token.text)
    return token.kind == "word" and len(word) >= 2 and word[0].isupper() and word.replace("-", "").isalpha()


def _capitalised_post(tokens: Sequence[Token]) -> bool:
    words = [t.text for t in tokens if t.kind == "word" and t.text[:1].isalpha()]
    capitalised = sum(word[:1].isupper() for word in words)
    return len(words) >= _CAPITALISED_POST_WORDS and capitalised >= _CAPITALISED_POST_SHARE * len(words)


def _english(text: str, tokens: Sequence[Token], resolver: PlaceResolver) -> list[ReviewItem]:
    every_start = _capitalised_post(tokens)
    names = [token.kind == "word" and english_name(token.text, every_start or _sentence_start(
        text, token.start, tokens[i - 1] if i else None))
             and not _resolved(resolver, _POSSESSIVE.sub("", token.text).title())
             for i, token in enumerate(tokens)]
    out: list[ReviewItem] = []
    i = 0
    while i < len(tokens):
        if not names[i]:
            i += 1
            continue
        # The capitalised words around it are the same name ("Zubrowka's Diner"), not a phrase's first word.
        first, last = i, i
        while first > 0 and _title_word(tokens[first - 1]) and text[tokens[first - 1].end:tokens[first].start] == " " \
                and tokens[first - 1].text not in EN_FACILITY_STOPWORDS:
            first -= 1
        while last + 1 < len(tokens) and _title_word(tokens[last + 1]) and \
                text[tokens[last].end:tokens[last + 1].start] == " ":
            last += 1
        start, end = tokens[first].start, tokens[last].end
        out.append(ReviewItem(text[start:end], start, end, PROPER_NOUN))
        i = last + 1
    return out


def _name_tag(token: Token, language: str) -> bool:
    body = unicodedata.normalize("NFKC", token.text[1:])
    if language == "ja" and token.kind == "hashtag" and not body.isascii():
        return _japanese_tag_names(body)
    return any(english_name(word, False) for word in _NAME_TAG_WORDS.findall(body) if word[:1].isupper())


@lru_cache(maxsize=20_000)
def _japanese_tag_names(body: str) -> bool:
    """Whether a Japanese hashtag's words hold a name by the rules for Japanese words ("#ほげほげ商店街")."""
    tokenizer = get_tokenizer(TokenizerSettings.current("ja"))
    return bool(_japanese(body, tokenizer.tokenize(body), tokenizer.morphemes(body)))


def _japanese(text: str, tokens: Sequence[Token], morphemes: Sequence[Morpheme],
              resolver: PlaceResolver | None = None) -> list[ReviewItem]:
    """The Japanese words' items (names the resolver places left out: a model without units leaves 渋谷 a
    word)."""
    items = _japanese_items(text, tokens, morphemes)
    if resolver is None:
        return items
    return [item for item in items if not _resolved(resolver, JA_PLACE_PREFIX + item.text)]


def _japanese_items(text: str, tokens: Sequence[Token], morphemes: Sequence[Morpheme]) -> list[ReviewItem]:
    tags = {m.start: m for m in morphemes}

    def tag(token: Token) -> Morpheme | None:
        found = tags.get(token.start)
        return found if found is not None and found.end == token.end and token.kind == "word" else None

    def name_like(m: Morpheme | None) -> bool:  # a proper noun (no country), an unknown word, an invented sound
        return m is not None and ((m.pos[1] == "固有名詞" and m.pos[3] != "国") or m.pos[0] == "感動詞"
                                  or (m.unknown and m.pos[0] == "名詞"))

    def in_run(m: Morpheme | None) -> bool:  # what a name before a place word is made of
        return m is not None and (m.pos[0] in ("名詞", "接頭辞", "接尾辞", "感動詞") or m.unknown) and m.pos[1] not in (
            "数詞", "代名詞")

    ends = {t.end for t in tokens}
    out: list[ReviewItem] = []
    i, n = 0, len(tokens)
    while i < n:
        if not in_run(tag(tokens[i])):
            i += 1
            continue
        j = i + 1
        while j < n and in_run(tag(tokens[j])) and tokens[j].start == tokens[j - 1].end:
            j += 1
        # From the run's first name-like morpheme to the first place word after one (ハチ公|前, ほげ|ほげ|商店|街,
        # ディズニー|なう), the place word ending where a token ends.
        item = None
        first = next((k for k in range(i, j) if name_like(tag(tokens[k]))), None)
        for k in range(first if first is not None else j, j):
            p = tokens[k].end
            head = next((w for w in JA_PLACE_WORDS if text.startswith(w, p) and p + len(w) in ends), None)
            if head is not None:
                item = ReviewItem(text[tokens[first].start:p + len(head)], tokens[first].start, p + len(head),
                                  NAME_BEFORE_PLACE_WORD)
                break
        if item is not None:
            out.append(item)
        else:
            for k in range(i, j):
                m = tag(tokens[k])
                if m is not None and m.pos[1] == "固有名詞" and (
                        (m.pos[2] in ("一般", "組織") and _ja_zipf(tokens[k].text) < JA_KNOWN_ZIPF)
                        or (m.pos[2] == "地名" and m.pos[3] != "国")):
                    out.append(ReviewItem(tokens[k].text, tokens[k].start, tokens[k].end, PROPER_NOUN))
        i = j
    return out


def review_items(text: str, tokens: Sequence[Token], resolver: PlaceResolver, language: str,
                 morphemes: Sequence[Morpheme] = ()) -> list[ReviewItem]:
    """The names left in ``text`` (a released text, with its ``tokens`` as the model tokenizes it and, for
    Japanese, its UniDic ``morphemes``) that no scorer could resolve, in text order (see the module's rules)."""
    out: list[ReviewItem] = []
    for token in tokens:
        if token.kind in ("place", "venue"):
            if _resolved(resolver, token.norm) or not _NAME_LETTERS.search(token.text):
                continue  # placed by the gazetteer, or no name in it (a venue's leftover "in ,")
            country = [m for m in morphemes if m.start == token.start and m.end == token.end and m.pos[3] == "国"]
            if not country:
                out.append(ReviewItem(token.text, token.start, token.end,
                                      UNKNOWN_PLACE if token.kind == "place" else UNKNOWN_VENUE))
        elif token.kind in ("hashtag", "mention") and _name_tag(token, language) and \
                not _resolved(resolver, token.norm):
            out.append(ReviewItem(token.text, token.start, token.end, NAME_TAG))
    words = _japanese(text, tokens, morphemes, resolver) if language == "ja" else _english(text, tokens, resolver)
    return sorted([*out, *words], key=lambda item: item.start)


def needs_review(model: LocationModel, text: str, tokens: Sequence[Token] | None = None) -> list[ReviewItem]:
    """The review items of a released text for a model (its tokenizer, its place resolver; ``tokens``: the
    text's, as model.tokenize gives them). A model trained before units has no place units: its words are read
    the same way (units or not, a name is a name)."""
    settings = model.tokenizer_settings
    if tokens is None:
        tokens = model.tokenize(text)
    morphemes = get_tokenizer(settings).morphemes(text) if settings.language == "ja" else []
    return review_items(text, tokens, model.place_resolver, settings.language, morphemes)


def warm_up(language: str) -> None:
    """Load the word lists a first check would load (about 1.5 s for English, 0.3 s for Japanese)."""
    if language == "ja":
        _ja_frequencies()
        _japanese_tag_names("ほげ商店街")
    else:
        english_name("Kakurega", False)
