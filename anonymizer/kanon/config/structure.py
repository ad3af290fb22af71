"""The shape of a configuration document, typed: every section and field of both formats is declared here as
what it must be (a mapping, a list of strings, a string, a number, a boolean) and checked before the parsers
use any value. A value of the wrong shape is a ConfigError naming its path and saying what was expected and
what was found ("entities.native: item 1, {'a': 1}, is a mapping; expected an entity type name (a string)";
"parameters.k: expected an integer >= 2, got a list"), so it never reaches code written for another type.

Only shapes are checked here. What a value of the right shape means (a known role, k >= 2, a column of the
CSV, a regex RE2 accepts) is validation's; unknown keys are the parsers' (a warning). The walk follows the
declaration, never the document, so it is bounded whatever the document holds: a list is looked into one
level deep, a hierarchy at most as deep and as large as the parser takes one.
"""

from __future__ import annotations

import datetime
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from .parsing import MAX_HIERARCHY_DEPTH, MAX_HIERARCHY_NODES, ConfigError, show, type_name

#: Wrong items reported per list; the rest of a long wrong list would only repeat them.
MAX_ITEM_ERRORS = 5


def _is_integer(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _is_number(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


def _is_string(value: Any) -> bool:
    return isinstance(value, str)


def _is_boolean(value: Any) -> bool:
    return isinstance(value, bool)


# What a scalar must be: (test, the noun in messages).
INTEGER = (_is_integer, "an integer")
NUMBER = (_is_number, "a number")
STRING = (_is_string, "a string")
BOOLEAN = (_is_boolean, "a boolean")
STRING_OR_BOOLEAN = (lambda value: isinstance(value, str | bool), "a string or a boolean")


def _compound(value: Any) -> bool:
    return value is None or isinstance(value, Mapping | list | tuple | set)


def _quote_hint(value: Any) -> str:
    """Why YAML read as something else what the user may have meant as a string."""
    if isinstance(value, bool):
        return " (YAML reads yes/no, on/off and true/false without quotes as booleans: put it in quotes)"
    if isinstance(value, datetime.date):
        return " (YAML reads an unquoted date as a date: put it in quotes)"
    return ""


class Shape:
    """What a value must look like. ``check`` appends a ConfigError per problem of ``value`` at ``path``."""

    #: Whether null (YAML's ``~``, an empty value) stands for "not given"; else it is an error.
    null: bool = False

    def check(self, value: Any, path: str, errors: list[ConfigError]) -> None:
        raise NotImplementedError


@dataclass(frozen=True)
class Scalar(Shape):
    """A string, a number, an integer or a boolean; ``what`` describes a right value ("an integer >= 2")."""

    kind: tuple
    what: str
    null: bool = False

    def check(self, value: Any, path: str, errors: list[ConfigError]) -> None:
        test, noun = self.kind
        if test(value) or (value is None and self.null):
            return
        if _compound(value):
            errors.append(ConfigError(path, f"expected {self.what}, got {type_name(value)}"))
        else:
            hint = _quote_hint(value) if test is _is_string else ""
            errors.append(ConfigError(path, f"{show(value)} is not {noun}{hint}; expected {self.what}"))


@dataclass(frozen=True)
class ListOf(Shape):
    """A list of scalars, e.g. entity type names: a list, each item of ``item`` kind (a few bad ones named by
    their position, 1-based, in the list's own error)."""

    what: str  # one item, "an entity type name"
    plural: str  # "entity type names"
    item: tuple = STRING
    null: bool = False

    def check(self, value: Any, path: str, errors: list[ConfigError]) -> None:
        if value is None and self.null:
            return
        if not isinstance(value, list | tuple):
            errors.append(ConfigError(path, f"expected a list of {self.plural}, got {type_name(value)}"))
            return
        test, noun = self.item
        wrong = (pair for pair in enumerate(value, start=1) if not test(pair[1]))
        for _, (number, item) in zip(range(MAX_ITEM_ERRORS), wrong, strict=False):
            hint = _quote_hint(item) if test is not _is_number else ""
            errors.append(ConfigError(path, f"item {number}, {show(item)}, is {type_name(item)}; expected "
                                            f"{self.what} ({noun}){hint}"))


@dataclass(frozen=True)
class OneOf(Shape):
    """The first of ``shapes`` that the value's kind selects: a scalar shape for a scalar, a list shape for a
    list (rx-anon's custom entity: one regex or a list of them)."""

    scalar: Scalar
    items: ListOf
    null: bool = False

    def check(self, value: Any, path: str, errors: list[ConfigError]) -> None:
        if value is None and self.null:
            return
        if isinstance(value, list | tuple):
            self.items.check(value, path, errors)
        elif _compound(value):
            errors.append(ConfigError(path, f"expected {self.scalar.what} or a list of {self.items.plural}, got "
                                            f"{type_name(value)}"))
        else:
            self.scalar.check(value, path, errors)


@dataclass(frozen=True)
class Fields(Shape):
    """A mapping with known keys, each with its shape; other keys are left to the parser (a warning)."""

    fields: dict[str, Shape]
    what: str = "a mapping"
    null: bool = False

    def check(self, value: Any, path: str, errors: list[ConfigError]) -> None:
        if value is None and self.null:
            return
        if not isinstance(value, Mapping):
            errors.append(ConfigError(path, f"expected {self.what}, got {type_name(value)}"))
            return
        for key, shape in self.fields.items():
            if key in value:
                shape.check(value[key], _join(path, key), errors)


@dataclass(frozen=True)
class Keyed(Shape):
    """A mapping whose keys are names chosen by the user (columns, custom entity labels), every value of the
    shape ``value``. A key that is not a name (YAML reads yes/no as booleans) is an error at its path."""

    value: Shape
    what: str
    key_problem: str
    integer_keys: bool = False  # a column named 2020 is read as the integer 2020; it names the column "2020"
    null: bool = True

    def check(self, value: Any, path: str, errors: list[ConfigError]) -> None:
        if value is None and self.null:
            return
        if not isinstance(value, Mapping):
            errors.append(ConfigError(path, f"expected {self.what}, got {type_name(value)}"))
            return
        for key, child in value.items():
            name_ok = isinstance(key, str) or (self.integer_keys and _is_integer(key))
            if not name_ok:
                errors.append(ConfigError(f"{path}.{key}", self.key_problem))
                continue
            self.value.check(child, f"{path}.{key}", errors)


@dataclass(frozen=True)
class Entries(Shape):
    """A list of mappings, each named by its ``name_key`` (our schema's attributes by column, custom entities
    by label): an entry's errors name it as ``path.<name>``, or ``path.<index>`` (0-based) without a name."""

    entry: Fields
    name_key: str
    what: str  # the list, "a list of attributes"
    entry_problem: str  # an entry that is not a mapping, or has no name
    name_what: str = "a name (a string)"
    name_required: bool = True
    null: bool = True

    def check(self, value: Any, path: str, errors: list[ConfigError]) -> None:
        if value is None and self.null:
            return
        if not isinstance(value, list | tuple):
            errors.append(ConfigError(path, f"expected {self.what}, got {type_name(value)}"))
            return
        for index, item in enumerate(value):
            if not isinstance(item, Mapping):
                errors.append(ConfigError(f"{path}.{index}", f"{self.entry_problem}, got {type_name(item)}"))
                continue
            name = item.get(self.name_key)
            named = isinstance(name, str) and bool(name)
            if self.name_required and not named:
                got = (f"a mapping without a {self.name_key}" if name is None
                       else f"a {self.name_key} {show(name)}, which is {type_name(name)}")
                errors.append(ConfigError(f"{path}.{index}", f"{self.entry_problem}, got {got}"))
                continue
            if name is not None and not isinstance(name, str):
                errors.append(ConfigError(f"{path}.{index}", f"its {self.name_key} {show(name)} is "
                                                             f"{type_name(name)}; expected {self.name_what}"))
            self.entry.check(item, f"{path}.{name}" if named else f"{path}.{index}", errors)


@dataclass(frozen=True)
class Hierarchy(Shape):
    """rx-anon's generalization hierarchy: a node is a mapping with a ``name`` (a string "low-high") and
    optional ``children``, a list of nodes. Every problem is an error of the hierarchy's path that says which
    node; nodes past the parser's depth and size bounds are left to it (it reports them)."""

    null: bool = True

    def check(self, value: Any, path: str, errors: list[ConfigError]) -> None:
        if value is None and self.null:
            return
        budget = [MAX_HIERARCHY_NODES]  # nodes looked at: YAML aliases make a small file name billions
        pending: list[tuple[Any, str, int]] = [(value, "the root node", 0)]
        while pending:
            node, where, depth = pending.pop()
            budget[0] -= 1
            if budget[0] < 0:
                return
            if depth > MAX_HIERARCHY_DEPTH:
                continue
            if not isinstance(node, Mapping):
                errors.append(ConfigError(path, f"{where}: expected a node, a mapping with a name \"low-high\" and "
                                                f"optional children, got {type_name(node)}"))
                continue
            if "name" not in node:
                errors.append(ConfigError(path, f"{where}: has no name; expected a name \"low-high\" such as "
                                                "\"1-20\""))
                continue
            name = node["name"]
            if not isinstance(name, str):
                errors.append(ConfigError(path, f"{where}: its name {show(name)} is {type_name(name)}; expected "
                                                "a range \"low-high\" such as \"1-20\" (a string)"))
                continue
            children = node.get("children")
            if children is None:
                continue
            if not isinstance(children, list | tuple):
                errors.append(ConfigError(path, f"children of {show(name)}: expected a list of nodes, got "
                                                f"{type_name(children)}"))
                continue
            # Depth first, in the order written (the stack takes them reversed).
            pending.extend((child, f"child {number} of {show(name)}", depth + 1)
                           for number, child in reversed(list(enumerate(children, start=1))))


@dataclass(frozen=True)
class LDiversity(Shape):
    """Our schema's l-diversity: null, {column: <name>, l: <integer>} or [<name>, <integer>]."""

    null: bool = True
    parts: tuple = field(default=(("column", Scalar(STRING, "the name of a sensitive column")),
                                  ("l", Scalar(INTEGER, "an integer >= 2"))))

    def check(self, value: Any, path: str, errors: list[ConfigError]) -> None:
        if value is None:
            return
        if isinstance(value, Mapping) and set(value) == {"column", "l"}:
            values = [value["column"], value["l"]]
        elif isinstance(value, list | tuple) and len(value) == 2:
            values = list(value)
        else:
            errors.append(ConfigError(path, "expected {column: <sensitive column>, l: <integer >= 2>} or null, "
                                            f"got {type_name(value)}"))
            return
        for (key, shape), part in zip(self.parts, values, strict=True):
            shape.check(part, f"{path}.{key}", errors)


def _join(path: str, key: str) -> str:
    return f"{path}.{key}" if path else key


# -- the two formats --------------------------------------------------------------------------------------------
_ENTITY_TYPES = ListOf("an entity type name", "entity type names", null=True)
#: An ordinal column's values, low to high: YAML reads unquoted 1, 2, 3 as numbers, which name the same values.
_ORDER = ListOf("a value of the column", "the column's values, low to high",
                item=(lambda value: isinstance(value, str) or _is_number(value), "a string or a number"), null=True)
_BIAS = Scalar(NUMBER, "a number between 0 and 1")
_ROLE_WHAT = "a role (a string such as quasi_identifier)"
_TYPE_WHAT = "a type (a string such as nominal)"
_K = Scalar(INTEGER, "an integer >= 2")
_STRATEGY = Scalar(STRING, "a strategy, mondrian or gdf")
_LAMBDA = Scalar(NUMBER, "a number between 0 and 1")
_MODEL = Scalar(STRING, "the name of a spaCy model (a string)", null=True)

RX_ANON = Fields({
    "parameters": Fields({"k": _K, "strategy": _STRATEGY, "relational_weight": _LAMBDA,
                          "numbered_pseudonyms": Scalar(BOOLEAN, "true or false")},
                         what="a mapping of k, strategy and relational_weight", null=True),
    "nlp": Fields({"model": _MODEL,
                   # rx-anon's directory of cached documents; Kakurega keeps its own cache and ignores it.
                   "cache": Scalar(STRING_OR_BOOLEAN, "a directory (a string) or a boolean", null=True)},
                  what="a mapping of model and cache", null=True),
    "attributes": Keyed(
        Fields({"anonymization_type": Scalar(STRING, _ROLE_WHAT, null=True),
                "type": Scalar(STRING, _TYPE_WHAT, null=True),
                "bias": _BIAS,
                "format": Scalar(STRING, "a strptime date format such as \"%d/%m/%Y\"", null=True),
                "order": _ORDER,
                "hierarchy": Hierarchy(),
                "entities": _ENTITY_TYPES},
               what="a mapping of the column's anonymization_type, type and other settings", null=True),
        what="a mapping of column names to their settings", key_problem="not a column name; put the name in quotes",
        integer_keys=True),
    "entities": Fields({
        "native": _ENTITY_TYPES,
        "custom": Keyed(OneOf(Scalar(STRING, "a regular expression (a string)"),
                              ListOf("a regular expression", "regular expressions"), null=True),
                        what="a mapping of labels to regular expressions",
                        key_problem="not a label; expected an upper-case name such as STUDENT_ID"),
    }, what="a mapping of native and custom", null=True),
}, what="a mapping with attributes")

OURS = Fields({
    "version": Scalar(INTEGER, "the schema version, 1"),
    "k": _K,
    "strategy": _STRATEGY,
    "relational_weight": _LAMBDA,
    "seed": Scalar(INTEGER, "an integer from 0 to 4294967295"),
    "generalize_terms": Scalar(BOOLEAN, "true or false"),
    "recode_everywhere": Scalar(BOOLEAN, "true or false"),
    "numbered_pseudonyms": Scalar(BOOLEAN, "true or false"),
    "nlp_model": _MODEL,
    "entity_types": _ENTITY_TYPES,
    "custom_entities": Entries(
        Fields({"patterns": ListOf("a regular expression", "regular expressions", null=True),
                "terms": ListOf("a term", "terms", null=True)}),
        name_key="label", what="a list of custom entities", name_required=False,
        name_what="an upper-case label (a string such as STUDENT_ID)",
        entry_problem="expected a mapping with label, patterns and terms"),
    "l_diversity": LDiversity(),
    "attributes": Entries(
        Fields({"role": Scalar(STRING, _ROLE_WHAT, null=True),
                "type": Scalar(STRING, _TYPE_WHAT, null=True),
                "bias": _BIAS,
                "date_format": Scalar(STRING, "a strptime date format such as \"%d/%m/%Y\"", null=True),
                "order": _ORDER,
                "hierarchy": Hierarchy(),
                "entities": _ENTITY_TYPES}),
        name_key="name", what="a list of attributes",
        entry_problem="expected a mapping with a column name, role and type"),
    "warnings": ListOf("a message", "messages", null=True),
}, what="a mapping with attributes")


def errors_after(first: list[ConfigError], then: list[ConfigError]) -> list[ConfigError]:
    """``first``, then the errors of ``then`` about other fields: a field's first problem is the one to fix (a
    wrong shape before what the parser or validation makes of the placeholder it was given)."""
    reported = {error.field for error in first}
    return first + [error for error in then if not _under_any(error.field, reported)]


def _under_any(field: str, prefixes: set[str]) -> bool:
    """Whether ``field`` is one of ``prefixes`` or lies under one (``prefix.…``). Looked up at each dot of the
    field, so 2,000 wrong columns cost a few lookups each, not a scan of every reported field (10 s before)."""
    if not prefixes:
        return False
    if field in prefixes:
        return True
    end = field.find(".")
    while end != -1:
        if field[:end] in prefixes:
            return True
        end = field.find(".", end + 1)
    return False


def structure_errors(document: Any, shape: Shape) -> list[ConfigError]:
    """Every value of ``document`` whose shape is not the declared one, as ConfigErrors naming its path."""
    errors: list[ConfigError] = []
    shape.check(document, "", errors)
    return [ConfigError(error.field or "config", error.template, **error.params) for error in errors]
