"""Sensitive terms in free text: spaCy NER (OntoNotes types), lexicon recognizers that fill what the small model
misses, plus precise rule-based recognizers (rx-anon, §4).

A :class:`TermRecognizer` finds the terms of one text or of a stream of texts; :class:`TermCache` keeps the
results by (recognizer fingerprint, sha256 of the text) in an SQLite file, and :func:`recognize_with_cache`
streams texts through both, so that re-running an anonymization with another k or lambda skips the NLP.

Unicode text stays Unicode: offsets are ``str`` indices into the original text (never bytes, never a
normalised copy), and no character is stripped (rx-anon's reference removed non-ASCII characters). The rules
are not tied to one country.

The modules: `rules` (MAIL, URL, PHONE, POSTCODE, and CODE from `codes`, recognized in every configuration),
`custom` (the user's entity types), `lexicons` (PERSON, GPE, LOC, ORG, DATE, TIME from the gazetteer, the US
Census name lists of the ``names`` package, organisation suffixes and date / time shapes; on by default,
``TermRecognizer(lexicons=False)`` for spaCy alone), `extend` (a PERSON span grows over the name tokens next to
it, with the lexicons), `recognizer` (TermRecognizer: spaCy NER plus all of them, and how overlapping spans are
resolved) and `cache`.
"""

from anonymizer.recognize.entities import (
    ALWAYS_TYPES,
    BUILTIN_TYPES,
    DEFAULT_MODEL,
    ONTONOTES_TYPES,
    RULE_TYPES,
    CustomEntity,
)

from .cache import TermCache, recognize_with_cache
from .recognizer import Term, TermRecognizer

__all__ = [
    "ALWAYS_TYPES",
    "BUILTIN_TYPES",
    "DEFAULT_MODEL",
    "ONTONOTES_TYPES",
    "RULE_TYPES",
    "CustomEntity",
    "Term",
    "TermCache",
    "TermRecognizer",
    "recognize_with_cache",
]
