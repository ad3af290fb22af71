"""rx-anon's YAML configuration files (`parameters` / `nlp` / `attributes` / `entities`) into a KanonConfig, so
that rx-anon users can bring theirs; errors are translated back to the fields as rx-anon spells them."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from anonymizer.recognize.entities import BUILTIN_TYPES, CustomEntity

from .parsing import (
    as_mapping,
    as_number,
    as_order,
    as_sequence,
    as_strings,
    model_name,
    resolve_name,
    warn_unknown_keys,
)
from .schema import AttributeConfig, ConfigError, KanonConfig, parse_hierarchy

# rx-anon's own defaults (anon/configuration/configuration.py), applied only to files in its format.
RX_DEFAULT_K = 10
RX_DEFAULT_STRATEGY = "mondrian"
RX_DEFAULT_RELATIONAL_WEIGHT = 0.5
RX_DEFAULT_DATE_FORMAT = "%d/%m/%Y"
RX_ROLES = {"insensitive_attribute": "insensitive"}  # the other rx-anon anonymization types keep their names


def parse_rx_anon(data: Mapping, columns: list[str], errors: list[ConfigError],
                   warnings: list[str]) -> tuple[KanonConfig, dict[str, str]]:
    """rx-anon's format into a KanonConfig, with rx-anon's defaults; also the attribute keys as written, by the
    column they resolved to (for error messages)."""
    warn_unknown_keys(data, {"parameters", "nlp", "attributes", "entities"}, "", warnings)
    parameters = as_mapping(data.get("parameters"), "parameters", errors)
    # generalize_terms, recode_everywhere (issue 16) and numbered_pseudonyms (issue 44) are Kakurega's, accepted
    # here so rx-anon files can use them.
    warn_unknown_keys(parameters, {"k", "strategy", "relational_weight", "generalize_terms", "recode_everywhere",
                               "numbered_pseudonyms"}, "parameters.", warnings)
    nlp = as_mapping(data.get("nlp"), "nlp", errors)
    warn_unknown_keys(nlp, {"model", "cache"}, "nlp.", warnings)  # cache: Kakurega keeps its own
    entities = as_mapping(data.get("entities"), "entities", errors)
    warn_unknown_keys(entities, {"native", "custom"}, "entities.", warnings)

    if entities.get("native") is None:
        # rx-anon would recognise no native type then (its default is an empty list); leaving free text
        # unprotected by omission is not a safe default, so all are recognised.
        native = BUILTIN_TYPES
        warnings.append("entities.native: not given; recognising all entity types (rx-anon would recognise none "
                        "but the custom ones; write native: [] for that)")
    else:
        native = tuple(dict.fromkeys(as_strings(entities["native"], "entities.native", errors, what="an entity type")))
    custom = []
    for label, regex in as_mapping(entities.get("custom"), "entities.custom", errors).items():
        field = f"entities.custom.{label}"
        patterns = (regex,) if isinstance(regex, str) else as_sequence(regex, field, errors)
        custom.append(CustomEntity(str(label), patterns))

    attributes = []
    keys: dict[str, str] = {}
    for key, spec in as_mapping(data.get("attributes"), "attributes", errors).items():
        if isinstance(key, bool) or not isinstance(key, str | int):
            # YAML 1.1 reads yes/no/on/off keys as booleans: the column name is lost.
            errors.append(ConfigError(f"attributes.{key}", "not a column name; put the name in quotes"))
            continue
        name = resolve_name(str(key), columns)
        keys[name] = str(key)
        attributes.append(_parse_rx_attribute(name, f"attributes.{key}", spec, errors, warnings))
    model = model_name(nlp.get("model"), "nlp.model", warnings, errors)
    config = KanonConfig(
        attributes=tuple(attributes),
        k=parameters.get("k", RX_DEFAULT_K),
        strategy=parameters.get("strategy", RX_DEFAULT_STRATEGY),
        relational_weight=as_number(parameters.get("relational_weight", RX_DEFAULT_RELATIONAL_WEIGHT)),
        entity_types=native,
        custom_entities=tuple(custom),
        nlp_model=model,
        generalize_terms=parameters.get("generalize_terms", True),
        recode_everywhere=parameters.get("recode_everywhere", True),
        # Off unless asked for: an rx-anon file releases rx-anon's plain type label ("PERSON").
        numbered_pseudonyms=parameters.get("numbered_pseudonyms", False),
        warnings=tuple(warnings),
    )
    return config, keys


def _parse_rx_attribute(name: str, field: str, spec: Any, errors: list[ConfigError],
                        warnings: list[str]) -> AttributeConfig:
    if spec is not None and not isinstance(spec, Mapping):
        # Its role is unknown (None): validation's message about it is left out (the shape was reported), and
        # it then says nothing about the roles of the columns together either.
        as_mapping(spec, field, errors)
        return AttributeConfig(name=name, role=None, type="nominal")
    spec = as_mapping(spec, field, errors)
    warn_unknown_keys(spec, {"anonymization_type", "type", "bias", "format", "order", "hierarchy", "entities"},
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
        name=name, role=role, type=kind, bias=as_number(spec.get("bias", 0.0)),
        date_format=spec.get("format", RX_DEFAULT_DATE_FORMAT) if kind == "date" else None,
        order=as_order(spec.get("order"), field + ".order", errors) if kind == "ordinal" else None,
        hierarchy=None if hierarchy is None else parse_hierarchy(hierarchy, field + ".hierarchy", errors, 0),
        entities=as_strings(spec.get("entities"), field + ".entities", errors, what="an entity type"),
    )


def rx_field_translator(keys: dict[str, str]) -> Callable[[str], str]:
    """Maps a field of our schema to rx-anon's spelling, so errors name what the user wrote."""
    top = {"k": "parameters.k", "strategy": "parameters.strategy",
           "generalize_terms": "parameters.generalize_terms", "recode_everywhere": "parameters.recode_everywhere",
           "numbered_pseudonyms": "parameters.numbered_pseudonyms",
           "relational_weight": "parameters.relational_weight", "entity_types": "entities.native",
           "nlp_model": "nlp.model", "custom_entities": "entities.custom"}
    own = {"role": "anonymization_type", "date_format": "format"}
    def translate(field: str) -> str:
        if field in top:
            return top[field]
        if field.startswith("custom_entities."):  # rx-anon's custom entity is a single regex under its label
            label = field[len("custom_entities."):]
            for suffix in (".patterns", ".terms"):
                label = label.removesuffix(suffix)
            return f"entities.custom.{label}"
        if not field.startswith("attributes."):
            return field
        # The longest attribute name the field lies under (a name may be a prefix of another, and may hold dots),
        # looked up at each dot from the right: a few lookups, not a scan of every name (2,000 columns).
        path = field[len("attributes."):]
        end = len(path)
        while end != -1:
            name = path[:end]
            if name in keys:
                rest = path[end + 1:]
                return f"attributes.{keys[name]}" + (f".{own.get(rest, rest)}" if end < len(path) else "")
            end = path.rfind(".", 0, end)
        return field

    return translate
