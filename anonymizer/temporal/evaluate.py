"""Scoring a temporal anonymization against gold time spans: correct, natural, and what else it touched.

- **correct**: every non-space character of every gold span lies in a removed or generalized piece.
- **natural** (automatic; :func:`naturalness_problems` says what failed), on the parse of the normalized post:
  1. no dangling preposition: a kept preposition (dep ``prep``/``dative``/``agent`` or an ADP that is not a
     particle) that had an object (pobj/pcomp) keeps at least one;
  2. no orphaned word: a kept word whose head was cut (and not generalized) ("shopping" of "after a day of
     shopping", "of" of "an afternoon of art"), except dependents that read as well on the word above the cut
     one (adverbs, clauses, conjuncts, and place phrases with at/in/on/near/around/inside/outside/with: "a
     day in the area" -> "in the area"); URLs, @mentions, #hashtags and punctuation are not judged (their
     attachment is parse noise);
  3. no dangling conjunction: a kept ``cc`` whose conjuncts were all cut, or a kept ``cc`` that now starts or
     ends the post;
  4. every sentence root kept (or generalized);
  (in 1, 2 and 4 the object of a cut "of" stands in for the cut time noun it belonged to: "after 4+ hours of
  queuing" -> "after queuing", "your well deserved months of leave" -> "your well deserved leave");
  5. no new punctuation debris in the output text: a space before , ; or :, two separators in a row
     (", ," ", ." ": ," ": |"), a separator starting or ending the post, empty brackets, a space just inside a
     bracket, or more unmatched brackets — counted against the original, so debris the author wrote is not
     blamed on the cut;
  6. a neutral phrase fits: no kept determiner, adjective, number or noun describing a generalized word left in
     front of the phrase ("wee a certain time", "the a certain time"), no two phrases side by side, no phrase
     standing for an adverbial (npadvmod, advmod, tmod: "closes a certain time") unless it opens its sentence
     ("Some time till I'm back!"), no phrase right after a
     determiner ("the a certain day"), no "a certain time of …" / "some time of …";
  7. no preposition left before a link or the end of a sentence ("The beauty of http://…"), counted against the
     original; no sentence that now starts with a subordinating word it did not start with ("till I'm back").
What a reader notices beyond these (a sentence that lost its sense, an idiom cut in two) the rules do not see;
the hand-checked sample in the tests says how often that happens.
"""

from __future__ import annotations

import re
from typing import Any

from anonymizer.temporal.anonymize import opens_sentence, reattaches
from anonymizer.temporal.tagging import is_link

__all__ = ["is_correct", "naturalness_problems"]

MODIFIER_DEPS = frozenset({"det", "predet", "amod", "nummod", "poss", "compound", "quantmod", "case", "nmod"})
ADVERBIAL_DEPS = frozenset({"npadvmod", "advmod", "tmod"})
DESCRIBING_POS = frozenset({"DET", "ADJ", "NUM", "NOUN", "PROPN"})
PHRASE = r"(?:a certain (?:day|time|moment)|some time)"
_DEBRIS = re.compile(r"\s[,;:](?!\S)|[,;:]\s*[,;:.!?|]|^\s*[,;:.]|[,;:]\s*$|\(\s*\)|\[\s*\]|[(\[]\s+|\s+[)\]]")
_PHRASES_SIDE_BY_SIDE = re.compile(rf"(?i){PHRASE}\W*{PHRASE}|(?:a certain time|some time) of\b")
# A preposition right before a link or the end of a sentence ("The beauty of http://…", "join us at.").
_PREPOSITION_AT_END = re.compile(r"(?i)\b(?:of|at|in|on|for|from|to|with|by|till|until|during|since)\s*(?:https?://|$|[.!?])")
SUBORDINATING = frozenset({"mark"})
_PHRASE_AFTER = re.compile(rf"(?i)\b(?:the|a|an|this|that|these|those|my|your|our|his|her|their)\s+{PHRASE}")


def _debris_count(text: str) -> int:
    return len(_DEBRIS.findall(text)) + _unmatched_brackets(text)


