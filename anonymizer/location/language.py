"""Whether a post is written in the language of the model about to read it (no Django): a post in another
language is tokenized into pieces the model never learned, scores low everywhere and would "pass" every check
while saying nothing. So the inspect page and API warn instead of passing silently.

The rule, by script (counted over letters; URLs, @mentions and #hashtags' marks are letters too, which is fine):

- **Japanese model**: kana (hiragana or katakana) mark Japanese, and any post with kana passes. A post with
  letters but no kana is flagged when it has a Simplified-Chinese-only character (one of GB 2312, the simplified
  Chinese character set, that JIS X 0208 with its Microsoft extensions, cp932, lacks: 东, 们, 这 — not 東, 我,
  塔), Hangul, or no Han character at all (Latin letters only). A Han-only post without such characters (a
  Japanese address, 東京都渋谷区) is not flagged: nothing offline tells it from Traditional Chinese.
- **English model**: flagged when fewer than half of its letters are Latin (kana, Han, Hangul, Cyrillic …).
- Other languages, and posts without letters: no check.

Both code pages ship with Python, so the check is offline and instant.
"""

from __future__ import annotations

import re
import unicodedata

from anonymizer.texts import gettext, gettext_noop, ngettext

KANA = re.compile(r"[\u3041-\u309f\u30a0-\u30ff\u31f0-\u31ff\uff66-\uff9f]")
HAN = re.compile(r"[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]")
HANGUL = re.compile(r"[\u1100-\u11ff\u3130-\u318f\uac00-\ud7af]")
LANGUAGE_NAMES = {"ja": gettext_noop("Japanese"), "en": gettext_noop("English")}
LATIN_SHARE = 0.5  # an English model: at least this share of a post's letters Latin


def simplified_only(char: str) -> bool:
    """A Han character of simplified Chinese (GB 2312) that Japanese writing (JIS X 0208 + cp932) does not use."""
    try:
        char.encode("cp932")
        return False
    except UnicodeEncodeError:
        pass
    try:
        char.encode("gb2312")
        return True
    except UnicodeEncodeError:
        return False


def _latin(char: str) -> bool:
    return char.isalpha() and unicodedata.name(char, "").startswith("LATIN")


def language_problem(text: str, language: str) -> str | None:
    """Why ``text`` does not look written in ``language`` (a model's language: "ja" or "en"), or None (see the
    module's rule)."""
    letters = [c for c in text if c.isalpha()]
    if not letters:
        return None
    if language == "ja":
        if KANA.search(text):
            return None
        simplified = sorted({c for c in text if HAN.match(c) and simplified_only(c)}, key=text.index)
        if simplified:
            shown = "、".join(simplified[:5])
            return ngettext("it has no kana, and %(shown)s is a Simplified Chinese character not used in Japanese",
                            "it has no kana, and %(shown)s are Simplified Chinese characters not used in Japanese",
                            len(simplified)) % {"shown": shown}
        if HANGUL.search(text):
            return gettext("it has no kana and is written in Hangul (Korean)")
        if not HAN.search(text):
            return gettext("it has no kana and no kanji")
        return None
    if language == "en":
        latin = sum(_latin(c) for c in letters)
        if latin < LATIN_SHARE * len(letters):
            return gettext("only %(latin)d of its %(letters)d letters are Latin") % {"latin": latin,
                                                                                  "letters": len(letters)}
        return None
    return None


def language_warning(text: str, language: str, model_name: str) -> dict | None:
    """The inspect warning ({field, message}) for a post not in the model's language, or None."""
    problem = language_problem(text, language)
    if problem is None:
        return None
    name = gettext(LANGUAGE_NAMES[language]) if language in LANGUAGE_NAMES else language
    return {"field": "text", "message": gettext(
        "This post does not look %(language)s (%(problem)s), but the model %(model)s reads %(language)s posts: its "
        "words are unknown to it, so low scores here say nothing about where the post points. Choose a model of the "
        "post's language.") % {"language": name, "problem": problem, "model": model_name}}
