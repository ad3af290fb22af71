"""What both formats' parsers share, at the bottom of the package (it imports none of its siblings):
ConfigError, tolerant readers of YAML values (kept as written where they are wrong, for validation to judge),
values shown in messages, column names resolved to the header, and the spaCy model a file names."""

from __future__ import annotations

import datetime
import importlib.util
import re
import reprlib
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from anonymizer.recognize.entities import DEFAULT_MODEL, MODEL_ALIASES
from anonymizer.texts import TranslatableError


class ConfigError(TranslatableError):
    """A bad configuration. `field` is a dotted path ("attributes.age.type", "parameters.k"), `message` says what
    is wrong and what is expected. `errors` lists every problem found (just this one unless made by `many`).

    A message users often meet is a catalog text: `message` is then a template marked with gettext_noop and
    `params` its values, so the web shell shows it in the page's language (anonymizer.platform.i18n.user_message);
    `message` and str() stay English."""

    def __init__(self, field: str, message: str, /, **params: Any) -> None:
        ValueError.__init__(self, field, message % params if params else message)
        self.template = message
        self.params = params
        self.field = field
        self.message = message % params if params else message
        self.errors: list[ConfigError] = [self]

    def __str__(self) -> str:
        return "; ".join(f"{error.field}: {error.message}" for error in self.errors)

    def __reduce__(self) -> tuple:
        # Keep every error when pickled (e.g. reported through a task queue).
        return _rebuild_error, ([(error.field, error.message) for error in self.errors],)

    @classmethod
    def many(cls, errors: Sequence[ConfigError]) -> ConfigError:
        """One ConfigError reporting all of `errors`; its field and message are the first one's."""
        flat = [single for error in errors for single in error.errors]
        if not flat:
            raise ValueError("ConfigError.many needs at least one error")
        if len(flat) == 1:
            return flat[0]
        combined = cls(flat[0].field, flat[0].template, **flat[0].params)
        combined.errors = flat
        return combined


def _rebuild_error(pairs: list[tuple[str, str]]) -> ConfigError:
    return ConfigError.many([ConfigError(field, message) for field, message in pairs])


# Bounds of a range: 15 digits are plenty and keep int() away from huge numbers.
HIERARCHY_RANGE_RE = re.compile(r"\s*([+-]?[0-9]{1,15})\s*-\s*([+-]?[0-9]{1,15})\s*")
MAX_HIERARCHY_DEPTH = 64
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


def show(value: Any) -> str:
    """A value for a message, short whatever it is; numbers as the user probably wrote them (YAML's 2 became
    2.0 here)."""
    if isinstance(value, float):
        return f"{value:g}"
    if isinstance(value, datetime.date):  # YAML reads an unquoted 2004-05-14 as a date
        return value.isoformat()
    return _REPR.repr(value)


def type_name(value: Any) -> str:
    """What a YAML value is, in YAML's words."""
    names = {bool: "a boolean", int: "an integer", float: "a number", str: "a string", list: "a list",
             tuple: "a list", dict: "a mapping", type(None): "null", datetime.date: "a date",
             datetime.datetime: "a date and time", set: "a set", bytes: "binary data"}
    return names.get(type(value), "a mapping" if isinstance(value, Mapping) else type(value).__name__)


def resolve_name(name: Any, columns: list[str]) -> Any:
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


def model_name(name: Any, field: str, warnings: list[str], errors: list[ConfigError]) -> str:
    if name is None or (isinstance(name, str) and name in MODEL_ALIASES):
        return DEFAULT_MODEL
    if not isinstance(name, str):
        errors.append(ConfigError(field, f"expected the name of a spaCy model (a string), got {type_name(name)}"))
        return DEFAULT_MODEL
    if model_installed(name):
        return name
    warnings.append(f"{field}: {show(name)} is not installed and nothing is downloaded at run time; using "
                    f"{DEFAULT_MODEL} instead, so the recognised entities may differ")
    return DEFAULT_MODEL


def as_number(value: Any) -> Any:
    """An int as float (YAML writes 0 for 0.0); anything else unchanged, for validation to judge."""
    if _small_integer(value):
        return float(value)
    return value  # a huge integer stays one (float() would overflow); validation says it is out of range


def as_mapping(value: Any, field: str, errors: list[ConfigError]) -> Mapping:
    if value is None:
        return {}
    if not isinstance(value, Mapping):
        errors.append(ConfigError(field, f"expected a mapping, got {type_name(value)}"))
        return {}
    return value


def as_sequence(value: Any, field: str, errors: list[ConfigError], *, default: Any = ()) -> tuple | Any:
    """A YAML list as a tuple; None gives `default`; anything else is an error (a string is not a list)."""
    if value is None:
        return default
    if isinstance(value, list | tuple):
        return tuple(value)
    errors.append(ConfigError(field, f"expected a list, got {type_name(value)}"))
    return default


def as_strings(value: Any, field: str, errors: list[ConfigError], *, what: str, default: Any = ()) -> tuple | Any:
    """A YAML list of strings (e.g. entity type names) as a tuple; an item that is not a string is an error
    naming its position, and is left out."""
    items = as_sequence(value, field, errors, default=None)
    if items is None:
        return default
    wrong = [(number, item) for number, item in enumerate(items, start=1) if not isinstance(item, str)]
    for number, item in wrong[:5]:
        errors.append(ConfigError(field, f"item {number}, {show(item)}, is {type_name(item)}; expected {what} "
                                         "(a string)"))
    return tuple(item for item in items if isinstance(item, str))


def warn_unknown_keys(data: Mapping, known: set[str], prefix: str, warnings: list[str]) -> None:
    for key in data:
        if not isinstance(key, str) or key not in known:
            name = key if isinstance(key, str) else show(key)
            warnings.append(f"{prefix}{name}: unknown key, ignored")


def as_order(value: Any, field: str, errors: list[ConfigError]) -> tuple | None:
    order = as_sequence(value, field, errors, default=None)
    if order is None:
        return None
    # YAML reads unquoted 1, 2, 3 as numbers; CSV values are strings.
    return tuple(str(item) if isinstance(item, float) or _small_integer(item) else item for item in order)


def _small_integer(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and value.bit_length() <= 64
