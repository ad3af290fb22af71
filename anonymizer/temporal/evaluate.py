"""Scoring a temporal anonymization against gold time spans: correct, natural, and what else it touched.

- **correct**: every non-space character of every gold span lies in a removed or generalized piece.
- **natural** (automatic; :func:`naturalness_problems` says what failed), on the parse of the normalized post:
  1. no dangling preposition: a kept preposition (dep ``prep``/``dative``/``agent`` or an ADP that is not a
     particle) that had an object (pobj/pcomp) keeps at least one;
  2. no orphaned modifier: a kept det/predet/amod/nummod/poss/compound/quantmod/case token whose head was cut
     (and not generalized); URLs, @mentions and #hashtags are not judged (their attachment is parse noise);
  3. no dangling conjunction: a kept ``cc`` whose conjuncts were all cut, or a kept ``cc`` that now starts or
     ends the post;
  4. every sentence root kept (or generalized);
  5. no new punctuation debris in the output text: a space before , ; or :, two separators in a row
     (", ," ", ." ": ,"), a separator starting or ending the post, or empty brackets — counted against the
     original, so debris the author wrote is not blamed on the cut.
"""

from __future__ import annotations

import re
from typing import Any

from anonymizer.temporal.tagging import is_link

__all__ = ["is_correct", "naturalness_problems"]

MODIFIER_DEPS = frozenset({"det", "predet", "amod", "nummod", "poss", "compound", "quantmod", "case"})
_DEBRIS = re.compile(r"\s[,;:](?!\S)|[,;:]\s*[,;:.!?]|^\s*[,;:.]|[,;:]\s*$|\(\s*\)|\[\s*\]")


def _debris_count(text: str) -> int:
    return len(_DEBRIS.findall(text))


def naturalness_problems(doc: Any, cut: frozenset[int] | set[int], replaced: frozenset[int] | set[int],
                         original: str, output: str) -> list[str]:
    """What makes the output unnatural, by the rules of the module docstring (empty: natural)."""
    problems: list[str] = []
    if not cut and not replaced:
        return problems
    gone = set(cut) - set(replaced)
    kept = [t for t in doc if t.i not in gone]
    for token in kept:
        objects = [c for c in token.children if c.dep_ in ("pobj", "pcomp")]
        is_preposition = token.dep_ in ("prep", "dative", "agent") or (token.pos_ == "ADP" and token.dep_ != "prt")
        if is_preposition and objects and all(c.i in gone for c in objects):
            problems.append(f"dangling preposition {token.text!r}")
        # URLs, @mentions and #hashtags hang anywhere in a parse: their dependency says nothing.
        if (token.dep_ in MODIFIER_DEPS and token.head.i in gone and token.head.i != token.i
                and not is_link(token)):
            problems.append(f"orphaned modifier {token.text!r}")
        if token.dep_ == "cc":
            conjuncts = [c for c in token.head.children if c.dep_ == "conj"]
            if conjuncts and all(c.i in gone for c in conjuncts):
                problems.append(f"dangling conjunction {token.text!r}")
    words = [t for t in kept if not t.is_punct and not t.is_space]
    if words and (words[0].dep_ == "cc" or words[-1].dep_ == "cc"):
        problems.append("conjunction at the edge of the post")
    for sentence in doc.sents:
        if sentence.root.i in gone:
            problems.append(f"sentence root {sentence.root.text!r} removed")
    if _debris_count(output) > _debris_count(original):
        problems.append("punctuation debris")
    return problems


def is_correct(result: Any, gold_spans: list[tuple[int, int]], text: str) -> bool:
    """No non-space character of a gold span survives (generalized counts as removed)."""
    covered = [*result.removed_spans, *result.generalized_spans]
    for start, end in gold_spans:
        for i in range(start, end):
            if not text[i].isspace() and not any(s <= i < e for s, e in covered):
                return False
    return True
