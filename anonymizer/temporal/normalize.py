"""Normalization of SNS writing before parsing, with an alignment back to what the author wrote.

A parser reads "im goin 2 the gym w/ my bro 2moro at 9am!!!" badly; it reads "im going 2 the gym with my bro
tomorrow at 9am !!!" well enough. :func:`normalize` cuts a post into pieces (words, punctuation runs, emoji),
gives each piece a normal form and builds the normalized text the parser sees, remembering for every piece
where it sits in both texts. :meth:`NormalizedText.restore` then rebuilds the post from the *original* pieces
minus the removed ones (and with generalized ones replaced), so that whatever was not removed comes back
exactly as written: typos, elongations, case, emoji and spacing.

Rules, in order (each piece's word core, its lower-case form looked up):
- the SNS lexicon (``SNS_LEXICON``: "w/" -> "with", "2moro" -> "tomorrow", "rn" -> "right now", ...);
- a digit written for a letter ("g0" -> "go", "n0w" -> "now"): 0 -> o, 1 -> i, 3 -> e, 4 -> a, 5 -> s, only when
  the word has letters and the result is an English word;
- elongations ("gooo" -> "go", "sushiii" -> "sushi", "yesss" -> "yes"): every run of 3 or more equal letters is
  cut to 1 or 2, and the most frequent English word among the variants wins (else runs of 2); a lower-case
  non-word with doubled letters becomes the common word without them ("eeats" -> "eats");
- an all-capitals word of 2+ letters that is a common English word is lower-cased ("NOW" -> "now"; the parser
  takes capitalised words for names), keeping "I" and acronyms that are not words.
A capitalised piece keeps its first capital in the normal form. Word frequencies come from pyspellchecker's
English list (bundled, offline).
"""

from __future__ import annotations

import html
import re
from dataclasses import dataclass
from itertools import product

from anonymizer.recognize.frequency import word_frequency
from anonymizer.recognize.time_words import TIME_SLANG

__all__ = ["EMOJI_ONLY", "SNS_LEXICON", "NormalizedText", "Piece", "normalize"]

#: Lower-case SNS spellings and their normal forms (several words allowed).
SNS_LEXICON: dict[str, str] = {
    "w/": "with", "w/o": "without", "b/c": "because", "bc": "because", "b4": "before", "cuz": "because",
    "coz": "because", "2moro": "tomorrow", "2morrow": "tomorrow", "2mrw": "tomorrow", "2mro": "tomorrow",
    "tmrw": "tomorrow", "tmr": "tomorrow", "tmrrw": "tomorrow", "tomoz": "tomorrow", "tommorow": "tomorrow",
    "tomorow": "tomorrow", "2nite": "tonight", "2night": "tonight", "tonite": "tonight", "2day": "today",
    "tday": "today", "yday": "yesterday", "ytd": "yesterday", "rn": "right now", "atm": "at the moment",
    "asap": "as soon as possible", "l8r": "later", "l8ter": "later", "ltr": "later", "wknd": "weekend",
    "wkend": "weekend", "u": "you", "ur": "your", "r": "are", "y": "why", "n": "and", "pls": "please",
    "plz": "please", "thx": "thanks", "thnx": "thanks", "ty": "thank you", "gr8": "great", "m8": "mate",
    "h8": "hate", "str8": "straight", "2": "to", "4": "for", "im": "I'm", "ive": "I've", "dont": "don't",
    "cant": "can't", "wont": "won't", "didnt": "didn't", "doesnt": "doesn't", "isnt": "isn't", "goin": "going",
    "doin": "doing", "gettin": "getting", "comin": "coming", "nite": "night", "morn": "morning", "aft": "afternoon",
    "eve": "evening", "tho": "though", "thru": "through", "abt": "about", "bday": "birthday", "b-day": "birthday",
    "xmas": "Christmas", "ppl": "people", "k": "ok", "kk": "ok", "ya": "you", "yall": "you all", "wanna": "want to",
    "gonna": "going to", "gotta": "got to", "til": "until", "till": "until", "nvm": "never mind",
    "omw": "on my way", "brb": "be right back", "nxt": "next",
    # Tomorrow, tonight, yesterday and the parts of the day as tweets spell them: the recognition core's list.
    **TIME_SLANG,
}
# What follows "ytd" when it is year-to-date, not yesterday ("YTD returns", "ytd sales").
YEAR_TO_DATE_FOLLOWERS = frozenset("return returns sales revenue revenues growth performance earnings gain gains loss "
                                   "losses profit profits income total totals numbers stats figures change up down "
                                   "high low basis spending budget %".split())
