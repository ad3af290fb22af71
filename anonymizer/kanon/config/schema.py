"""The configuration itself: each column's role and type, the run parameters and the entity types recognised
in free text, as frozen dataclasses; ConfigError; our schema as a dict / YAML (`KanonConfig.to_dict`)."""

from __future__ import annotations

import dataclasses
import hashlib
import json
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Any

import yaml

from anonymizer.recognize.entities import BUILTIN_TYPES, DEFAULT_MODEL, CustomEntity

ROLES = ("direct_identifier", "quasi_identifier", "sensitive", "insensitive", "text")
TYPES = ("nominal", "ordinal", "numerical", "date", "text")
STRATEGIES = ("mondrian", "gdf")
SCHEMA_VERSION = 1


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
        from .parsing import _parse_hierarchy  # here: parsing imports this module

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
    generalize_terms: bool = True  # terms in texts climb their hierarchy to what the class shares (hierarchies)
    recode_everywhere: bool = True  # a recognized string is recoded in every text, not only its person's
    # A person, organisation or place the class does not share is written as a numbered pseudonym (PERSON_1,
    # ORG_2: the same string, the same pseudonym in the whole released file) rather than its bare type, so that
    # Kurt, Lucas and Missy stay three people. On for our configurations; rx-anon's files get its plain type.
    numbered_pseudonyms: bool = True
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
                        relational_weight: float | None = None, generalize_terms: bool | None = None,
                        recode_everywhere: bool | None = None, numbered_pseudonyms: bool | None = None
                        ) -> KanonConfig:
        """A copy with other run parameters (for re-runs); unchanged where None."""
        changes = {"k": k, "strategy": strategy, "relational_weight": relational_weight,
                   "generalize_terms": generalize_terms, "recode_everywhere": recode_everywhere,
                   "numbered_pseudonyms": numbered_pseudonyms}
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
        from .ours import _parse_ours  # here: ours imports this module
        from .structure import OURS, errors_after, structure_errors

        shape_errors = structure_errors(data, OURS)  # before any value is used
        errors: list[ConfigError] = []
        config = _parse_ours(data, errors, [])
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


def _direct_identifier_problem(names: list[str]) -> str | None:
    """Why the columns with role direct_identifier, `names`, are not exactly one; None if they are. Here for
    KanonConfig.direct_identifier; validation reports it too."""
    if not names:
        return ("no direct identifier: exactly one column must have role direct_identifier (the person each row "
                "belongs to)")
    if len(names) > 1:
        return f"{len(names)} direct identifiers ({', '.join(names)}): exactly one column may have that role"
    return None
