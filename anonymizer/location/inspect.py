"""What the inspect page and API show for one post: where it points before and after de-identification, in
numbers and per cell, and what was deleted (no Django here)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from typing import Protocol

import numpy as np

from anonymizer.location.deidentify import Deidentifier, LinearScorer
from anonymizer.location.geography import grid_places, map_description
from anonymizer.location.language import language_warning
from anonymizer.location.model import LocationModel
from anonymizer.location.options import DEFAULT_OPTIONS, InspectOptions
from anonymizer.location.place_scorer import PLACE_SCORER
from anonymizer.location.review import needs_review
from anonymizer.location.tokenize import Token
from anonymizer.location.verdict import (
    CANNOT_KNOW,
    CLASSIFIER,
    before_sentence,
    check_title,
    model_strength,
    overall,
    release_checks,
)
from anonymizer.platform.deadline import Deadline
from anonymizer.platform.grid import Grid
from anonymizer.texts import gettext, ngettext

TOP_CELLS = 5
MASS = 0.9


def distribution_summary(probabilities: np.ndarray, grid: Grid, threshold: float,
                         places: Sequence[str] | None = None) -> dict:
    """The top cells, the entropy and how concentrated the distribution is, as plain numbers. `places` names
    each cell (by default its nearest sizable place, see geography.cell_places): top_place and each top cell's
    place."""
    if places is None:
        places = grid_places(grid).cell_texts()
    order = np.argsort(-probabilities, kind="stable")
    positive = probabilities[probabilities > 0]
    cumulative = np.cumsum(probabilities[order])
    top = float(probabilities[order[0]])
    return {
        "top_cell": int(order[0]),
        "top_label": grid.label(int(order[0])),
        "top_place": places[int(order[0])],
        "top_probability": top,
        "under_threshold": top < threshold,
        "top": [{"cell": int(c), "label": grid.label(int(c)), "place": places[int(c)],
                 "probability": float(probabilities[c])}
                for c in order[:TOP_CELLS]],
        "entropy_bits": float(-(positive * np.log2(positive)).sum()),
        "cells_for_90_percent": int(np.searchsorted(cumulative, MASS - 1e-12) + 1),
        # Rounded: enough for maps and tables, a tenth of the bytes of full floats.
        "probabilities": [round(float(p), 6) for p in probabilities],
    }


def scorer_views(model: LocationModel, text: str, extra_scorers: Sequence[LinearScorer] = (),
                 places: Sequence[str] | None = None) -> list[dict]:
    """Every scorer on one text (tokenized as a reader of exactly this text gets it), in the verdict's order:
    `name`, `title`, `score`, `threshold`, `over` (at or over the threshold: this scorer alone makes the text
    location-inferable); for the classifier and the place scorer also their distribution over the cells (as
    distribution_summary; the classifier's `probabilities` are the distribution's own, left out here); for the
    place scorer the place units it found (`found`)."""
    if places is None:
        places = grid_places(model.grid).cell_texts()
    tokens = model.tokenize(text)
    norms = [t.norm for t in tokens]
    scorers = model.scorers(extra_scorers)
    deidentifier = Deidentifier(scorers)
    scores, distributions = deidentifier.scores(norms), deidentifier.distributions(norms)
    views = []
    for scorer in scorers:
        view = {"name": scorer.name, "title": check_title(scorer.name),
                "score": scores[scorer.name], "threshold": scorer.threshold,
                "over": bool(scores[scorer.name] >= scorer.threshold)}
        cells = _over_cells(model, scorer.name, distributions.get(scorer.name))
        if cells is not None:
            view.update(distribution_summary(cells, model.grid, scorer.threshold, places))
            if scorer.name == CLASSIFIER:  # the distribution's own probabilities: not sent twice
                del view["probabilities"]
        if scorer.name == PLACE_SCORER:
            found: list[str] = []
            for token in tokens:
                if token.kind != "word" and token.text not in found and \
                        model.place_resolver.resolve(token.norm) is not None:
                    found.append(token.text)
            view["found"] = found
        views.append(view)
    return views


def _over_cells(model: LocationModel, name: str, probabilities: np.ndarray | None) -> np.ndarray | None:
    """A scorer's probabilities as one per grid cell (the classifier's columns are the cells it saw in training)."""
    if probabilities is None:
        return None
    if name == CLASSIFIER:
        out = np.zeros(model.grid.n_cells)
        out[model.classifier.classes_] = probabilities
        return out
    return probabilities if len(probabilities) == model.grid.n_cells else None


def map_scorer(views: Sequence[dict]) -> str:
    """The scorer whose cells the maps show: the one furthest over its threshold that has cells, else the
    classifier (the maps then show where the text points, by the scorer that decided it)."""
    over = sorted((v for v in views if v["over"] and "top_cell" in v),
                  key=lambda v: v["score"] / v["threshold"], reverse=True)
    return over[0]["name"] if over else CLASSIFIER


class TextEdit(Protocol):
    """An edit made to a post before its location is de-identified (e.g. its time expressions removed)."""

    text: str  # the edited post

    @property
    def inserted_spans(self) -> list[tuple[int, int]]:
        """Spans of ``text`` that the edit wrote (they are not the author's words and are never deleted)."""

    def original_span(self, start: int, end: int) -> tuple[int, int] | None:
        """Where ``text[start:end]`` is in the original post; None inside an inserted span."""


def inspect_text(model: LocationModel, text: str, options: InspectOptions = DEFAULT_OPTIONS, *,
                 extra_scorers: Sequence[LinearScorer] = (), edit: TextEdit | None = None,
                 deadline: Deadline | None = None) -> dict:
    """Infer, de-identify as ``options`` say (automatic when their m is None, else exactly m deletions) and
    describe both states.

    With ``edit``, the location is de-identified in the edited post (location and time removed in one pass):
    "before" is still the original post, "after" the final one, and every span is one of the original post.
    Tokens of the words the edit inserted are kept and left out of ``tokens``."""
    source = text if edit is None else edit.text
    result = model.deidentify(source, **options.release_keywords(), extra_scorers=extra_scorers,
                              keep_spans=edit.inserted_spans if edit is not None else (), deadline=deadline)
    decision, threshold = result.decision, model.threshold.value
    probabilities_before, scores_before = result.probabilities_before, decision.scores_before
    if edit is not None:  # "before" is the post as written, not the edited one
        norms = [t.norm for t in model.tokenize(text)]
        probabilities_before = model.cell_probabilities([norms])[0]
        scores_before = Deidentifier(model.scorers(extra_scorers)).scores(norms)

    names = grid_places(model.grid).cell_texts()
    tokens, deleted_spans = _token_views(text, result, edit)
    out = {
        "text": text,
        "tokens": tokens,
        "deleted": deleted_spans,
        "text_after": result.text_after,
        "before": {**distribution_summary(probabilities_before, model.grid, threshold, names),
                   "under_threshold": all(scores_before[name] < limit for name, limit in decision.thresholds.items())},
        "after": {**distribution_summary(result.probabilities_after, model.grid, threshold, names),
                  # Under *every* threshold (classifier, places, human), as the released text re-scored.
                  "under_threshold": decision.under_threshold},
        "decision": _decision_view(result, options, scores_before),
    }
    # Each scorer before and after, and the one the maps show: the verdict names the scorer that decided.
    out["before"]["scorers"] = scorer_views(model, text, extra_scorers, names)
    out["after"]["scorers"] = scorer_views(model, result.text_after, extra_scorers, names)
    out["map_scorer"] = map_scorer(out["before"]["scorers"])
    language = language_warning(text, model.language, model.name)
    out["warnings"] = ([language] if language else []) + keep_warnings(
        model, source, result, options, extra_scorers=extra_scorers, edit=edit)
    # The released text tokenized once for both: what the gazetteer places inside the map, and what no list
    # holds (review.py).
    released_tokens = model.tokenize(result.text_after)
    review = needs_review(model, result.text_after, released_tokens)
    checks = release_checks(out, places_left(model, result.text_after, released_tokens),
                            has_human=any(s.name == "human" for s in extra_scorers), review=review)
    strength = model_strength(model.metadata)
    out["verdict"] = {**overall(checks, decision.under_threshold, strength,
                                language_problem=language["message"] if language else None),
                      "before": before_sentence(out["before"]["scorers"]), "checks": checks,
                      "review": [{**item.to_dict(), "why": gettext(item.why)} for item in review],
                      "cannot_know": gettext(CANNOT_KNOW),
                      "model_strength": strength}
    for scorer in extra_scorers:
        if scorer.name == "human":  # the crowd-trained model: the paper's machine x human classes
            out.update(_human_view(out, scorer, scores_before, decision.scores_after))
    return out


def _token_views(text: str, result, edit: TextEdit | None) -> tuple[list[dict], list[dict]]:
    """The post's tokens as the page draws them, and the deleted spans, each at its place in the original post
    (a token the edit inserted is left out)."""
    deleted, kept = set(result.decision.deleted), set(result.kept)
    tokens, deleted_spans = [], []
    for i, token in enumerate(result.tokens):
        span = (token.start, token.end) if edit is None else edit.original_span(token.start, token.end)
        if span is None:
            continue
        tokens.append({"text": token.text, "start": span[0], "end": span[1], "deletable": token.deletable,
                       "deleted": i in deleted, "kept": i in kept, "kind": token.kind,
                       **({"replaced_by": result.replacements[i]} if i in result.replacements else {})})
        if i in deleted:
            deleted_spans.append({"start": span[0], "end": span[1], "text": text[span[0]:span[1]]})
    return tokens, deleted_spans


def _decision_view(result, options: InspectOptions, scores_before: dict[str, float]) -> dict:
    """What the search decided and under which options."""
    decision = result.decision
    return {
        "mode": "auto" if options.m is None else "fixed",
        "m": len(decision.deleted),
        "under_threshold": decision.under_threshold,
        "optimal": decision.optimal,
        "minimal": decision.minimal,
        "candidates": decision.candidates,
        "reason": decision.reason,
        "scores_before": scores_before,
        "scores_after": decision.scores_after,
        "thresholds": decision.thresholds,
        "replacement": options.replacement,
        "places": options.places,
        "rounds": result.rounds,
    }


def _human_view(out: dict, scorer: LinearScorer, scores_before: dict[str, float],
                scores_after: dict[str, float]) -> dict:
    """The crowd-trained model's probabilities before and after, and the paper's machine x human classes."""
    human = {when: decision_scores[scorer.name] for when, decision_scores in
             (("before", scores_before), ("after", scores_after))}
    return {"human": {"threshold": scorer.threshold, **{f"probability_{when}": p for when, p in human.items()}},
            "classes": {when: {"machine_inferable": not out[when]["under_threshold"],
                               "human_inferable": human[when] >= scorer.threshold} for when in human}}


def places_left(model: LocationModel, released: str, tokens: Sequence[Token] | None = None) -> list[str]:
    """The place units of the released text (re-tokenized, or its ``tokens`` as model.tokenize gives them) that
    the gazetteer itself puts inside the grid: what a reader with a map still reads, whatever the scorers'
    numbers (a kept place, a generalized one, one the thresholds did not need)."""
    if not model.tokenizer_settings.units:
        return []
    out: list[str] = []
    for token in model.tokenize(released) if tokens is None else tokens:
        if token.kind == "word" or token.text in out:
            continue
        resolution = model.place_resolver.resolve(token.norm)
        if resolution is not None and not resolution.learned:
            out.append(token.text)
    return out


def keep_warnings(model: LocationModel, source: str, result, options: InspectOptions, *,
                  extra_scorers: Sequence[LinearScorer], edit: TextEdit | None) -> list[dict]:
    """Warnings about the words to keep, as {field, message}: an entry found nowhere in the post, and (automatic
    mode) a keep list that leaves the post over a threshold, with whether the post gets under without it."""
    warnings = [{"field": "keep", "message": gettext("“%(word)s” is not in the post.") % {"word": word}}
                for word in result.keep_missing]
    decision = result.decision
    if options.m is not None or decision.under_threshold or not result.kept:
        return warnings
    kept = gettext(", ").join(gettext("“%(text)s”") % {"text": result.tokens[i].text} for i in result.kept[:10])
    without_keep = replace(options, keep_words=())
    free = model.deidentify(source, keep_spans=edit.inserted_spans if edit is not None else (),
                            extra_scorers=extra_scorers, **without_keep.release_keywords())
    proof = "" if decision.optimal else gettext(
        " (the search was not exhaustive, so this is the best found, not a proof)")
    if free.decision.under_threshold:
        n = len(free.decision.deleted)
        warnings.append({"field": "keep", "message": ngettext(
            "Keeping %(kept)s makes the goal impossible: no deletion of the other words gets the post under every "
            "threshold%(proof)s; without the words to keep, deleting %(n)d unit would. The text is still "
            "inferable — not safe to release.",
            "Keeping %(kept)s makes the goal impossible: no deletion of the other words gets the post under every "
            "threshold%(proof)s; without the words to keep, deleting %(n)d units would. The text is still "
            "inferable — not safe to release.", n) % {"kept": kept, "proof": proof, "n": n}})
    else:
        warnings.append({"field": "text", "message": gettext(
            "Even without the words to keep, no deletion gets this post under every threshold%(proof)s. The text is "
            "still inferable — not safe to release.") % {"proof": proof}})
    return warnings


def model_description(model: LocationModel) -> dict:
    """The parts of a model a client needs to draw and read the results: its grid, threshold and the grid's
    map (cell_places, place_labels, geography layers with paths under the static files)."""
    return {"name": model.name, "language": model.language, "grid": model.grid.to_dict(),
            "threshold": {"value": model.threshold.value, "kind": model.threshold.kind,
                          "explanation": model.threshold.explanation},
            **map_description(model.grid)}
