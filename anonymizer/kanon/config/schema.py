"""The configuration itself: each column's role and type, the run parameters and the entity types recognised
in free text, as frozen dataclasses; our schema as a dict / YAML (`KanonConfig.to_dict`) and back
(`parse_ours`, `KanonConfig.from_dict`), hierarchy nodes included (`parse_hierarchy`).

Layering: `parsing` (ConfigError and the value readers) and `structure` (shapes) are below this module; the
rx-anon format, validation, prefill and loading are above it."""

from __future__ import annotations

import dataclasses
import hashlib
import json
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import Any

import yaml

from anonymizer.recognize.entities import BUILTIN_TYPES, DEFAULT_MODEL, CustomEntity

from .parsing import (
    HIERARCHY_RANGE_RE,
    MAX_HIERARCHY_DEPTH,
    MAX_HIERARCHY_NODES,
    ConfigError,
    as_number,
    as_order,
    as_sequence,
    as_strings,
    model_name,
    show,
    warn_unknown_keys,
)
from .structure import OURS, errors_after, structure_errors

ROLES = ("direct_identifier", "quasi_identifier", "sensitive", "insensitive", "text")
TYPES = ("nominal", "ordinal", "numerical", "date", "text")
STRATEGIES = ("mondrian", "gdf")
SCHEMA_VERSION = 1


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
        node = parse_hierarchy(data, field, errors, 0)
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
class RunParameters:
    """The options of one run of a configuration, those its re-runs change (``KanonConfig.with_parameters``), with
    their defaults stated here once: KanonConfig, our format's parser and the configure page take them from
    ``RUN_DEFAULTS`` (rx-anon's files have rx-anon's own, ``rx_anon.RX_DEFAULT_*``)."""

    k: int = 2
    strategy: str = "mondrian"  # "mondrian" or "gdf"
    relational_weight: float = 0.5  # lambda in [0, 1]; 0 = split on text only, 1 = relational only
    seed: int = 0
    generalize_terms: bool = True  # terms in texts climb their hierarchy to what the class shares (hierarchies)
    recode_everywhere: bool = True  # a recognized string is recoded in every text, not only its person's
    # A person, organisation or place the class does not share is written as a numbered pseudonym (PERSON_1,
    # ORG_2: the same string, the same pseudonym in the whole released file) rather than its bare type, so that
    # Kurt, Lucas and Missy stay three people. On for our configurations; rx-anon's files get its plain type.
    numbered_pseudonyms: bool = True


RUN_DEFAULTS = RunParameters()


@dataclass(frozen=True)
class KanonConfig:
    """A whole k-anonymization configuration. Build it with load_config, config_from_profile or from_dict, and
    check an edited one with validate."""

    attributes: tuple[AttributeConfig, ...]  # in CSV column order
    # The run parameters (RunParameters, where their defaults and meanings are written).
    k: int = RUN_DEFAULTS.k
    strategy: str = RUN_DEFAULTS.strategy
    relational_weight: float = RUN_DEFAULTS.relational_weight
    entity_types: tuple[str, ...] = BUILTIN_TYPES  # sensitive entity types in texts
    custom_entities: tuple[CustomEntity, ...] = ()
    l_diversity: tuple[str, int] | None = None  # (sensitive column, l)
    nlp_model: str = DEFAULT_MODEL
    seed: int = RUN_DEFAULTS.seed
    generalize_terms: bool = RUN_DEFAULTS.generalize_terms
    recode_everywhere: bool = RUN_DEFAULTS.recode_everywhere
    numbered_pseudonyms: bool = RUN_DEFAULTS.numbered_pseudonyms
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
        problem = direct_identifier_problem(names)
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
                        relational_weight: float | None = None, generalize_terms: bool | None = None,
                        recode_everywhere: bool | None = None, numbered_pseudonyms: bool | None = None
                        ) -> KanonConfig:
        """A copy with other run parameters (for re-runs); unchanged where None."""
        changes = {"k": k, "strategy": strategy, "relational_weight": relational_weight,
                   "generalize_terms": generalize_terms, "recode_everywhere": recode_everywhere,
                   "numbered_pseudonyms": numbered_pseudonyms}
        return dataclasses.replace(self, **{key: value for key, value in changes.items() if value is not None})

    @property
    def run_parameters(self) -> RunParameters:
        """This configuration's run parameters, typed."""
        return RunParameters(**{field.name: getattr(self, field.name) for field in dataclasses.fields(RunParameters)})

    def with_run(self, parameters: RunParameters) -> KanonConfig:
        """A copy that runs with ``parameters`` (every run parameter replaced)."""
        return dataclasses.replace(self, **dataclasses.asdict(parameters))

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
            "generalize_terms": self.generalize_terms,
            "recode_everywhere": self.recode_everywhere,
            "numbered_pseudonyms": self.numbered_pseudonyms,
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
        shape_errors = structure_errors(data, OURS)  # before any value is used
        errors: list[ConfigError] = []
        config = parse_ours(data, errors, [])
        errors = errors_after(shape_errors, errors)
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


def direct_identifier_problem(names: list[str]) -> str | None:
    """Why the columns with role direct_identifier, `names`, are not exactly one; None if they are. Here for
    KanonConfig.direct_identifier; validation reports it too."""
    if not names:
        return ("no direct identifier: exactly one column must have role direct_identifier (the person each row "
                "belongs to)")
    if len(names) > 1:
        return f"{len(names)} direct identifiers ({', '.join(names)}): exactly one column may have that role"
    return None


