"""How common an English word is: the one frequency list every recognizer and the time tagger share."""

from __future__ import annotations

from functools import cache


@cache
def _frequencies():
    from spellchecker import SpellChecker

    return SpellChecker(language="en", distance=1).word_frequency


def word_frequency(word: str) -> int:
    """How often ``word`` (lower case) occurs in pyspellchecker's English list; 0 when it is not a word."""
    return _frequencies()[word.lower()] if word else 0
