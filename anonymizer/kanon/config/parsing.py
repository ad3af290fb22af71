"""What both formats' parsers share: tolerant readers of YAML values (kept as written where they are wrong, for
validation to judge), hierarchy nodes, column names resolved to the header, and the spaCy model a file names."""

from __future__ import annotations

import importlib.util
import re
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from anonymizer.kanon.entities import DEFAULT_MODEL, MODEL_ALIASES

from .schema import ConfigError, HierarchyNode

_RANGE_RE = re.compile(r"\s*([+-]?[0-9]+)\s*-\s*([+-]?[0-9]+)\s*")
_MAX_HIERARCHY_DEPTH = 64


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


def _model(name: Any, field: str, warnings: list[str]) -> str:
    if name is None or name in MODEL_ALIASES:
        return DEFAULT_MODEL
    if model_installed(name):
        return name
    warnings.append(f"{field}: {name!r} is not installed and nothing is downloaded at run time; using "
                    f"{DEFAULT_MODEL} instead, so the recognised entities may differ")
    return DEFAULT_MODEL


def _number(value: Any) -> Any:
    """An int as float (YAML writes 0 for 0.0); anything else unchanged, for validation to judge."""
    return float(value) if isinstance(value, int) and not isinstance(value, bool) else value


def _mapping(value: Any, field: str, errors: list[ConfigError]) -> Mapping:
    if value is None:
        return {}
    if not isinstance(value, Mapping):
        errors.append(ConfigError(field, f"expected a mapping, got {type(value).__name__}"))
        return {}
    return value


def _sequence(value: Any, field: str, errors: list[ConfigError], *, default: Any = ()) -> tuple | Any:
    """A YAML list as a tuple; None gives `default`; anything else is an error (a string is not a list)."""
    if value is None:
        return default
    if isinstance(value, list | tuple):
        return tuple(value)
    errors.append(ConfigError(field, f"expected a list, got {type(value).__name__}"))
    return default


def _unknown_keys(data: Mapping, known: set[str], prefix: str, warnings: list[str]) -> None:
    for key in data:
        if key not in known:
            warnings.append(f"{prefix}{key}: unknown key, ignored")


def _parse_hierarchy(data: Any, field: str, errors: list[ConfigError], depth: int) -> HierarchyNode | None:
    if depth > _MAX_HIERARCHY_DEPTH:
        errors.append(ConfigError(field, f"nested deeper than {_MAX_HIERARCHY_DEPTH} levels"))
        return None
    if not isinstance(data, Mapping) or "name" not in data:
        errors.append(ConfigError(field, "each node must be a mapping with a name \"low-high\" and optional children"))
        return None
    name = data["name"]
    found = _RANGE_RE.fullmatch(name) if isinstance(name, str) else None
    if found is None:
        errors.append(ConfigError(field, f"node name {name!r} is not an integer range \"low-high\" such as \"1-20\""))
        return None
    children = []
    for child in _sequence(data.get("children"), field, errors):
        node = _parse_hierarchy(child, field, errors, depth + 1)
        if node is not None:
            children.append(node)
    return HierarchyNode(int(found[1]), int(found[2]), tuple(children))


def _order(value: Any, field: str, errors: list[ConfigError]) -> tuple | None:
    order = _sequence(value, field, errors, default=None)
    if order is None:
        return None
    # YAML reads unquoted 1, 2, 3 as numbers; CSV values are strings.
    return tuple(str(item) if isinstance(item, int | float) and not isinstance(item, bool) else item
                 for item in order)
