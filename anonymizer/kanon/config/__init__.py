"""Configuration of a k-anonymization run (rx-anon): each column's role and type, the run parameters and the
entity types recognised in free text.

Two input formats are accepted by `load_config`: our own schema (`KanonConfig.to_dict`, as YAML or JSON) and
rx-anon's YAML configuration files (`parameters` / `nlp` / `attributes` / `entities`), so that rx-anon users
can bring theirs. Every problem is reported as a ConfigError naming the field in the format it was written in.

The modules, bottom up: `parsing` (ConfigError and what both parsers share), `structure` (the shape of both
formats, typed: checked before the parsers use a value), `schema` (the dataclasses and our own format),
`rx_anon` (rx-anon's format), `validation` and `prefill` (a first configuration from a CSV profile).
Loading, which checks the shape, dispatches to the formats and validates, is here.
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Mapping, Sequence

import yaml

from anonymizer.recognize.entities import BUILTIN_TYPES, DEFAULT_MODEL, ONTONOTES_TYPES, RULE_TYPES, CustomEntity

from .parsing import model_installed, resolve_name, type_name
from .prefill import config_from_profile
from .rx_anon import parse_rx_anon, rx_field_translator
from .schema import (
    ROLES,
    RUN_DEFAULTS,
    SCHEMA_VERSION,
    STRATEGIES,
    TYPES,
    AttributeConfig,
    ConfigError,
    HierarchyNode,
    KanonConfig,
    RunParameters,
    parse_ours,
)
from .structure import OURS, RX_ANON, errors_after, structure_errors
from .validation import config_problems, validate

__all__ = [
    "BUILTIN_TYPES",
    "DEFAULT_MODEL",
    "MAX_CONFIG_BYTES",
    "ONTONOTES_TYPES",
    "ROLES",
    "RULE_TYPES",
    "RUN_DEFAULTS",
    "SCHEMA_VERSION",
    "STRATEGIES",
    "TYPES",
    "AttributeConfig",
    "ConfigError",
    "CustomEntity",
    "HierarchyNode",
    "KanonConfig",
    "RunParameters",
    "check_config_size",
    "config_from_profile",
    "load_config",
    "model_installed",
    "validate",
]


#: A configuration is a few kilobytes; past this size it is refused before it is parsed (YAML parsing takes
#: about 2 s per MB in the request). The web app passes its setting KANON_CONFIG_MAX_BYTES.
MAX_CONFIG_BYTES = 256 * 1024
#: Problems reported at most; a document wrong everywhere would otherwise give a message of megabytes.
MAX_ERRORS = 50
# libyaml's parser when PyYAML was built with it (about 10x faster), else the pure-Python one.
_YAML_LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


def _size_text(size: int) -> str:
    return f"{size / 1024:,.0f} KB" if size >= 10 * 1024 else f"{size:,} bytes"


def check_config_size(size: int, max_bytes: int = MAX_CONFIG_BYTES, field: str = "config") -> None:
    """Refuse a configuration of `size` bytes over `max_bytes` (ConfigError naming `field`), before reading it."""
    if size > max_bytes:
        raise ConfigError(field, f"the configuration is {_size_text(size)}, larger than the limit of "
                                 f"{_size_text(max_bytes)}; a configuration is a few kilobytes of YAML or JSON")


def load_config(text: str | bytes, *, columns: Sequence[str], max_bytes: int = MAX_CONFIG_BYTES) -> KanonConfig:
    """Parse a configuration (YAML or JSON) in our schema or rx-anon's, its shape checked first (`structure`),
    and validate it against the CSV header `columns`. Attribute names match columns exactly, else
    case-insensitively (as rx-anon); columns left out become insensitive nominal. A text over `max_bytes`
    (UTF-8) is refused before it is parsed. Raises ConfigError (possibly .many) naming every bad field."""
    check_config_size(len(text if isinstance(text, bytes) else text.encode("utf-8", errors="surrogatepass")),
                      max_bytes)
    data = _load_document(text)
    columns = list(columns)
    errors: list[ConfigError] = []
    warnings: list[str] = []
    rx_anon = _is_rx_anon(data)
    shape_errors = structure_errors(data, RX_ANON if rx_anon else OURS)  # before any value is used
    if rx_anon:
        config, keys = parse_rx_anon(data, columns, errors, warnings)
        rename = rx_field_translator(keys)
    else:
        config = parse_ours(data, errors, warnings)
        rename = _same_field
    errors = errors_after(shape_errors, errors)
    config = _fit_columns(config, columns)
    problems = [ConfigError(rename(error.field), error.template, **error.params)
                for error in config_problems(config, columns)]
    # A field of the wrong shape, or that could not be parsed, got a placeholder: what validation says about
    # it would be noise.
    errors = errors_after(errors, problems)
    if errors:  # each problem once (a hierarchy that YAML aliases repeat has the same problem everywhere)
        errors = list({(error.field, error.message): error for error in errors}.values())
        if len(errors) > MAX_ERRORS:
            errors = [*errors[:MAX_ERRORS],
                      ConfigError("config", f"{len(errors) - MAX_ERRORS:,} more problems not shown; fix these first")]
        raise ConfigError.many(errors)
    return config


def _load_document(text: str | bytes) -> Mapping:
    if isinstance(text, bytes):
        text = text.decode("utf-8-sig", errors="replace")
    try:
        data = yaml.load(text, Loader=_YAML_LOADER)  # a safe loader: CSafeLoader or SafeLoader
    except (yaml.YAMLError, ValueError, RecursionError, OverflowError) as exc:
        # ValueError: an integer too long to convert (Python refuses over 4,300 digits); RecursionError:
        # nesting deeper than the parser's recursion allows.
        try:  # JSON is YAML, except for a few things YAML refuses (e.g. tabs for indentation)
            data = json.loads(text)
        except (ValueError, RecursionError):
            raise ConfigError("config", f"not valid YAML or JSON: {_yaml_problem(exc)}") from None
    if data is None:
        raise ConfigError("config", "the file is empty; expected a mapping with attributes")
    if not isinstance(data, Mapping):
        raise ConfigError("config", f"expected a mapping with attributes, got {type_name(data)}")
    return data


def _yaml_problem(exc: Exception) -> str:
    if isinstance(exc, RecursionError):
        return "nested too deeply"
    message = " ".join(str(exc).split())
    return message if len(message) <= 500 else message[:500] + " …"


def _is_rx_anon(data: Mapping) -> bool:
    return (any(key in data for key in ("parameters", "nlp", "entities"))
            or isinstance(data.get("attributes"), Mapping))


def _same_field(field: str) -> str:
    return field


def _fit_columns(config: KanonConfig, columns: list[str]) -> KanonConfig:
    """Names resolved to header spelling, attributes in column order, absent columns insensitive nominal."""
    attributes = [dataclasses.replace(a, name=resolve_name(a.name, columns)) for a in config.attributes]
    position = {column: index for index, column in reversed(list(enumerate(columns)))}
    configured = {a.name for a in attributes}
    absent = [column for column in dict.fromkeys(columns) if column not in configured]
    attributes += [AttributeConfig(column, "insensitive", "nominal") for column in absent]
    attributes.sort(key=lambda a: position.get(a.name, len(columns)))  # stable: unknown names stay last
    warnings = config.warnings
    if absent:
        warnings += (f"attributes: columns not configured, kept unchanged as insensitive: {', '.join(absent)}",)
    return dataclasses.replace(config, attributes=tuple(attributes), warnings=warnings)
