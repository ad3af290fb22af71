"""A first configuration prefilled from a CSV profile (profile_csv's output), for the user to adjust."""

from __future__ import annotations

import re

from .schema import AttributeConfig, KanonConfig

# Column names prefilled as the direct identifier, best first: exactly "id", then "*_id", then a person noun.
_PERSON_WORDS = frozenset({"user", "username", "userid", "uid", "author", "person", "blogger", "customer", "client",
                           "patient", "member", "account", "writer", "reviewer", "owner", "participant",
                           "respondent", "employee"})
_MANY_DISTINCT = 0.5  # a string column with more distinct values than this share of the rows is not a QI


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
