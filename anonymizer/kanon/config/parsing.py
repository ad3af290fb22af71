"""What both formats' parsers share: tolerant readers of YAML values (kept as written where they are wrong, for
validation to judge), hierarchy nodes, column names resolved to the header, and the spaCy model a file names."""

from __future__ import annotations

import datetime
import importlib.util
import re
import reprlib
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from anonymizer.recognize.entities import DEFAULT_MODEL, MODEL_ALIASES

from .schema import ConfigError, HierarchyNode

# Bounds of a range: 15 digits are plenty and keep int() away from huge numbers.
_RANGE_RE = re.compile(r"\s*([+-]?[0-9]{1,15})\s*-\s*([+-]?[0-9]{1,15})\s*")
_MAX_HIERARCHY_DEPTH = 64
#: Nodes of one hierarchy; YAML aliases can make a small file describe billions of them.
MAX_HIERARCHY_NODES = 10_000


class _BoundedRepr(reprlib.Repr):
    """repr for messages about a value as written: short whatever its size (YAML aliases can nest a list a
    billion elements deep in a small file; an integer of 5,000 digits has no repr)."""

    def __init__(self) -> None:
        super().__init__()
        self.maxstring, self.maxother, self.maxlong = 80, 80, 40
        self.maxlist = self.maxtuple = self.maxdict = self.maxset = 4
        self.maxlevel = 2

    def repr_int(self, value: int, level: int) -> str:
        if value.bit_length() > 128:
            return f"<an integer of about {int(value.bit_length() * 0.30103):,} digits>"
        return super().repr_int(value, level)


_REPR = _BoundedRepr()


def _show(value: Any) -> str:
    """A value for a message, short whatever it is; numbers as the user probably wrote them (YAML's 2 became
    2.0 here)."""
    if isinstance(value, float):
        return f"{value:g}"
    if isinstance(value, datetime.date):  # YAML reads an unquoted 2004-05-14 as a date
        return value.isoformat()
    return _REPR.repr(value)


def _type_name(value: Any) -> str:
    """What a YAML value is, in YAML's words."""
    names = {bool: "a boolean", int: "an integer", float: "a number", str: "a string", list: "a list",
             tuple: "a list", dict: "a mapping", type(None): "null", datetime.date: "a date",
             datetime.datetime: "a date and time", set: "a set", bytes: "binary data"}
    return names.get(type(value), "a mapping" if isinstance(value, Mapping) else type(value).__name__)


def _resolve_name(name: Any, columns: list[str]) -> Any:
    """The column `name` refers to: itself if in the header, else the one column equal ignoring case."""
    if not isinstance(name, str) or name in columns:
        return name
    folded = [column for column in columns if column.casefold() == name.casefold()]
    return folded[0] if len(set(folded)) == 1 else name


def model_installed(name: Any) -> bool:
    """An installed spaCy model package (an importable package that carries spaCy's meta.json). Paths are not
    accepted: a configuration comes from users, who must not point the server at its own directories."""
    if not isinstance(name, str) or not name.isidentifier():
        return False
    try:
        spec = importlib.util.find_spec(name)
    except (ImportError, ValueError):
        return False
    locations = list(spec.submodule_search_locations or []) if spec is not None else []
    return any((Path(location) / "meta.json").is_file() for location in locations)


def _model(name: Any, field: str, warnings: list[str], errors: list[ConfigError]) -> str:
    if name is None or (isinstance(name, str) and name in MODEL_ALIASES):
        return DEFAULT_MODEL
    if not isinstance(name, str):
        errors.append(ConfigError(field, f"expected the name of a spaCy model (a string), got {_type_name(name)}"))
        return DEFAULT_MODEL
    if model_installed(name):
        return name
    warnings.append(f"{field}: {_show(name)} is not installed and nothing is downloaded at run time; using "
                    f"{DEFAULT_MODEL} instead, so the recognised entities may differ")
    return DEFAULT_MODEL


def _number(value: Any) -> Any:
    """An int as float (YAML writes 0 for 0.0); anything else unchanged, for validation to judge."""
    if _small_integer(value):
        return float(value)
    return value  # a huge integer stays one (float() would overflow); validation says it is out of range


def _mapping(value: Any, field: str, errors: list[ConfigError]) -> Mapping:
    if value is None:
        return {}
    if not isinstance(value, Mapping):
        errors.append(ConfigError(field, f"expected a mapping, got {_type_name(value)}"))
        return {}
    return value


def _sequence(value: Any, field: str, errors: list[ConfigError], *, default: Any = ()) -> tuple | Any:
    """A YAML list as a tuple; None gives `default`; anything else is an error (a string is not a list)."""
    if value is None:
        return default
    if isinstance(value, list | tuple):
        return tuple(value)
    errors.append(ConfigError(field, f"expected a list, got {_type_name(value)}"))
    return default


def _strings(value: Any, field: str, errors: list[ConfigError], *, what: str, default: Any = ()) -> tuple | Any:
    """A YAML list of strings (e.g. entity type names) as a tuple; an item that is not a string is an error
    naming its position, and is left out."""
    items = _sequence(value, field, errors, default=None)
    if items is None:
        return default
    wrong = [(number, item) for number, item in enumerate(items, start=1) if not isinstance(item, str)]
    for number, item in wrong[:5]:
        errors.append(ConfigError(field, f"item {number}, {_show(item)}, is {_type_name(item)}; expected {what} "
                                         "(a string)"))
    return tuple(item for item in items if isinstance(item, str))


def _unknown_keys(data: Mapping, known: set[str], prefix: str, warnings: list[str]) -> None:
    for key in data:
        if not isinstance(key, str) or key not in known:
            name = key if isinstance(key, str) else _show(key)
            warnings.append(f"{prefix}{name}: unknown key, ignored")


def _parse_hierarchy(data: Any, field: str, errors: list[ConfigError], depth: int,
                     budget: list[int] | None = None) -> HierarchyNode | None:
    """A hierarchy node and its children; `budget` counts the nodes left (MAX_HIERARCHY_NODES in all)."""
    budget = [MAX_HIERARCHY_NODES] if budget is None else budget
    if depth > _MAX_HIERARCHY_DEPTH:
        errors.append(ConfigError(field, f"nested deeper than {_MAX_HIERARCHY_DEPTH} levels"))
        return None
    budget[0] -= 1
    if budget[0] < 0:
        if budget[0] == -1:
            errors.append(ConfigError(field, f"more than {MAX_HIERARCHY_NODES:,} nodes"))
        return None
    if not isinstance(data, Mapping) or "name" not in data:
        errors.append(ConfigError(field, "each node must be a mapping with a name \"low-high\" and optional children"))
        return None
    name = data["name"]
    found = _RANGE_RE.fullmatch(name) if isinstance(name, str) else None
    if found is None:
        errors.append(ConfigError(field, f"node name {_show(name)} is not an integer range \"low-high\" such as "
                                         "\"1-20\""))
        return None
    children = []
    for child in _sequence(data.get("children"), field, errors):
        node = _parse_hierarchy(child, field, errors, depth + 1, budget)
        if node is not None:
            children.append(node)
        if budget[0] < 0:
            break
    return HierarchyNode(int(found[1]), int(found[2]), tuple(children))


def _order(value: Any, field: str, errors: list[ConfigError]) -> tuple | None:
    order = _sequence(value, field, errors, default=None)
    if order is None:
        return None
    # YAML reads unquoted 1, 2, 3 as numbers; CSV values are strings.
    return tuple(str(item) if isinstance(item, float) or _small_integer(item) else item for item in order)


def _small_integer(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and value.bit_length() <= 64
