"""Checking a configuration against a CSV header: every problem, each naming its field in our schema's
spelling (load_config translates them for rx-anon's files)."""

from __future__ import annotations

import itertools
import re
from collections.abc import Sequence
from datetime import UTC, datetime
from typing import Any

from anonymizer.recognize.entities import BUILTIN_TYPES, DEFAULT_MODEL, ONTONOTES_TYPES, RULE_TYPES
from anonymizer.recognize.patterns import PatternError, compile_pattern
from anonymizer.texts import gettext_noop

from .parsing import model_installed, show, type_name
from .schema import (
    ROLES,
    STRATEGIES,
    TYPES,
    AttributeConfig,
    ConfigError,
    HierarchyNode,
    KanonConfig,
    direct_identifier_problem,
)

_LABEL_RE = re.compile(r"[A-Z][A-Z0-9_]*")
#: The largest k (and l) accepted: far more persons than any class could need, small enough to stay a number.
MAX_K = 1_000_000
#: Seeds are unsigned 32-bit integers, which every seeded generator accepts.
MAX_SEED = 2**32 - 1
# Two instants differing in every date field but not in the time of day: a date format must tell them apart.
_SAMPLE_DATES = (datetime(2004, 5, 14, 13, 45, 30, tzinfo=UTC),
                 datetime(1987, 11, 3, 13, 45, 30, tzinfo=UTC))


def validate(config: KanonConfig, columns: Sequence[str]) -> None:
    """Check an in-memory configuration against the CSV header `columns` (names must match exactly, and every
    column must be configured). Raises ConfigError (possibly .many) naming every bad field."""
    problems = config_problems(config, list(columns))
    if problems:
        raise ConfigError.many(problems)


