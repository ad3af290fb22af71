"""Release building: which units of a post go (the search over the scorers it was handed), what is written
instead (a mask, a coarser place), and the released text checked again as a reader gets it. Handed a Scoring and
a PlaceResolver, it never calls back into the model (no Django here)."""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace

from anonymizer.location.deidentify import Deidentification, Deidentifier
from anonymizer.location.explain import why_not_under
from anonymizer.location.place_scorer import PlaceResolver, coarser_place, places_in_grid
from anonymizer.location.scoring import Scoring
from anonymizer.location.tokens import Token
from anonymizer.platform.deadline import Deadline, check

MASK = {"en": "[place]", "ja": "［地名］"}
# Re-checking the released text can find what the search over units could not see (a word the deletion joined,
# a re-tokenized contraction); the search continues on the released text this many times at most.
MAX_ROUNDS = 3


@dataclass(frozen=True)
class Release:
    """A released text and, per character, where it came from in the original (-1: written by us)."""

    text: str
    origin: list[int]


def build_release(text: str, tokens: Sequence[Token], deleted: Sequence[int] | set[int],
                  replacements: Mapping[int, str] | None = None) -> Release:
    """The text without the deleted tokens, or with what replaces them; a space left doubled by a removed word,
    or left at the start of a line by a removed first word, is dropped."""
    replacements = replacements or {}
    chars: list[str] = []
    origin: list[int] = []
    position = 0
    for index in [*sorted(deleted, key=lambda i: tokens[i].start), None]:
        start = len(text) if index is None else tokens[index].start
        offset = position
        piece = text[position:start]
        at_start = not chars and position > 0
        if (at_start or (chars and chars[-1] in " \n")) and piece.startswith(" "):
            piece, offset = piece[1:], offset + 1
        chars.extend(piece)
        origin.extend(range(offset, offset + len(piece)))
        if index is not None:
            written = replacements.get(index, "")
            chars.extend(written)
            origin.extend([-1] * len(written))
            position = tokens[index].end
    begin, end = 0, len(chars)
    while begin < end and chars[begin].isspace():
        begin += 1
    while end > begin and chars[end - 1].isspace():
        end -= 1
    return Release("".join(chars[begin:end]), origin[begin:end])


def remove_spans(text: str, tokens: Sequence[Token]) -> str:
    """The text without the tokens' characters (see build_release)."""
    return build_release(text, list(tokens), range(len(tokens))).text


@dataclass(frozen=True)
class Released:
    """What release building decided for one post: its tokens, the search's decision (final: every deletion,
    the released text's scores), the released text and its tokens, and what was kept or written instead."""

    tokens: list[Token]
    decision: Deidentification
    text_after: str
    released_tokens: list[Token]
    kept: list[int]  # token indices the user asked to keep
    replacements: dict[int, str]  # deleted token index -> what was written instead
    rounds: int  # searches run until the re-tokenized released text scored under every threshold
    keep_missing: tuple[str, ...]  # keep-words or phrases found nowhere in the post


@dataclass
class _State:
    """The release as it stands: the units deleted, what replaces some, the text and its scores."""

    deleted: set[int]
    release: Release
    released_tokens: list[Token]
    scores: dict[str, float]
    rounds: int = 1


