"""Kakurega's own format (`KanonConfig.to_dict`, as YAML or JSON) into a KanonConfig."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from anonymizer.recognize.entities import BUILTIN_TYPES, CustomEntity

from .parsing import _model, _number, _order, _parse_hierarchy, _sequence, _show, _strings, _unknown_keys
from .schema import SCHEMA_VERSION, AttributeConfig, ConfigError, KanonConfig


def _parse_ours(data: Any, errors: list[ConfigError], warnings: list[str]) -> KanonConfig:
    """Our schema (KanonConfig.to_dict) into a KanonConfig; values are kept as written for _problems to judge."""
    if not isinstance(data, Mapping):
        errors.append(ConfigError("config", f"expected a mapping with attributes, got {type(data).__name__}"))
        data = {}
    _unknown_keys(data, {"version", "k", "strategy", "relational_weight", "l_diversity", "seed", "nlp_model",
                         "entity_types", "custom_entities", "attributes", "warnings", "generalize_terms",
                         "recode_everywhere", "numbered_pseudonyms"}, "", warnings)
    if data.get("version", SCHEMA_VERSION) != SCHEMA_VERSION:
        errors.append(ConfigError("version",
                                  f"unsupported version {_show(data['version'])}; expected {SCHEMA_VERSION}"))
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
        entity_types=_strings(data.get("entity_types"), "entity_types", errors, what="an entity type",
                              default=BUILTIN_TYPES),
        custom_entities=tuple(custom),
        l_diversity=_parse_l_diversity(data.get("l_diversity"), errors),
        nlp_model=_model(data.get("nlp_model"), "nlp_model", warnings, errors),
        seed=data.get("seed", 0),
        generalize_terms=data.get("generalize_terms", True),
        recode_everywhere=data.get("recode_everywhere", True),
        numbered_pseudonyms=data.get("numbered_pseudonyms", True),
        warnings=_strings(data.get("warnings"), "warnings", errors, what="a message") + tuple(warnings),
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
        entities=_strings(item.get("entities"), field + ".entities", errors, what="an entity type"),
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