def _is_number(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


def _as_text(value: Any) -> str:
    """A value that should be a name: itself when it is a string, else shown briefly."""
    return value if isinstance(value, str) else show(value)


def _is_role(value: Any) -> bool:
    return isinstance(value, str) and value in ROLES


def _is_type(value: Any) -> bool:
    return isinstance(value, str) and value in TYPES


def _is_integer(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _date_format_problem(fmt: Any) -> str | None:
    """Why `fmt` is no usable strptime format for dates, or None: it must render dates that parse back to the
    same text, and tell different dates apart."""
    if not isinstance(fmt, str) or not fmt.strip():
        got = "" if fmt is None else f", not {type_name(fmt)}"
        return f"a date column needs a strptime format such as \"%d/%m/%Y\"{got}"
    if len(fmt) > 100:
        return f"{show(fmt)} is {len(fmt):,} characters long; expected a strptime format like \"%d/%m/%Y\""
    try:
        rendered = [sample.strftime(fmt) for sample in _SAMPLE_DATES]
        for text in rendered:
            if datetime.strptime(text, fmt).strftime(fmt) != text:
                return (f"{show(fmt)} does not parse back what it formats; expected a strptime format like "
                        "\"%d/%m/%Y\"")
    except ValueError as exc:
        return f"{show(fmt)} is not a valid strptime format ({exc})"
    if rendered[0] == rendered[1]:
        return (f"{show(fmt)} contains no date (day, month or year); expected a strptime format like "
                "\"%d/%m/%Y\"")
    return None


def _hierarchy_problems(root: HierarchyNode) -> list[str]:
    problems = []
    for node in root.nodes():
        if node.low > node.high:
            problems.append(f"node {node.name!r}: low is greater than high")
        for child in node.children:
            if not node.contains(child.low, child.high):
                problems.append(f"node {child.name!r} is not inside its parent {node.name!r}")
        ordered = sorted(node.children, key=lambda child: child.low)
        for left, right in itertools.pairwise(ordered):
            if right.low <= left.high:
                problems.append(f"nodes {left.name!r} and {right.name!r} overlap (children of {node.name!r})")
    return problems


def _attribute_problems(attribute: AttributeConfig, known_entities: set[str]) -> list[ConfigError]:
    """What is wrong with one attribute's own settings."""
    field = f"attributes.{attribute.name}"
    errors = []

    def error(key: str, message: str, **params: Any) -> None:
        errors.append(ConfigError(f"{field}.{key}", message, **params))

    role_ok, type_ok = attribute.role in ROLES, attribute.type in TYPES
    if not role_ok:
        error("role", gettext_noop("%(value)s is not a role; expected one of %(roles)s"), value=show(attribute.role),
              roles=", ".join(ROLES))
    if not type_ok:
        error("type", gettext_noop("%(value)s is not a type; expected one of %(types)s"), value=show(attribute.type),
              types=", ".join(TYPES))
    if role_ok and type_ok:
        if attribute.role == "text" and attribute.type != "text":
            error("type", gettext_noop("a column with role text must have type text, not %(type)s"),
                  type=attribute.type)
        elif attribute.type == "text" and attribute.role != "text":
            error("role", gettext_noop("a column of type text must have role text, not %(role)s"),
                  role=attribute.role)
    if not _is_number(attribute.bias) or not 0 <= attribute.bias <= 1:
        error("bias", gettext_noop("%(value)s is not a number between 0 and 1"), value=show(attribute.bias))
    if attribute.type == "date":
        problem = _date_format_problem(attribute.date_format)
        if problem:
            error("date_format", problem)
    elif attribute.date_format is not None:
        error("date_format", gettext_noop("only for type date; remove it or set the type to date"))
    if attribute.type == "ordinal":
        order = attribute.order
        if not order:
            error("order", gettext_noop("an ordinal column needs its values in order, low to high"))
        elif not all(isinstance(value, str) for value in order):
            error("order", gettext_noop("the values must be strings, as in the CSV"))
        elif len(set(order)) < len(order):
            twice = sorted({value for value in order if order.count(value) > 1})
            error("order", gettext_noop("values listed more than once: %(values)s"), values=", ".join(twice))
    elif attribute.order is not None:
        error("order", gettext_noop("only for type ordinal; remove it or set the type to ordinal"))
    if attribute.hierarchy is not None:
        if attribute.type != "numerical":
            error("hierarchy", gettext_noop("only for type numerical; remove it or set the type to numerical"))
        else:
            errors += [ConfigError(f"{field}.hierarchy", problem)
                       for problem in _hierarchy_problems(attribute.hierarchy)]
    unknown = _unknown_entities(attribute.entities, known_entities)
    if unknown:
        error("entities", _unknown_entities_message(unknown))
    return errors


def _unknown_entities(entities: Sequence, known: set[str]) -> list:
    return [entity for entity in entities if not isinstance(entity, str) or entity not in known]


def _unknown_entities_message(unknown: list) -> str:
    shown = [entity if isinstance(entity, str) else show(entity) for entity in unknown[:20]]
    return (f"unknown entity types: {', '.join(shown)}; expected OntoNotes types "
            f"({', '.join(ONTONOTES_TYPES)}), rule types ({', '.join(RULE_TYPES)}) or a custom entity's label")


def _custom_entity_problems(config: KanonConfig) -> list[ConfigError]:
    errors = []
    seen: set[str] = set()
    for index, entity in enumerate(config.custom_entities):
        label = entity.label
        field = f"custom_entities.{label}" if isinstance(label, str) and label else f"custom_entities.{index}"
        if not isinstance(label, str) or not _LABEL_RE.fullmatch(label) or len(label) > 64:
            errors.append(ConfigError(field, f"label {show(label)} must be an upper-case identifier of at most 64 "
                                             "characters such as STUDENT_ID"))
        elif label in BUILTIN_TYPES:
            errors.append(ConfigError(field, f"{label} is a built-in entity type; choose another label"))
        elif label in seen:
            errors.append(ConfigError(field, "defined more than once"))
        if isinstance(label, str):
            seen.add(label)
        for pattern in entity.patterns:
            try:
                compiled = compile_pattern(pattern)  # RE2: what it refuses could take exponential time
            except PatternError as exc:
                errors.append(ConfigError(f"{field}.patterns", str(exc)))
                continue
            if compiled.fullmatch("") is not None:
                errors.append(ConfigError(f"{field}.patterns", f"{pattern!r} matches the empty string"))
        for term in entity.terms:
            if not isinstance(term, str) or not term.strip():
                errors.append(ConfigError(f"{field}.terms", f"{show(term)} is not a non-empty string"))
        if not entity.patterns and not entity.terms:
            errors.append(ConfigError(field, "needs at least one pattern or term"))
    return errors


def config_problems(config: KanonConfig, columns: list[str]) -> list[ConfigError]:
    """Every problem of `config` for a CSV with header `columns`, fields in our schema's spelling."""
    errors: list[ConfigError] = []

    def error(field: str, message: str, **params: Any) -> None:
        errors.append(ConfigError(field, message, **params))

    custom_labels = {entity.label for entity in config.custom_entities if isinstance(entity.label, str)}
    known_entities = set(BUILTIN_TYPES) | custom_labels
    seen: set[str] = set()
    for attribute in config.attributes:
        field = f"attributes.{attribute.name}"
        if attribute.name not in columns:
            folded = [c for c in columns if c.casefold() == str(attribute.name).casefold()]
            hint = (f"did you mean {folded[0]!r}? names must match the header exactly" if folded
                    else f"the columns are: {', '.join(columns)}")
            error(field, f"no such column; {hint}")
        elif columns.count(attribute.name) > 1:
            error(field, gettext_noop("the CSV header has several columns of this name; rename them"))
        if attribute.name in seen:
            error(field, gettext_noop("configured more than once"))
            continue
        seen.add(attribute.name)
        errors += _attribute_problems(attribute, known_entities)
    missing = [column for column in dict.fromkeys(columns) if column not in seen]
    if missing:
        error("attributes", gettext_noop("columns not configured: %(columns)s; give each a role (insensitive keeps "
                                         "a column unchanged)"), columns=", ".join(missing))
    # Which column identifies the person and what is left to anonymize are only told once every column's role
    # and type are known: with one misspelt, these would be noise (it may be the identifier).
    if all(_is_role(a.role) and _is_type(a.type) for a in config.attributes):
        problem = direct_identifier_problem([a.name for a in config.attributes if a.role == "direct_identifier"])
        if problem:
            error("attributes", problem)
        if not any(a.role in ("quasi_identifier", "text") for a in config.attributes):
            error("attributes", gettext_noop("no quasi-identifier and no text column: there is nothing to anonymize"))

    if not _is_integer(config.k):
        error("k", gettext_noop("%(value)s is not an integer; expected an integer >= 2"), value=show(config.k))
    elif config.k < 2:
        error("k", gettext_noop("%(value)s is too small; expected an integer >= 2"), value=show(config.k))
    elif config.k > MAX_K:
        error("k", gettext_noop("%(value)s is too large; expected an integer from 2 to %(max)s"), value=show(config.k),
              max=f"{MAX_K:,}")
    if not isinstance(config.strategy, str) or config.strategy not in STRATEGIES:
        error("strategy", gettext_noop("%(value)s is not a strategy; expected one of %(strategies)s"),
              value=show(config.strategy), strategies=", ".join(STRATEGIES))
    if not _is_number(config.relational_weight) or not 0 <= config.relational_weight <= 1:
        error("relational_weight", gettext_noop("%(value)s is not a number between 0 and 1"),
              value=show(config.relational_weight))
    for name in ("generalize_terms", "recode_everywhere", "numbered_pseudonyms"):
        if not isinstance(getattr(config, name), bool):
            error(name, f"{show(getattr(config, name))} is not true or false")
    if not _is_integer(config.seed) or not 0 <= config.seed <= MAX_SEED:
        error("seed", f"{show(config.seed)} is not an integer from 0 to {MAX_SEED}")
    if not isinstance(config.nlp_model, str):
        error("nlp_model", f"expected the name of a spaCy model, got {type_name(config.nlp_model)}")
    elif config.nlp_model != DEFAULT_MODEL and not model_installed(config.nlp_model):
        error("nlp_model", f"{show(config.nlp_model)} is not an installed spaCy model; expected {DEFAULT_MODEL} "
                           "or another model package installed on the server")

    unknown = _unknown_entities(config.entity_types, known_entities)
    if unknown:
        error("entity_types", _unknown_entities_message(unknown))
    names = [e for e in config.entity_types if isinstance(e, str)]
    twice = sorted({e for e in names if names.count(e) > 1})
    if twice:
        error("entity_types", f"listed more than once: {', '.join(twice)}")
    if config.text_columns and not config.entity_types and not config.custom_entities:
        error("entity_types", "no entity types and no custom entities: nothing would be recognised in the text "
                              f"columns ({', '.join(config.text_columns)})")
    errors += _custom_entity_problems(config)

    if config.l_diversity is not None:
        errors += _l_diversity_problems(config)
    return errors


def _l_diversity_problems(config: KanonConfig) -> list[ConfigError]:
    errors = []
    try:
        column, l_value = config.l_diversity
    except (TypeError, ValueError):
        return [ConfigError("l_diversity", gettext_noop("expected (sensitive column, l)"))]
    roles = {a.name: a.role for a in config.attributes}
    if not isinstance(column, str) or column not in roles:
        errors.append(ConfigError("l_diversity.column", gettext_noop("%(value)s is not a configured column"),
                                  value=show(column)))
    elif roles[column] != "sensitive":
        errors.append(ConfigError("l_diversity.column", gettext_noop("%(column)s has role %(role)s; l-diversity needs "
                                                                     "a column with role sensitive"),
                                  column=repr(column), role=_as_text(roles[column])))
    if not _is_integer(l_value) or not 2 <= l_value <= MAX_K:
        errors.append(ConfigError("l_diversity.l", gettext_noop("%(value)s is not an integer >= 2 (at most %(max)s)"),
                                  value=show(l_value), max=f"{MAX_K:,}"))
    return errors