# Weekday abbreviations, written out only in a list of days or after a word that introduces one ("every mon,
# wed, thur"): alone "wed", "sat" and "sun" are words, and the parser reads "wed" as "we'd".
WEEKDAY_ABBREVIATIONS: dict[str, str] = {
    "mon": "Monday", "tue": "Tuesday", "tues": "Tuesday", "wed": "Wednesday", "thu": "Thursday",
    "thur": "Thursday", "thurs": "Thursday", "fri": "Friday", "sat": "Saturday", "sun": "Sunday",
}
_DAY_CONTEXT = frozenset("every on this next nxt last till until from to each by see til before after".split())
_WEEKDAY_NAMES = frozenset(v.lower() for v in WEEKDAY_ABBREVIATIONS.values())
# Abbreviations that are no English word: written out wherever they stand ("see you fri", "thurs @ 8").
_ALWAYS_WEEKDAYS = frozenset("tue tues thu thur thurs fri".split())
# Unit abbreviations only after a number ("20 mins", "2 hrs"): alone they are names and words ("Lee Min Ho", "mo").
UNIT_ABBREVIATIONS: dict[str, str] = {
    "min": "minutes", "mins": "minutes", "hr": "hours", "hrs": "hours", "sec": "seconds", "secs": "seconds",
    "wk": "weeks", "wks": "weeks", "yr": "years", "yrs": "years", "mo": "months", "mos": "months",
}
# "2" and "4" are "to" and "for" only between words ("going 2 the gym"), never in numbers or times ("2 pm").
_DIGIT_WORDS = {"2", "4"}
_TIME_AFTER = re.compile(r"(?i)^(?:am|pm|a\.m\.|p\.m\.|o'?clock|h|hours?|hrs?|mins?|minutes?|days?|weeks?|"
                         r"months?|years?|yrs?|secs?|seconds?|nights?|times?|th|st|nd|rd|:.*|\d.*|"
                         r"sgt|gmt|utc|est|edt|cst|cdt|mst|mdt|pst|pdt|cet|cest|bst|ist|jst|hkt|aest|"
                         r"(?:jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?|"
                         r"sept?(?:ember)?|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?)\.?)$")

# Words a number follows as their number ("Game 2 tonight", "Part 4 of"): never "to" or "for".
_NUMBERED = frozenset("game episode ep part round vol volume chapter season day week level stage phase act track "
                      "book page step lesson number no heat match set".split())
_MONTH = re.compile(r"(?i)^(?:jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?|"
                    r"sept?(?:ember)?|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?)\.?$")
_AFTER_FOLLOWERS = frozenset("a an the this that my our his her their your work school class lunch dinner".split())
_LEETS = {"0": "o", "1": "i", "3": "e", "4": "a", "5": "s"}
# Pieces: a URL, an HTML entity ("&amp;", which tweets carry escaped: cut or kept whole, never in half), @mention or
# #hashtag (kept whole); a word (letters, digits, apostrophes, inner hyphens or
# dots, "w/"-style slashes); or any other single non-space character run of the same kind (punctuation, emoji).
_PIECE = re.compile(
    r"https?://\S+|www\.\S+|&(?:[a-zA-Z]{2,8}|#\d{1,6});|[@#]\w+"
    r"|(?:[^\W_]|['’](?!['’]))+(?:[-./](?:[^\W_]|['’](?!['’]))+)*/?"
    r"|[\U0001F000-\U0001FAFF\u2600-\u27BF](?:[\U0001F3FB-\U0001F3FF\uFE0F]|\u200D[\U0001F000-\U0001FAFF\u2600-\u27BF])+"
    r"|([^\w\s])\1*"
    r"|_+"
)