def release_post(text: str, scoring: Scoring, resolver: PlaceResolver, language: str, *, m: int | None = None,
                 keep_words: Sequence[str] = (), keep_spans: Sequence[tuple[int, int]] = (),
                 replacement: str = "delete", places: str = "all", deadline: Deadline | None = None) -> Released:
    """Delete the fewest units (or exactly m) that bring every scorer under its threshold, then check the text
    actually released, re-tokenized and re-scored, and search again (automatic mode) while it is not under every
    threshold; then, when asked, write a coarser place instead of a deleted one where the text stays under
    (LocationModel.deidentify says what each option means)."""
    tokens = scoring.tokenize(text)
    norms = [t.norm for t in tokens]
    matched = match_keep_words(text, tokens, keep_words)
    keep = sorted({i for units in matched.values() for i in units}
                  | {i for i, t in enumerate(tokens) if any(t.start < end and start < t.end
                                                            for start, end in keep_spans)})
    allowed = {i for i, t in enumerate(tokens) if t.deletable and i not in set(keep)}
    named = places_in_grid(resolver, tokens, allowed) if m is None and places == "all" else []
    decision = _search_without(scoring.deidentifier, norms, [t.deletable for t in tokens], keep, named, m, deadline)
    mask = MASK[language] if replacement == "mask" else None
    state = _first_release(text, tokens, set(decision.deleted), mask, scoring)
    if m is None:
        _search_again(text, tokens, allowed, state, mask, scoring, deadline)
    replacements = _masks(tokens, state.deleted, mask)
    if replacement == "generalize" and scoring.under(state.scores):
        _generalize(text, tokens, state, replacements, scoring, resolver, language, deadline)
    under = scoring.under(state.scores)
    reason = "" if under else why_not_under(state.scores, scoring.thresholds, tokens, state.deleted, keep, m)
    final = replace(decision, deleted=tuple(sorted(state.deleted)), scores_after=state.scores,
                    under_threshold=under, optimal=decision.optimal and state.rounds == 1,
                    minimal=decision.minimal and state.rounds == 1, reason=reason)
    return Released(tokens, final, state.release.text, state.released_tokens, keep, replacements, state.rounds,
                    tuple(word for word, units in matched.items() if not units))


def _masks(tokens: Sequence[Token], deleted: set[int], mask: str | None) -> dict[int, str]:
    """What a deleted place unit reads when places are masked (a deleted word is just deleted)."""
    if mask is None:
        return {}
    return {i: mask for i in deleted if tokens[i].kind != "word"}


def _first_release(text: str, tokens: Sequence[Token], deleted: set[int], mask: str | None,
                   scoring: Scoring) -> _State:
    release = build_release(text, tokens, deleted, _masks(tokens, deleted, mask))
    released_tokens, scores = scoring.scores(release.text)
    return _State(deleted, release, released_tokens, scores)


def _search_again(text: str, tokens: Sequence[Token], allowed: set[int], state: _State, mask: str | None,
                  scoring: Scoring, deadline: Deadline | None) -> None:
    """While the released text is not under every threshold (and rounds are left), search again on it, among
    the units copied only from units the search may delete; ``state`` takes each round's release."""
    while not scoring.under(state.scores) and state.rounds < MAX_ROUNDS:
        protected = [k for k, t in enumerate(state.released_tokens)
                     if not _from_allowed(state.release, t, tokens, allowed)]
        more = scoring.deidentifier.deidentify([t.norm for t in state.released_tokens],
                                               [t.deletable for t in state.released_tokens], keep=protected,
                                               deadline=deadline)
        new = set()
        for k in more.deleted:
            new |= _original_tokens(state.release, state.released_tokens[k], tokens) & allowed
        new -= state.deleted
        if not new:
            break
        state.deleted |= new
        state.rounds += 1
        state.release = build_release(text, tokens, state.deleted, _masks(tokens, state.deleted, mask))
        state.released_tokens, state.scores = scoring.scores(state.release.text)


def _generalize(text: str, tokens: Sequence[Token], state: _State, replacements: dict[int, str], scoring: Scoring,
                resolver: PlaceResolver, language: str, deadline: Deadline | None) -> None:
    """Write a coarser place instead of deleted ones wherever the text stays under every threshold.

    One trial per coarser place, not per deleted unit: the units it would replace go in together (a bag of words
    sees one "Iowa" however often it is written), so a post with hundreds of deleted places costs a few
    re-scorings, not hundreds (each re-tokenizes the whole post)."""
    groups: dict[str, list[int]] = {}
    for i in sorted(state.deleted):
        coarser = coarser_place(resolver, tokens[i], language)
        if coarser is not None:
            groups.setdefault(coarser, []).append(i)
    for coarser, units in groups.items():
        check(deadline)
        trial = build_release(text, tokens, state.deleted, {**replacements, **dict.fromkeys(units, coarser)})
        trial_tokens, trial_scores = scoring.scores(trial.text)
        if scoring.under(trial_scores):
            replacements.update(dict.fromkeys(units, coarser))
            state.release, state.released_tokens, state.scores = trial, trial_tokens, trial_scores