def parse_hierarchy(data: Any, field: str, errors: list[ConfigError], depth: int,
                     budget: list[int] | None = None) -> HierarchyNode | None:
    """A hierarchy node and its children; `budget` counts the nodes left (MAX_HIERARCHY_NODES in all)."""
    budget = [MAX_HIERARCHY_NODES] if budget is None else budget
    if depth > MAX_HIERARCHY_DEPTH:
        errors.append(ConfigError(field, f"nested deeper than {MAX_HIERARCHY_DEPTH} levels"))
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
    found = HIERARCHY_RANGE_RE.fullmatch(name) if isinstance(name, str) else None
    if found is None:
        errors.append(ConfigError(field, f"node name {show(name)} is not an integer range \"low-high\" such as "
                                         "\"1-20\""))
        return None
    children = []
    for child in as_sequence(data.get("children"), field, errors):
        node = parse_hierarchy(child, field, errors, depth + 1, budget)
        if node is not None:
            children.append(node)
        if budget[0] < 0:
            break
    return HierarchyNode(int(found[1]), int(found[2]), tuple(children))


def parse_ours(data: Any, errors: list[ConfigError], warnings: list[str]) -> KanonConfig:
    """Our schema (KanonConfig.to_dict) into a KanonConfig; values are kept as written for config_problems to judge."""
    if not isinstance(data, Mapping):
        errors.append(ConfigError("config", f"expected a mapping with attributes, got {type(data).__name__}"))
        data = {}
    warn_unknown_keys(data, {"version", "k", "strategy", "relational_weight", "l_diversity", "seed", "nlp_model",
                         "entity_types", "custom_entities", "attributes", "warnings", "generalize_terms",
                         "recode_everywhere", "numbered_pseudonyms"}, "", warnings)
    if data.get("version", SCHEMA_VERSION) != SCHEMA_VERSION:
        errors.append(ConfigError("version",
                                  f"unsupported version {show(data['version'])}; expected {SCHEMA_VERSION}"))
    attributes = []
    for index, item in enumerate(as_sequence(data.get("attributes"), "attributes", errors)):
        attribute = _parse_our_attribute(item, index, errors, warnings)
        if attribute is not None:
            attributes.append(attribute)
    custom = []
    for index, item in enumerate(as_sequence(data.get("custom_entities"), "custom_entities", errors)):
        field = f"custom_entities.{index}"
        if not isinstance(item, Mapping):
            errors.append(ConfigError(field, "expected a mapping with label, patterns and terms"))
            continue
        label = item.get("label")
        field = f"custom_entities.{label}" if isinstance(label, str) and label else field
        warn_unknown_keys(item, {"label", "patterns", "terms"}, field + ".", warnings)
        custom.append(CustomEntity(label, as_sequence(item.get("patterns"), field + ".patterns", errors),
                                   as_sequence(item.get("terms"), field + ".terms", errors)))
    return KanonConfig(
        attributes=tuple(attributes),
        k=data.get("k", RUN_DEFAULTS.k),
        strategy=data.get("strategy", RUN_DEFAULTS.strategy),
        relational_weight=as_number(data.get("relational_weight", RUN_DEFAULTS.relational_weight)),
        entity_types=as_strings(data.get("entity_types"), "entity_types", errors, what="an entity type",
                              default=BUILTIN_TYPES),
        custom_entities=tuple(custom),
        l_diversity=_parse_l_diversity(data.get("l_diversity"), errors),
        nlp_model=model_name(data.get("nlp_model"), "nlp_model", warnings, errors),
        seed=data.get("seed", RUN_DEFAULTS.seed),
        generalize_terms=data.get("generalize_terms", RUN_DEFAULTS.generalize_terms),
        recode_everywhere=data.get("recode_everywhere", RUN_DEFAULTS.recode_everywhere),
        numbered_pseudonyms=data.get("numbered_pseudonyms", RUN_DEFAULTS.numbered_pseudonyms),
        warnings=as_strings(data.get("warnings"), "warnings", errors, what="a message") + tuple(warnings),
    )


def _parse_our_attribute(item: Any, index: int, errors: list[ConfigError],
                         warnings: list[str]) -> AttributeConfig | None:
    if not isinstance(item, Mapping) or not isinstance(item.get("name"), str) or not item["name"]:
        errors.append(ConfigError(f"attributes.{index}", "expected a mapping with a column name, role and type"))
        return None
    name = item["name"]
    field = f"attributes.{name}"
    warn_unknown_keys(item, {"name", "role", "type", "bias", "date_format", "order", "hierarchy", "entities"},
                  field + ".", warnings)
    role, kind = item.get("role"), item.get("type")
    if role is None:  # one side of a text column implies the other
        role = "text" if kind == "text" else "insensitive"
    if kind is None:
        kind = "text" if role == "text" else "nominal"
    hierarchy = item.get("hierarchy")
    return AttributeConfig(
        name=name, role=role, type=kind, bias=as_number(item.get("bias", 0.0)),
        date_format=item.get("date_format"),
        order=as_order(item.get("order"), field + ".order", errors),
        hierarchy=None if hierarchy is None else parse_hierarchy(hierarchy, field + ".hierarchy", errors, 0),
        entities=as_strings(item.get("entities"), field + ".entities", errors, what="an entity type"),
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