# An emoji (with its skin tone or joined parts): a word glued to one ("Friday🙏🏽I") is spaced for the parser.
_EMOJI_CHARS = "\U0001F000-\U0001FAFF\u2600-\u27BF"
_EMOJI = re.compile(f"[{_EMOJI_CHARS}]")
#: A token made of emoji only (with variation selectors and joiners): never a word, never a time.
# "13 yrs.ago": a unit and "ago" glued by a dot.
_GLUED_AGO = re.compile(r"(?i)^(\d*(?:yrs?|years?|mins?|minutes?|hrs?|hours?|days?|wks?|weeks?|months?))\.ago$")
EMOJI_ONLY = re.compile(f"^[{_EMOJI_CHARS}\uFE0F\u200D]+$")


@dataclass(frozen=True)
class Piece:
    """One piece of the post: where it is in the original text and in the normalized text."""

    original: str
    start: int  # in the original text
    end: int
    normal: str  # the normal form (may hold several words)
    norm_start: int  # in the normalized text
    norm_end: int

    @property
    def is_word(self) -> bool:
        return any(c.isalnum() for c in self.original)


def _elongation_variants(word: str) -> list[str]:
    runs = [(m.group(1), len(m.group(0))) for m in re.finditer(r"(.)\1*", word)]
    choices = [[c] if n < 3 else [c, c * 2] for c, n in runs]
    return ["".join(parts) for parts in product(*choices)] if len(choices) < 12 else []


def _normal_word(core: str, previous: str, following: str) -> str:
    lower = core.lower()
    if lower in _DIGIT_WORDS:
        # "2"/"4" as words only between letters: "going 2 the gym", never "2 pm" or "at 4".
        if previous[:1].isalpha() and following[:1].isalpha() and not _TIME_AFTER.match(following) \
                and not _MONTH.match(previous) and previous.lower() not in _NUMBERED \
                and previous.lower() not in ("at", "by", "around", "till", "until", "til", "from", "since", "before") \
                and following.lower() not in ("today", "tonight", "tomorrow"):  # "July 4 recess" is a date
            return SNS_LEXICON[lower]
        return core
    if lower == "aft" and following.lower() in _AFTER_FOLLOWERS:
        return "after"  # "Aft a long weekend"
    if lower == "tn" and core != "tn":
        return core  # "TN" is Tennessee; "tn" is tonight
    if lower == "ytd" and (following.lower() in YEAR_TO_DATE_FOLLOWERS or following[:1].isdigit()
                           or (core == "YTD" and not (previous.isupper() and len(previous) > 1))):
        return core  # "YTD returns", "ytd 12%": year-to-date ("went to the beach ytd", "I WAS THERE YTD": yesterday)
    if core == "RN" and following[:1].isupper():
        return core  # "RN Interventional Radiology": a registered nurse, not "right now"
    if lower in SNS_LEXICON:
        return SNS_LEXICON[lower]
    if lower in UNIT_ABBREVIATIONS:
        one = previous.lower() in ("next", "nxt", "last", "this", "every", "per", "a", "1")
        if one:  # "nxt yr" -> "next year"
            return UNIT_ABBREVIATIONS[lower].removesuffix("s")
        return UNIT_ABBREVIATIONS[lower] if previous[:1].isdigit() or previous == "+" else core  # "30+ mins"
    letters = sum(c.isalpha() for c in lower)
    if letters and any(c in _LEETS for c in lower) and not lower[0].isdigit():
        unleet = "".join(_LEETS.get(c, c) for c in lower)
        if unleet.isalpha() and word_frequency(unleet) > 0:
            return unleet
    if re.search(r"([^\W\d_])\1\1", lower):
        variants = [v for v in _elongation_variants(lower) if word_frequency(v) > 0]
        if variants:
            return max(variants, key=lambda v: (word_frequency(v), -len(v)))
        return re.sub(r"([^\W\d_])\1{2,}", r"\1\1", lower)
    if core.islower() and re.search(r"([^\W\d_])\1", lower) and word_frequency(lower) == 0:
        # A doubled letter in a non-word ("eeats"): the common word it stretches, if there is one.
        single = re.sub(r"([^\W\d_])\1", r"\1", lower)
        if word_frequency(single) >= 1000:
            return single
    if core.isupper() and letters >= 2 and word_frequency(lower) >= 1000:
        return lower
    return core


