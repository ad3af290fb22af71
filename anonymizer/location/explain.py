"""Why a released text is not under every threshold, in sentences for the inspect page (no Django here)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from anonymizer.location.tokens import Token


def why_not_under(scores: Mapping[str, float], thresholds: Mapping[str, float], tokens: Sequence[Token],
                  deleted: set[int], keep: Sequence[int], m: int | None) -> str:
    """The scorers still over their thresholds, and what stood in the way: a fixed number of deletions, the words
    kept as asked, the tokens that cannot be deleted, or the rest of the post and the model's prior."""
    over = ", ".join(f"{name} {scores[name]:.3f} (threshold {thresholds[name]:.3f})" for name in scores
                     if scores[name] >= thresholds[name])
    left = [t for i, t in enumerate(tokens) if i not in deleted]
    kept = [tokens[i].text for i in keep if i not in deleted]
    fixed = [t.text for t in left if not t.deletable]
    parts = [f"The released text is not under every threshold: {over}."]
    if m is not None:
        parts.append(f"Exactly {m} deletions were asked for; automatic mode deletes as many as it needs.")
    if kept:
        parts.append("Kept as you asked: " + ", ".join(f"“{w}”" for w in kept[:10]) + ".")
    if fixed:
        parts.append(f"{len(fixed)} punctuation or symbol token(s) cannot be deleted.")
    if m is None and not kept:
        parts.append("Every deletable unit that helps was deleted; the rest of the post and the model's prior "
                     "keep it above the threshold.")
    return " ".join(parts)