def _unmatched_brackets(text: str) -> int:
    unmatched = 0
    for opening, closing in ("()", "[]"):
        depth = 0
        for char in text:
            if char == opening:
                depth += 1
            elif char == closing:
                if depth:
                    depth -= 1
                else:
                    unmatched += 1
        unmatched += depth
    return unmatched


def naturalness_problems(doc: Any, cut: frozenset[int] | set[int], replaced: frozenset[int] | set[int],
                         original: str, output: str) -> list[str]:
    """What makes the output unnatural, by the rules of the module docstring (empty: natural)."""
    problems: list[str] = []
    if not cut and not replaced:
        return problems
    gone = set(cut) - set(replaced)
    kept = [t for t in doc if t.i not in gone]
    # "4+ hours of queuing" -> "queuing": the object of a cut "of" takes the place of the cut time noun, with
    # the noun's kept modifiers ("your well deserved months of leave" -> "your well deserved leave").
    promoted: dict[int, int] = {}  # cut noun -> the word that took its place
    for token in doc:
        if token.lower_ == "of" and token.i in gone and token.head.i in gone:
            objects = [c for c in token.children if c.dep_ in ("pobj", "pcomp") and c.i not in gone]
            if objects:
                promoted[token.head.i] = objects[0].i
    for token in kept:
        objects = [c for c in token.children if c.dep_ in ("pobj", "pcomp")]
        is_preposition = token.dep_ in ("prep", "dative", "agent") or (token.pos_ == "ADP" and token.dep_ != "prt")
        if is_preposition and objects and all(c.i in gone and c.i not in promoted for c in objects):
            problems.append(f"dangling preposition {token.text!r}")
        # URLs, @mentions and #hashtags hang anywhere in a parse: their dependency says nothing.
        judged = not is_link(token) and not token.is_punct and token.i not in replaced
        takes_place = token.head.lower_ == "of" and token.head.head.i in promoted
        if judged and token.head.i in gone and token.head.i != token.i and not reattaches(token) \
                and token.head.i not in promoted and not takes_place:
            problems.append(f"orphaned word {token.text!r}")
        if judged and token.head.i in replaced and token.dep_ in MODIFIER_DEPS and token.i < token.head.i \
                and token.pos_ in DESCRIBING_POS:
            problems.append(f"orphaned modifier {token.text!r} of a generalized word")
        if token.dep_ == "cc":
            conjuncts = [c for c in token.head.children if c.dep_ == "conj"]
            if conjuncts and all(c.i in gone for c in conjuncts):
                problems.append(f"dangling conjunction {token.text!r}")
    words = [t for t in kept if not t.is_punct and not t.is_space]
    if words and (words[0].dep_ == "cc" or words[-1].dep_ == "cc"):
        problems.append("conjunction at the edge of the post")
    for sentence in doc.sents:
        if sentence.root.i in gone and sentence.root.i not in promoted:
            problems.append(f"sentence root {sentence.root.text!r} removed")
    # An adverbial phrase that opens its sentence reads as a nominal sentence ("Some time till I'm back!").
    if any(doc[i].dep_ in ADVERBIAL_DEPS and doc[i].head.i not in replaced and not opens_sentence(doc[i])
           for i in replaced if doc[i].head.i != i):
        problems.append("neutral phrase standing for an adverbial")
    if _PHRASES_SIDE_BY_SIDE.search(output) or len(_PHRASE_AFTER.findall(output)) > len(
            _PHRASE_AFTER.findall(original)):
        problems.append("neutral phrase does not fit")
    if len(_PREPOSITION_AT_END.findall(output)) > len(_PREPOSITION_AT_END.findall(original)):
        problems.append("preposition without its object")
    for sentence in doc.sents:
        first = next((t for t in sentence if t.i not in gone and not t.is_punct and not is_link(t)), None)
        was_first = next((t for t in sentence if not t.is_punct and not is_link(t)), None)
        if first is not None and was_first is not None and first.i != was_first.i and first.i not in replaced and (
                first.dep_ in SUBORDINATING or (first.pos_ == "ADP" and first.dep_ != "prep")):
            problems.append(f"sentence now starts with {first.text!r}")
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