def _with_case(normal: str, core: str) -> str:
    if normal == core or not normal:
        return normal
    if core[:1].isupper() and normal[:1].islower() and not core.isupper():
        return normal[0].upper() + normal[1:]
    return normal


@dataclass
class NormalizedText:
    original: str
    pieces: list[Piece]
    text: str  # what the parser reads

    def piece_at(self, norm_start: int, norm_end: int) -> list[int]:
        """Indices of the pieces that overlap the normalized span [norm_start, norm_end)."""
        return [i for i, p in enumerate(self.pieces) if p.norm_start < norm_end and norm_start < p.norm_end]

    def restore(self, removed: set[int] = frozenset(), replaced: dict[int, str] | None = None) -> str:
        """The original post without the ``removed`` pieces and with ``replaced`` ones swapped (a
        generalization). Everything else, and the spacing between kept pieces, is as the author wrote it; the
        space in front of a removed piece goes with it (after it, for a piece that starts the post)."""
        return self.restore_aligned(removed, replaced)[0]

    def restore_aligned(self, removed: set[int] = frozenset(),
                        replaced: dict[int, str] | None = None) -> tuple[str, list[int]]:
        """:meth:`restore`, and for every character of its result the offset of the character of the original
        it comes from (-1 for the characters of a replacement)."""
        replaced = replaced or {}
        out: list[str] = []
        offsets: list[int] = []
        position = 0
        kept_any = False
        pending_gap = (0, 0)  # the gap before a run of removed pieces (the first that is not empty)
        skipped = False  # pieces were removed since the last kept one
        for index, piece in enumerate(self.pieces):
            gap = (position, piece.start)
            position = piece.end
            if index in removed:
                pending_gap = pending_gap if pending_gap[1] > pending_gap[0] else gap
                skipped = True
                continue
            # After a removed run, no space right inside an opening bracket ("(yearly routine" -> "(routine").
            opens = skipped and bool(out) and out[-1][-1:] in "([{"
            skipped = False
            if pending_gap[1] > pending_gap[0]:
                # A run of pieces was removed: keep one gap, the one before the run, unless the run started
                # the post (then no gap) or this piece is punctuation that hugs its word ("friends ." -> ".").
                empty = gap[0] == gap[1]
                gap = (0, 0) if not kept_any or (not piece.is_word and empty) or opens else pending_gap
                pending_gap = (0, 0)
            elif opens:
                gap = (0, 0)
            elif not kept_any:
                gap = (0, piece.start) if index == 0 else (0, 0)
            out.append(self.original[gap[0]:gap[1]])
            offsets.extend(range(gap[0], gap[1]))
            if index in replaced:
                out.append(replaced[index])
                offsets.extend([-1] * len(replaced[index]))
            else:
                out.append(piece.original)
                offsets.extend(range(piece.start, piece.end))
            kept_any = True
        tail_start = position
        if pending_gap[1] > pending_gap[0]:
            tail_start = len(self.original) if not kept_any else \
                position + len(self.original[position:]) - len(self.original[position:].lstrip())
        out.append(self.original[tail_start:])
        offsets.extend(range(tail_start, len(self.original)))
        return "".join(out), offsets


