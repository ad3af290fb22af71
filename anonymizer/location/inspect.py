"""What the inspect page and API show for one post: where it points before and after de-identification, in
numbers and per cell, and what was deleted (no Django here)."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from anonymizer.location.deidentify import LinearScorer
from anonymizer.location.grid import Grid
from anonymizer.location.model import LocationModel

TOP_CELLS = 5
MASS = 0.9


def distribution_summary(probabilities: np.ndarray, grid: Grid, threshold: float) -> dict:
    """The top cells, the entropy and how concentrated the distribution is, as plain numbers."""
    order = np.argsort(-probabilities, kind="stable")
    positive = probabilities[probabilities > 0]
    cumulative = np.cumsum(probabilities[order])
    top = float(probabilities[order[0]])
    return {
        "top_cell": int(order[0]),
        "top_label": grid.label(int(order[0])),
        "top_probability": top,
        "under_threshold": top < threshold,
        "top": [{"cell": int(c), "label": grid.label(int(c)), "probability": float(probabilities[c])}
                for c in order[:TOP_CELLS]],
        "entropy_bits": float(-(positive * np.log2(positive)).sum()),
        "cells_for_90_percent": int(np.searchsorted(cumulative, MASS - 1e-12) + 1),
        # Rounded: enough for maps and tables, a tenth of the bytes of full floats.
        "probabilities": [round(float(p), 6) for p in probabilities],
    }


def inspect_text(model: LocationModel, text: str, *, m: int | None = None, keep_words: Sequence[str] = (),
                 extra_scorers: Sequence[LinearScorer] = ()) -> dict:
    """Infer, de-identify (automatic when m is None, else exactly m deletions) and describe both states."""
    result = model.deidentify(text, m=m, keep_words=keep_words, extra_scorers=extra_scorers)
    decision, threshold = result.decision, model.threshold.value
    deleted, kept = set(decision.deleted), set(result.kept)
    out = {
        "text": text,
        "tokens": [{"text": t.text, "start": t.start, "end": t.end, "deletable": t.deletable,
                    "deleted": i in deleted, "kept": i in kept} for i, t in enumerate(result.tokens)],
        "deleted": [{"start": t.start, "end": t.end, "text": t.text} for t in result.deleted_tokens],
        "text_after": result.text_after,
        "before": distribution_summary(result.probabilities_before, model.grid, threshold),
        "after": distribution_summary(result.probabilities_after, model.grid, threshold),
        "decision": {
            "mode": "auto" if m is None else "fixed",
            "m": len(decision.deleted),
            "under_threshold": decision.under_threshold,
            "optimal": decision.optimal,
            "minimal": decision.minimal,
            "candidates": decision.candidates,
            "reason": decision.reason,
            "scores_before": decision.scores_before,
            "scores_after": decision.scores_after,
        },
    }
    for scorer in extra_scorers:
        if scorer.name == "human":  # the crowd-trained model: the paper's machine x human classes
            human = {when: decision_scores[scorer.name] for when, decision_scores in
                     (("before", decision.scores_before), ("after", decision.scores_after))}
            out["human"] = {"threshold": scorer.threshold,
                            **{f"probability_{when}": p for when, p in human.items()}}
            out["classes"] = {when: {"machine_inferable": not out[when]["under_threshold"],
                                     "human_inferable": human[when] >= scorer.threshold} for when in human}
    return out


def model_description(model: LocationModel) -> dict:
    """The parts of a model a client needs to draw and read the results."""
    return {"name": model.name, "language": model.language, "grid": model.grid.to_dict(),
            "threshold": {"value": model.threshold.value, "kind": model.threshold.kind,
                          "explanation": model.threshold.explanation}}