def _spaced(char: str) -> bool:
    """A letter or digit of a script written with spaces between words (not CJK, kana or Hangul)."""
    return char.isalnum() and ord(char) < 0x2E80


def match_keep_words(text: str, tokens: Sequence[Token], keep_words: Sequence[str]) -> dict[str, list[int]]:
    """Per keep entry (a word or a phrase: "Des Moines", "Iowa Cubs") the indices of the units it keeps: every
    unit that overlaps an occurrence of it in the post (case-insensitive; in spaced scripts only at word
    boundaries, so "Ames" is not found in "games"), so a phrase keeps every unit it spans and a word keeps the
    unit it is part of ("Rock" keeps "Little Rock"); also a unit whose normal form is the entry (a hashtag
    "#DesMoines" is kept by "des moines"). An entry found nowhere maps to an empty list."""
    out: dict[str, list[int]] = {}
    for raw in keep_words:
        word = " ".join(raw.split())
        if not word or word in out:
            continue
        # Any run of spaces in the entry matches any run of white space in the post.
        pattern = r"\s+".join(re.escape(part) for part in word.split(" "))
        if _spaced(word[0]):
            pattern = r"(?<![^\W_])" + pattern
        if _spaced(word[-1]):
            pattern += r"(?![^\W_])"
        spans = [match.span() for match in re.finditer(pattern, text, re.IGNORECASE)]
        folded = word.casefold()
        out[word] = [i for i, t in enumerate(tokens)
                     if any(t.start < end and start < t.end for start, end in spans)
                     or t.norm.casefold() == folded or t.text.casefold() == folded]
    return out


def _search_without(deidentifier: Deidentifier, norms: Sequence[str], deletable: Sequence[bool],
                    keep: Sequence[int], gone: Sequence[int], m: int | None,
                    deadline: Deadline | None = None) -> Deidentification:
    """The search on the post with the units ``gone`` deleted first (every place name, say): the fewest further
    deletions, as the search over the whole post with those fixed (gap bigrams form as they would). The
    decision's indices and "before" scores are the whole post's."""
    if not gone:
        return deidentifier.deidentify(norms, deletable, m=m, keep=keep, deadline=deadline)
    gone_set = set(gone)
    rest = [i for i in range(len(norms)) if i not in gone_set]
    position = {i: k for k, i in enumerate(rest)}
    decision = deidentifier.deidentify([norms[i] for i in rest], [deletable[i] for i in rest], m=m,
                                       keep=[position[i] for i in keep if i in position], deadline=deadline)
    deleted = tuple(sorted(gone_set | {rest[k] for k in decision.deleted}))
    return replace(decision, deleted=deleted, scores_before=deidentifier.scores(norms))


def _original_tokens(release: Release, token: Token, tokens: Sequence[Token]) -> set[int]:
    """The original tokens a token of the released text was copied from."""
    chars = {release.origin[c] for c in range(token.start, token.end) if release.origin[c] >= 0}
    return {i for i, t in enumerate(tokens) if any(t.start <= c < t.end for c in chars)}


def _from_allowed(release: Release, token: Token, tokens: Sequence[Token], allowed: set[int]) -> bool:
    """Whether a released token may be deleted: it was copied only from units the search may delete."""
    if any(release.origin[c] < 0 for c in range(token.start, token.end)):
        return False
    found = _original_tokens(release, token, tokens)
    return bool(found) and found <= allowed