# Bullets that posts glue to a date ("•5/7/17•"): the parser reads the three as one token.
_BULLETS = frozenset("• · ● ▪ ◦ ★ ☆ ♡ ♥ | ~".split())


def _in_day_list(text: str, matches: list[tuple[int, int]], i: int) -> bool:
    """Whether the i-th piece, a weekday abbreviation, stands in a list of days or after "every", "on", ..."""
    words = [text[start:end].lower() for start, end in matches]
    neighbours = [words[j] for j in (i - 2, i - 1, i + 1, i + 2) if 0 <= j < len(words)]
    after_day = any(w in _WEEKDAY_NAMES for w in words[max(0, i - 4):i]) and words[i - 1] in ("or", "and", ",", "&")
    return (i > 0 and words[i - 1] in _DAY_CONTEXT) or sum(w in WEEKDAY_ABBREVIATIONS for w in neighbours) >= 1 \
        or after_day


def normalize(text: str) -> NormalizedText:
    """Pieces of ``text`` with their normal forms, and the normalized text for the parser (the normal forms
    joined by the original spacing)."""
    matches = [(m.start(), m.end()) for m in _PIECE.finditer(text)]
    pieces: list[Piece] = []
    parts: list[str] = []
    length = 0
    for i, (start, end) in enumerate(matches):
        original = text[start:end]
        previous = text[matches[i - 1][0]:matches[i - 1][1]] if i else ""
        following = text[matches[i + 1][0]:matches[i + 1][1]] if i + 1 < len(matches) else ""
        is_word = any(c.isalnum() for c in original) and original[0] not in "@#&" and "://" not in original
        normal = _with_case(_normal_word(original, previous, following), original) if is_word else original
        if original[0] == "&" and len(original) > 1:
            normal = html.unescape(original)  # "&amp;" -> "&": the parser reads a conjunction, not "amp"
            if normal == original or not normal.strip():
                normal = "&"
        if original.lower() == "min" and following == "." and i + 2 < len(matches) \
                and text[matches[i + 2][0]:matches[i + 2][1]].islower():
            normal = original  # "a min. wage worker": minimum, not a minute
        if original.lower() in WEEKDAY_ABBREVIATIONS and (original.lower() in _ALWAYS_WEEKDAYS
                                                          or _in_day_list(text, matches, i)):
            normal = WEEKDAY_ABBREVIATIONS[original.lower()]
        ago = _GLUED_AGO.match(original)
        if ago:  # "13 yrs.ago": the unit and "ago" glued by a dot
            unit = ago.group(1)
            normal = f"{UNIT_ABBREVIATIONS.get(unit.lower(), unit)} ago"
        if not is_word and len(original) >= 2 and len(set(original)) == 1 and original[0] in "!?":
            normal = original[0]  # "!!!" -> "!" (but "..." stays an ellipsis)
        gap = text[matches[i - 1][1]:start] if i else text[:start]  # whitespace only: every other character is a piece
        if not gap and pieces and ((is_word and pieces[-1].original == "," and len(pieces) >= 2
                                    and (pieces[-2].original[-1:].isalpha()
                                         or (original.isdigit() and len(original) != 3
                                             and pieces[-2].original.isdigit())))
                                   or (original in _BULLETS or pieces[-1].original in _BULLETS)
                                   or (original[0] == "~" and pieces[-1].is_word)
                                   or (original[0] == "#" and pieces[-1].original[0] in "#@" and len(original) > 1)
                                   or (is_word and pieces[-1].original[0] in "!?" and original[:1].isupper())
                                   or (is_word != pieces[-1].is_word and _EMOJI.match(original if not is_word
                                                                                     else pieces[-1].original))):
            # The parser reads "Sat,7pm", "time~", "!!Hope", "#vbs2017#fbc" as one token; only the normalized text
            # changes.
            gap = " "
        parts.append(gap)
        length += len(gap)
        pieces.append(Piece(original, start, end, normal, length, length + len(normal)))
        parts.append(normal)
        length += len(normal)
    return NormalizedText(text, pieces, "".join(parts))
