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
  8. arguments and junctions: a kept verb or copula whose every object/complement or every subject was cut ("It's!",
     "gonna burn"); a word that needs a complement before the end of a sentence ("SDD Vol. 4 is!!"); a label without
     its value ("Dated: http://…"); a sentence that now starts in lower case, or with an auxiliary or a
     subordinating conjunction; a neutral phrase run into a noun or number ("a certain time New Scientist"), keeping
     a particle ("A certain day off"), after a hedge on a quantity ("what some time"), opening a sentence before a
     subject pronoun ("A certain day I'm in"), or made of a greeting ("Goood morning" -> "A certain time"); a
     number kept next to the date word it belonged to ("on 11"), a range cut in half; a separator (colon, dash,
     plus, bar) gone from between two kept words ("Photo #Singapore was").
:class:`NaturalnessChecker` judges an (original, output) pair on its own: :func:`align` recovers the cut and
generalized tokens from the text, the rules above run on them, and an optional word trigram model
(:mod:`anonymizer.temporal.language_model`) flags an unlikely junction. :class:`LearnedNaturalnessChecker` weighs all
of that (and the alignment: what was inserted, how much went) with a logistic regression fitted on a reader's
verdicts. On the round-8 held-out sample, judged once after both were frozen: the rules and language model find 7 of
the 16 outputs the reader found unnatural (recall 0.44), the fitted checker 13 of 16 (recall 0.81, precision 0.30;
on round 7: 19 of 26, 0.73 and 0.54; bench/bench_naturalness.py). What a reader notices beyond these (a sentence
that lost its sense, an idiom cut in two) the rules do not see; the hand-checked samples in the tests say how often
that happens.
"""

from __future__ import annotations

import difflib
import math
import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from anonymizer.temporal.anonymize import BE_FORMS, opens_sentence, reattaches
from anonymizer.temporal.normalize import NormalizedText, normalize
from anonymizer.temporal.tagging import is_link, kind_of

__all__ = ["DATELESS_SPANS", "PLACING_TYPES", "Alignment", "LearnedNaturalnessChecker", "NaturalnessChecker", "align",
           "is_correct", "naturalness_problems", "placing_spans"]

MODIFIER_DEPS = frozenset({"det", "predet", "amod", "nummod", "poss", "compound", "quantmod", "case", "nmod"})
ADVERBIAL_DEPS = frozenset({"npadvmod", "advmod", "tmod"})
DESCRIBING_POS = frozenset({"DET", "ADJ", "NUM", "NOUN", "PROPN"})
PHRASE = r"(?:a certain (?:day|time|moment)|some time)"
_DEBRIS = re.compile(r"\s[,;:](?!\S)|[,;:]\s*[,;:.!?|]|^\s*[,;:.]|[,;:]\s*$|\(\s*\)|\[\s*\]|[(\[]\s+|\s+[)\]]")
_PHRASES_SIDE_BY_SIDE = re.compile(rf"(?i){PHRASE}\W*{PHRASE}|(?:a certain time|some time) of\b")
# A preposition right before a link or the end of a sentence ("The beauty of http://…", "join us at.").
_PREPOSITION_AT_END = re.compile(r"(?i)\b(?:of|at|in|on|for|from|to|with|by|till|until|during|since)\s*(?:https?://|$|[.!?])")
SUBORDINATING = frozenset({"mark"})
# A word that cannot end a sentence, now before its end or a link ("It's!", "SDD Vol. 4 is!!", "see you at!").
_OPEN_WORD_AT_END = re.compile(
    r"(?i)(?<![\w'’])(?:of|at|in|on|for|from|to|with|by|till|until|during|since|is|are|was|were|am|be|been|it's|"
    r"it’s|that's|the|a|an|my|your|our|their|his|and|or|but|than|every|each|this|next|last)\s*(?:https?://|$|[.!?:|])")
# A label without its value: a colon before a link, a bar or the end ("Dated: http://…", "Prelims: |").
_EMPTY_LABEL = re.compile(r"(?<![/\s]):\s*(?:https?://|www\.|$|\|)")
# A sentence that now starts in lower case ("… in NTU. trip to London!").
_LOWER_START = re.compile(r"[.!?]\s+[a-z]")
SEPARATORS = frozenset({":", "-", "–", "—", "|", "+", "/", "~", "=", "&", "x"})
# Hedges on a quantity, left in front of the phrase that replaced it ("I spend what some time", "abt a certain time").
HEDGES = frozenset("what about abt approximately approx roughly almost nearly".split())
SUBJECT_PRONOUNS = frozenset("i i'm i've i'll we we're you you're he he's she she's they they're".split())
RANGE_WORDS = frozenset({"-", "–", "—", "to", "till", "until", "and", "&", "thru", "through"})
GREETINGS = frozenset("good happy merry nice lovely great blessed".split())
PARTICLES = frozenset("off out up down away".split())
COMPLEMENT_DEPS = frozenset({"dobj", "attr", "acomp", "oprd"})
SUBJECT_DEPS = frozenset({"nsubj", "nsubjpass", "csubj", "expl"})
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


def _promoted(doc: Any, gone: set[int]) -> dict[int, int]:
    """"4+ hours of queuing" -> "queuing": the object of a cut "of" takes the place of the cut time noun, with
    the noun's kept modifiers ("your well deserved months of leave" -> "your well deserved leave"). Cut noun ->
    the word that took its place."""
    promoted: dict[int, int] = {}
    for token in doc:
        if token.lower_ == "of" and token.i in gone and token.head.i in gone:
            objects = [c for c in token.children if c.dep_ in ("pobj", "pcomp") and c.i not in gone]
            if objects:
                promoted[token.head.i] = objects[0].i
        elif token.lower_ in BE_FORMS and token.i in gone and token.head.i == token.i:
            # "It's the weekend, Stop working and go shopping!" -> "Stop working and go shopping!": the clause
            # that only said when went whole; the verb after it is the sentence now.
            clauses = [c for c in token.children if c.i not in gone and c.pos_ in ("VERB", "AUX")
                       and c.dep_ in ("xcomp", "ccomp", "conj", "parataxis", "advcl")]
            if clauses and all(c.i in gone for c in token.children if c.dep_ in ("nsubj", "expl", "attr")):
                promoted[token.i] = clauses[0].i
    return promoted


def _describes_neutral_noun(token: Any, output: str) -> bool:
    """A describing word the anonymizer kept in front of a neutral noun ("a fun day" -> "a fun time", "Nicest
    evening" -> "Nicest time") still has its noun."""
    return re.search(rf"(?<!\w){re.escape(token.text)}(?:\s+[\w'-]+){{0,2}}?\s+(?:times?|days?)\b", output) is not None


def naturalness_problems(doc: Any, cut: frozenset[int] | set[int], replaced: frozenset[int] | set[int],
                         original: str, output: str) -> list[str]:
    """What makes the output unnatural, by the rules of the module docstring (empty: natural)."""
    problems: list[str] = []
    if not cut and not replaced:
        return problems
    gone = set(cut) - set(replaced)
    kept = [t for t in doc if t.i not in gone]
    promoted = _promoted(doc, gone)
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
                and token.pos_ in DESCRIBING_POS and not _describes_neutral_noun(token, output):
            problems.append(f"orphaned modifier {token.text!r} of a generalized word")
        if token.dep_ == "cc":
            conjuncts = [c for c in token.head.children if c.dep_ == "conj"]
            if conjuncts and all(c.i in gone for c in conjuncts):
                problems.append(f"dangling conjunction {token.text!r}")
    words = [t for t in kept if not t.is_punct and not t.is_space]
    if words and (words[0].dep_ == "cc" or words[-1].dep_ == "cc"):
        problems.append("conjunction at the edge of the post")
    for sentence in doc.sents:
        if sentence.root.i in gone and sentence.root.i not in promoted and any(
                t.i not in gone and _is_word(t) for t in sentence):
            problems.append(f"sentence root {sentence.root.text!r} removed")
    # An adverbial phrase that opens its sentence reads as a nominal sentence when a preposition or the end
    # follows ("Some time till I'm back!"), not before a clause ("A certain day I'm in Hong Kong").
    if any(doc[i].dep_ in ADVERBIAL_DEPS and doc[i].head.i not in replaced and not (
            opens_sentence(doc[i]) and _followed_loosely(doc, i, set(cut) | set(replaced)))
           for i in replaced if doc[i].head.i != i):
        problems.append("neutral phrase standing for an adverbial")
    problems.extend(_argument_problems(doc, gone, set(replaced), promoted))
    problems.extend(_junction_problems(doc, set(cut), set(replaced)))
    if _PHRASES_SIDE_BY_SIDE.search(output) or len(_PHRASE_AFTER.findall(output)) > len(
            _PHRASE_AFTER.findall(original)):
        problems.append("neutral phrase does not fit")
    if len(_PREPOSITION_AT_END.findall(output)) > len(_PREPOSITION_AT_END.findall(original)):
        problems.append("preposition without its object")
    elif len(_OPEN_WORD_AT_END.findall(output)) > len(_OPEN_WORD_AT_END.findall(original)):
        problems.append("a word that needs a complement ends a sentence")
    if len(_EMPTY_LABEL.findall(output)) > len(_EMPTY_LABEL.findall(original)):
        problems.append("a label without its value")
    if len(_LOWER_START.findall(output)) > len(_LOWER_START.findall(original)):
        problems.append("a sentence now starts in lower case")
    for sentence in doc.sents:
        first = next((t for t in sentence if t.i not in gone and not t.is_punct and not is_link(t)), None)
        was_first = next((t for t in sentence if not t.is_punct and not is_link(t)), None)
        if first is not None and was_first is not None and first.i != was_first.i and first.i not in replaced and (
                first.dep_ in SUBORDINATING or (first.pos_ == "ADP" and first.dep_ != "prep")
                or first.dep_ in ("aux", "auxpass") or first.pos_ == "SCONJ"):
            problems.append(f"sentence now starts with {first.text!r}")
    if _debris_count(output) > _debris_count(original):
        problems.append("punctuation debris")
    return problems




def _runs(indices: set[int]) -> list[tuple[int, int]]:
    """Maximal runs [first, last] of consecutive token indices."""
    runs: list[tuple[int, int]] = []
    for i in sorted(indices):
        if runs and runs[-1][1] == i - 1:
            runs[-1] = (runs[-1][0], i)
        else:
            runs.append((i, i))
    return runs


def _followed_loosely(doc: Any, i: int, cut: set[int]) -> bool:
    """Whether the first kept word after the phrase of token ``i`` lets a phrase stand alone before it: a
    preposition, "to"/"till", punctuation, a link, or the end."""
    after = next((t for t in doc[i:] if t.i not in cut), None)
    return after is None or after.is_punct or is_link(after) or after.pos_ in ("ADP", "PART", "SCONJ", "CCONJ")


def _argument_problems(doc: Any, gone: set[int], replaced: set[int], promoted: dict[int, int]) -> list[str]:
    """A kept verb or copula whose every object / complement, or every subject, was cut (not generalized):
    "It's!", "gonna burn", "So marks the mark"."""
    problems: list[str] = []
    for token in doc:
        if token.i in gone or token.pos_ not in ("VERB", "AUX"):
            continue
        for deps, what in ((COMPLEMENT_DEPS, "complement"), (SUBJECT_DEPS, "subject")):
            arguments = [c for c in token.children if c.dep_ in deps and not is_link(c)]
            if arguments and all(c.i in gone and c.i not in promoted for c in arguments):
                problems.append(f"{token.text!r} lost its {what}")
    return problems


def _is_word(token: Any) -> bool:
    """A word of the text (a hashtag's or mention's mark counts when a word follows it), not punctuation or a link."""
    if token.text in ("#", "@"):
        return token.i + 1 < len(token.doc) and token.nbor(1).idx == token.idx + 1
    return not token.is_punct and not token.is_space and not is_link(token)


def _is_date_part(token: Any) -> bool:
    return token.like_num or kind_of(token) in ("day", "clock", "period")


def _junction_problems(doc: Any, cut: set[int], replaced: set[int]) -> list[str]:
    """Where a removed run meets the kept words around it: a neutral phrase run into a noun or a number ("a
    certain time New Scientist", "knee a certain time"), a particle left after it ("A certain day off"), a hedge
    left before it ("what some time"), a separator (colon, dash, plus, bar) gone from between two kept words
    ("Photo #Singapore was", "Zalora 4% cash back")."""
    problems: list[str] = []
    cut = cut | replaced  # the anonymizer leaves the first token of a generalized run out of its cut set
    for first, last in _runs(cut):
        before = doc[first - 1] if first > 0 else None
        after = doc[last + 1] if last + 1 < len(doc) else None
        is_phrase = all(i in replaced for i in range(first, last + 1))
        run = range(first, last + 1)
        if is_phrase:
            if after is not None and after.pos_ in ("NOUN", "PROPN", "NUM") and (
                    (_is_word(after) and after.head.i not in run) or after.dep_ == "compound"):
                problems.append(f"neutral phrase runs into {after.text!r}")
            if before is not None and _is_word(before) and before.pos_ in ("NOUN", "PROPN", "NUM") \
                    and before.dep_ not in ("dobj", "dative", "nsubj", "appos") \
                    and not (before.dep_ == "amod" and before.head.i in run):
                problems.append(f"{before.text!r} runs into a neutral phrase")
            if after is not None and after.head.i in replaced and (after.dep_ == "prt" or after.lower_ in PARTICLES):
                problems.append(f"neutral phrase keeps the particle {after.text!r}")
            if after is not None and opens_sentence(doc[first]) and after.lower_ in SUBJECT_PRONOUNS:
                problems.append("neutral phrase standing for an adverbial before a clause")
            if before is not None and before.lower_ in HEDGES and (before.head.i in replaced or doc[first].like_num):
                problems.append(f"hedge {before.text!r} left before a neutral phrase")
        # "on 11 [Oct 2013]", "[15 -] 17 May": a number kept right next to the date word it belonged to.
        if not is_phrase and any(kind_of(doc[i]) is not None for i in run) and (
                (before is not None and before.like_num and _is_date_part(doc[first]))
                or (after is not None and after.like_num and _is_date_part(doc[last]))):
            problems.append("a date or range cut in half")
        if before is not None and before.lower_ in RANGE_WORDS and first >= 2 and doc[first - 2].i not in cut and \
                _is_date_part(doc[first - 2]) and any(_is_date_part(doc[i]) for i in run):
            problems.append("a range cut in half")
        if is_phrase and any(doc[i].lower_ in GREETINGS for i in run) and any(kind_of(doc[i]) for i in run):
            problems.append("a greeting turned into a neutral phrase")
        edges = {doc[first].text, doc[last].text}
        if edges & SEPARATORS and before is not None and after is not None and _is_word(before) and \
                _is_word(after) and doc[first:last + 1].text.strip() not in SEPARATORS:
            problems.append("a separator went from between two kept words")
    return problems


# TimeML types of gold spans that place a post in time. DURATION ("for 2 hours") and SET ("every day") say how long or
# how often: the anonymizer keeps those that are tied to nothing (TemporalAnonymizer.keep_how_long), and readers
# judged posts that keep them correct (issue 18, round 9).
PLACING_TYPES = frozenset({"DATE", "TIME"})


# Gold DATE spans that date nothing (issue 46): "now" words tell nothing beyond the post's own timestamp (SynTime
# types "now" DATE 132 times), and "the future" names no date; the anonymizer keeps both by default and readers do
# not count them as times.
DATELESS_SPANS = frozenset({"now", "right now", "just now", "currently", "lately", "recently", "soon", "later",
                            "earlier", "these days", "nowadays", "rn", "future", "the future"})


def placing_spans(spans: list[tuple[int, int, str]], text: str) -> list[tuple[int, int]]:
    """(start, end) of the typed gold spans (start, end, TimeML type) of ``text`` that place the post in time: DATE
    and TIME, less those that date nothing ("now", "soon", "the future")."""
    return [(start, end) for start, end, kind in spans
            if kind in PLACING_TYPES and " ".join(text[start:end].lower().split()) not in DATELESS_SPANS]


def is_correct(result: Any, gold_spans: list[tuple[int, int]], text: str) -> bool:
    """No non-space character of a gold span survives (generalized counts as removed)."""
    covered = [*result.removed_spans, *result.generalized_spans]
    for start, end in gold_spans:
        for i in range(start, end):
            if not text[i].isspace() and not any(s <= i < e for s, e in covered):
                return False
    return True


# -- judging an (original, output) pair on its own ------------------------------------------------------------

_PHRASE_PIECES = re.compile(rf"(?i)\b{PHRASE}\b")
_INSERTED = "\x00"  # stands for a neutral phrase while aligning: it never matches a piece of the original


@dataclass(frozen=True)
class Alignment:
    """How an output was made from an original: the original's pieces (:func:`normalize`) and its parse, the
    tokens gone (``cut``: removed, or replaced by inserted text) and those replaced by inserted text, and the
    junctions of the output: (start, end) character spans of the output where something was removed (an empty
    span) or inserted."""

    norm: NormalizedText
    doc: Any
    cut: frozenset[int]
    replaced: frozenset[int]
    removed_pieces: frozenset[int]
    junctions: tuple[tuple[int, int], ...]
    inserted: tuple[str, ...]


def _output_pieces(output: str) -> tuple[list[str], list[tuple[int, int]]]:
    """The output's pieces lower-cased for matching, a neutral phrase as one piece that matches nothing."""
    keys: list[str] = []
    spans: list[tuple[int, int]] = []
    phrases = [(m.start(), m.end()) for m in _PHRASE_PIECES.finditer(output)]
    position = 0
    for start, end in phrases:
        for piece in normalize(output[position:start]).pieces:
            keys.append(piece.original.lower())
            spans.append((position + piece.start, position + piece.end))
        keys.append(_INSERTED)
        spans.append((start, end))
        position = end
    for piece in normalize(output[position:]).pieces:
        keys.append(piece.original.lower())
        spans.append((position + piece.start, position + piece.end))
    return keys, spans


def align(nlp: Any, original: str, output: str, doc: Any = None) -> Alignment:
    """Align ``output`` with ``original`` piece by piece (case-insensitive: a cut may hand its capital on): the
    original's pieces that have no match were removed, the output's were inserted; a run of removed pieces with
    inserted text at its place is replaced. ``doc``: the parse of ``normalize(original).text`` if at hand."""
    norm = normalize(original)
    doc = doc if doc is not None else nlp(norm.text)
    keys, spans = _output_pieces(output)
    # A phrase the author wrote stays the author's (it matches itself).
    originals = [p.original.lower() for p in norm.pieces]
    matcher = difflib.SequenceMatcher(None, originals, keys, autojunk=False)
    removed: set[int] = set()
    replaced_pieces: set[int] = set()
    junctions: list[tuple[int, int]] = []
    inserted: list[str] = []
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        if tag == "equal":
            continue
        removed.update(range(i1, i2))
        if j2 > j1:
            replaced_pieces.update(range(i1, i2))
            junctions.append((spans[j1][0], spans[j2 - 1][1]))
            inserted.append(output[spans[j1][0]:spans[j2 - 1][1]])
        else:
            at = spans[j1][0] if j1 < len(spans) else len(output)
            junctions.append((at, at))
    cut: set[int] = set()
    replaced: set[int] = set()
    for token in doc:
        pieces = norm.piece_at(token.idx, token.idx + len(token))
        if pieces and all(p in removed for p in pieces):
            cut.add(token.i)
            if all(p in replaced_pieces for p in pieces):
                replaced.add(token.i)
    # A generalized noun that kept its describing words ("a wonderful month" -> "a wonderful time"): they belong to
    # the generalized phrase.
    for i in sorted(replaced):
        for child in doc[i].lefts:
            if child.i not in cut and child.dep_ in MODIFIER_DEPS and not _PHRASE_PIECES.search(output):
                replaced.add(child.i)
    return Alignment(norm, doc, frozenset(cut), frozenset(replaced), frozenset(removed), tuple(junctions),
                     tuple(inserted))


class NaturalnessChecker:
    """Judges an (original, output) pair on its own: :func:`align` finds what was removed and inserted, the
    parse rules of :func:`naturalness_problems` run on the original's parse with those token sets, and, with a
    fitted :class:`~anonymizer.temporal.language_model.NGramLanguageModel`, every junction of the output (where
    words were removed or a phrase inserted) is scored: the lowest log probability, less the token's unigram
    log probability (a pointwise mutual information, so rare words are not blamed), of the words from the junction
    to the first kept word after it. A junction scoring below ``lm_floor`` (and, when ``lm_margin`` is set, that
    many nats below the same place in the original) counts as a problem ("unlikely junction"). The defaults were
    tuned on the development and round-2 hand-checked samples (see tests/temporal/core/test_naturalness.py)."""

    def __init__(self, nlp: Any, language_model: Any = None, *, lm_floor: float = -2.5,
                 lm_margin: float | None = None) -> None:
        self.nlp = nlp
        self.language_model = language_model
        self.lm_floor = lm_floor
        self.lm_margin = lm_margin

    def junction_scores(self, original: str, output: str,
                        alignment: Alignment | None = None) -> list[tuple[float, float]]:
        """(score in the output, score of the same place in the original) for every junction of the output."""
        from anonymizer.temporal.language_model import tokenize_with_spans

        model = self.language_model
        if model is None:
            return []
        alignment = alignment or align(self.nlp, original, output)
        out_tokens = tokenize_with_spans(output)
        out_lp = model.token_logprobs([t for t, _, _ in out_tokens])
        orig_tokens = tokenize_with_spans(original)
        orig_lp = model.token_logprobs([t for t, _, _ in orig_tokens])
        matcher = difflib.SequenceMatcher(None, [t for t, _, _ in orig_tokens], [t for t, _, _ in out_tokens],
                                          autojunk=False)
        scores = []

        def surprise(tokens: list[tuple[str, int, int]], logprobs: list[float], start: int, end: int) -> float:
            window = range(start, min(end + 1, len(logprobs)))
            names = [tokens[k][0] if k < len(tokens) else "</s>" for k in window]
            return min(logprobs[k] - model.unigram_logprob(name) for k, name in zip(window, names, strict=True))

        for tag, i1, i2, j1, j2 in matcher.get_opcodes():
            if tag == "equal":
                continue
            scores.append((surprise(out_tokens, out_lp, j1, j2), surprise(orig_tokens, orig_lp, i1, i2)))
        return scores

    def problems(self, original: str, output: str) -> list[str]:
        """What makes ``output`` an unnatural rewrite of ``original`` (empty: natural)."""
        if original == output:
            return []
        alignment = align(self.nlp, original, output)
        found = naturalness_problems(alignment.doc, alignment.cut, alignment.replaced, original, output)
        for score, before in self.junction_scores(original, output, alignment):
            if score < self.lm_floor and (self.lm_margin is None or score < before - self.lm_margin):
                found.append(f"unlikely junction ({score:.1f} against {before:.1f} in the original)")
                break
        return found

    def is_natural(self, original: str, output: str) -> bool:
        return not self.problems(original, output)


# -- a checker fitted on a reader's verdicts ---------------------------------------------------------------------

# Families of the parse rules' problems (a problem's text starts with or holds one of these).
PROBLEM_FAMILIES = ("dangling preposition", "orphaned", "conjunction", "root", "debris", "neutral phrase", "lost its",
                    "needs a complement", "label", "lower case", "starts with", "cut in half", "separator", "greeting",
                    "preposition without", "hedge", "runs into")
_FUNCTION_POS = frozenset({"DET", "ADP", "CCONJ", "SCONJ", "AUX", "PART"})
_FINAL_PARTICLES = frozenset("up out off on in over down away back too there".split())
_WORDS = re.compile(r"[A-Za-z]+")
_LINKS = re.compile(r"https?://\S+|@\w+|#\w+")


class LearnedNaturalnessChecker:
    """A logistic regression over what a :class:`NaturalnessChecker` sees in an (original, output) pair, fitted on a
    reader's verdicts: the parse rules' problems by family, the language model's junction scores and the output's
    mean log probability against the original's, whether a phrase was inserted (and whether it is one of the old
    "a certain ..."), how much of the post went, words cut that the tagger did not mark as time, sentences of the
    re-parsed output that end on a function word, an output with no words left. Configured in ``__init__``, then
    :meth:`fit` on pairs and verdicts; :meth:`is_natural` says unnatural when the predicted probability reaches
    ``threshold`` (chosen on other samples than the one it is judged on; see bench/bench_naturalness.py)."""

    def __init__(self, checker: NaturalnessChecker, *, threshold: float = 0.4, regularization: float = 1.0) -> None:
        self.checker = checker
        self.threshold = threshold
        self.regularization = regularization

    def features(self, original: str, output: str) -> dict[str, float]:
        from anonymizer.temporal.language_model import tokenize
        from anonymizer.temporal.tagging import TimeTagger

        checker = self.checker
        alignment = align(checker.nlp, original, output)
        problems = naturalness_problems(alignment.doc, alignment.cut, alignment.replaced, original, output)
        found = {f"problem: {family}": float(any(family in p for p in problems)) for family in PROBLEM_FAMILIES}
        found["problems"] = float(len(problems))
        scores = checker.junction_scores(original, output, alignment)
        outs = [s for s, _ in scores] or [0.0]
        found["junction: lowest"] = min(outs)
        found["junction: lowest against the original"] = min((s - b for s, b in scores), default=0.0)
        found["junctions below -2.5"] = float(sum(s < -2.5 for s in outs))
        found["junctions"] = float(len(scores))
        model = checker.language_model
        if model is not None:
            before, after = tokenize(original), tokenize(output)
            lp_before = model.token_logprobs(before) if before else [0.0]
            lp_after = model.token_logprobs(after) if after else [0.0]
            found["mean log probability against the original"] = \
                sum(lp_after) / len(lp_after) - sum(lp_before) / len(lp_before)
            found["lowest log probability against the original"] = min(lp_after) - min(lp_before)
        inserted = " ".join(alignment.inserted).lower()
        found["phrase inserted"] = float(bool(alignment.inserted))
        found["'a certain' or 'some time' inserted"] = float("certain" in inserted or "some time" in inserted)
        marked = TimeTagger().tag(alignment.doc)
        words = [t for t in alignment.doc if t.is_alpha]
        cut_words = [t for t in words if t.i in alignment.cut]
        found["share of words removed"] = len(cut_words) / max(1, len(words))
        found["words cut that are no time"] = float(sum(
            1 for t in cut_words if not marked[t.i] and t.pos_ not in _FUNCTION_POS | {"PRON", "PUNCT"}))
        left = _WORDS.findall(_LINKS.sub("", output))
        found["words left (log)"] = math.log1p(len(left))
        found["no words left"] = float(not left)
        ends_on_function = 0
        for sentence in checker.nlp(output).sents if output.strip() else []:
            kept = [t for t in sentence if t.is_alpha and not is_link(t)]
            if kept and kept[-1].pos_ in _FUNCTION_POS and kept[-1].lower_ not in _FINAL_PARTICLES:
                ends_on_function += 1
        found["sentences ending on a function word"] = float(ends_on_function)
        found["starts in lower case now"] = float(original.strip()[:1].isupper() and output.strip()[:1].islower())
        return found

    def _matrix(self, originals: Sequence[str], outputs: Sequence[str]) -> Any:
        import numpy as np

        rows = [self.features(o, p) for o, p in zip(originals, outputs, strict=True)]
        if not hasattr(self, "feature_names_"):
            self.feature_names_ = sorted(rows[0]) if rows else []
        return np.array([[row.get(name, 0.0) for name in self.feature_names_] for row in rows], dtype=float)

    def fit(self, originals: Sequence[str], outputs: Sequence[str],
            unnatural: Sequence[bool]) -> LearnedNaturalnessChecker:
        """Fit on (original, output) pairs a reader judged; ``unnatural[i]`` is the reader's verdict. Pairs whose
        output is the original are left out (the checker calls them natural without asking)."""
        from sklearn.linear_model import LogisticRegression

        keep = [i for i, (o, p) in enumerate(zip(originals, outputs, strict=True)) if o != p]
        if hasattr(self, "feature_names_"):
            del self.feature_names_
        matrix = self._matrix([originals[i] for i in keep], [outputs[i] for i in keep])
        labels = [bool(unnatural[i]) for i in keep]
        self.model_ = LogisticRegression(C=self.regularization, max_iter=2000, class_weight="balanced")
        self.model_.fit(matrix, labels)
        return self

    def probability_unnatural(self, original: str, output: str) -> float:
        if not hasattr(self, "model_"):
            raise RuntimeError("LearnedNaturalnessChecker is not fitted; call fit() first")
        if original == output:
            return 0.0
        return float(self.model_.predict_proba(self._matrix([original], [output]))[0, 1])

    def is_natural(self, original: str, output: str) -> bool:
        return self.probability_unnatural(original, output) < self.threshold
