"""Information loss (Normalized Certainty Penalty) of a recoding, and the check that the release is k-anonymous.

Formulas (per person r of class C, then averaged over persons):
- numerical: (high - low) of the class's range, or of its hierarchy node, / (max - min) of the attribute over
  the whole dataset; 0 for a single value. With a hierarchy the denominator is the root's width.
- date: the number of distinct dates of the dataset inside the class's day / month / year / years period,
  / the number of distinct dates of the dataset; 0 for a single day.
- nominal: |values of the class| / |distinct values of the dataset|; 0 for a single value.
- ordinal: |values of the order range of the class| / |values of the order|; 0 for a single value.
- NCP_A: the mean over the quasi-identifiers of those per-attribute means.
- text, per entity type e, over the persons with at least one non-redundant term of type e: the mean over the
  distinct terms t of r of loss(t) = (level(released node) - level(t)) / (level(type) - level(t)), where the
  released node is the most specific node of t's hierarchy that every person of the class holds
  (``hierarchies``): 0 when t itself is shared, 1 when only its type is, e.g. 1/3 for "Omaha" released as "a
  city in Nebraska" (city 0, state 1, country 2, type 3). Without generalization a term is kept when every
  person of the class has it, else replaced by its type, and this is rx-anon's 1 - |kept of r| / |terms of r|
  (with |kept of r| = |intersection over C|, counted per person — rx-anon's reference miscounts it for classes
  of three or more persons because it compares spaCy spans by identity).
- NCP_X: the same over all types together (a term is a (type, normalised text) pair), over persons with any term.
"""

from __future__ import annotations

from collections import Counter
from datetime import date

import numpy as np

from anonymizer.kanon.hierarchies import TermHierarchies
from anonymizer.kanon.hierarchies import loss as term_loss
from anonymizer.kanon.recode import ClassRecoding
from anonymizer.kanon.view import PersonView


def _ncp_value(generalization, attribute, dataset: dict) -> float:
    if attribute.type in ("nominal", "ordinal"):
        if len(generalization.members - {None}) <= 1:
            return 0.0
    elif generalization.period in ("value", "day"):
        return 0.0
    if attribute.type == "numerical":
        width = dataset["root_width"] if generalization.period == "node" else dataset["width"]
        return (generalization.high - generalization.low) / width if width else 0.0
    if attribute.type == "date":
        dates = dataset["dates"]
        inside = int(np.searchsorted(dates, generalization.high.toordinal(), side="right")
                     - np.searchsorted(dates, generalization.low.toordinal(), side="left"))
        return inside / len(dates)
    total = dataset["categories"]
    return len(generalization.members - {None}) / total if total else 0.0


def _dataset_facts(view: PersonView, attribute) -> dict:
    values = [v for v in view.values[attribute.name].values if v is not None]  # every row's
    if attribute.type == "numerical":
        width = (max(values) - min(values)) if values else 0.0
        root = attribute.hierarchy
        return {"width": width, "root_width": (root.high - root.low) if root is not None else width}
    if attribute.type == "date":
        return {"dates": np.array(sorted({v.toordinal() for v in values if isinstance(v, date)}))}
    if attribute.type == "ordinal" and attribute.order:
        return {"categories": len(attribute.order)}
    return {"categories": len(set(values))}


def information_loss(view: PersonView, recodings: list[ClassRecoding], person_class: np.ndarray, config,
                     hierarchies: TermHierarchies | None = None) -> dict:
    """NCP per relational attribute and in total, per entity type and in total for texts."""
    relational = {}
    for attribute in config.quasi_identifiers:
        if attribute.type == "text":
            continue
        facts = _dataset_facts(view, attribute)
        per_class = np.array([_ncp_value(r.relational[attribute.name], attribute, facts) for r in recodings])
        relational[attribute.name] = float(per_class[person_class].mean()) if view.size else 0.0
    if hierarchies is None:
        hierarchies = TermHierarchies(enabled=False)
    textual, lost_all, total_all = {}, np.zeros(view.size), np.zeros(view.size)
    for label, sets in view.terms.items():
        spelling = view.spellings.get(label, {})
        root_level = hierarchies.root_level(label)
        paths = [hierarchies.path(label, key, spelling[key]) for key in sets.keys]
        counts = sets.counts()
        owner = np.repeat(np.arange(view.size), counts)  # the person of every (person, key) pair
        keys = sets.indices
        # A class that shares nothing of the type releases the type for every term; else walk each path.
        lost = np.array([term_loss(path[0], path[-1], root_level) for path in paths])[keys]
        sharing = np.array([label in r.shared for r in recodings], dtype=bool)
        for pair in np.nonzero(sharing[person_class[owner]])[0].tolist():
            path = paths[keys[pair]]
            lost[pair] = term_loss(path[0], recodings[person_class[owner[pair]]].released(label, path), root_level)
        per_person = np.bincount(owner, weights=lost, minlength=view.size)
        holders = counts > 0
        textual[label] = float(np.mean(per_person[holders] / counts[holders])) if holders.any() else 0.0
        lost_all += per_person
        total_all += counts
    with_terms = total_all > 0
    return {
        "ncp_relational": relational,
        "ncp_relational_total": float(np.mean(list(relational.values()))) if relational else 0.0,
        "ncp_textual": textual,
        "ncp_textual_total": float(np.mean(lost_all[with_terms] / total_all[with_terms]))
        if with_terms.any() else 0.0,
    }


def released_classes(recodings: list[ClassRecoding]) -> Counter:
    """Persons per distinct released record (every quasi-identifier's value and every shared node set): the
    equivalence classes an attacker sees, whatever partitioning produced them."""
    released = Counter()
    for recoding in recodings:
        key = (tuple(sorted((name, g.text) for name, g in recoding.relational.items())),
               tuple(sorted((label, tuple(sorted(nodes))) for label, nodes in recoding.shared.items())))
        released[key] += len(recoding.persons)
    return released
