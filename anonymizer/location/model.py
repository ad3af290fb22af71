"""A trained location model as one artifact: grid, tokenizer settings, classifier, threshold and metadata.

On disk a model is a directory holding ``model.json`` (everything but the weights) and ``classifier.npz``.
"""

from __future__ import annotations

import json
import re
import time
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from dataclasses import asdict, dataclass, field, replace
from datetime import UTC, datetime
from functools import cached_property
from pathlib import Path

import numpy as np

from anonymizer.location.classifier import LocationClassifier
from anonymizer.location.corpus import Post, corpus_fingerprint
from anonymizer.location.deidentify import Deidentification, Deidentifier, LinearScorer
from anonymizer.location.evaluate import evaluate_predictions, split_train_test
from anonymizer.location.options import DEFAULT_OPTIONS, PLACE_POLICIES, REPLACEMENTS
from anonymizer.location.place_scorer import PlaceResolver, place_scorer, smoothed_prior
from anonymizer.location.tokenize import Token, TokenizerSettings, get_tokenizer
from anonymizer.platform.deadline import Deadline, check
from anonymizer.platform.grid import Grid

MASK = {"en": "[place]", "ja": "［地名］"}
# Re-checking the released text can find what the search over units could not see (a word the deletion joined,
# a re-tokenized contraction); the search continues on the released text this many times at most.
MAX_ROUNDS = 3
# A place unit seen in this many training posts is resolved by where those posts were written.
LEARNED_PLACE_MIN_POSTS = 3
# The gazetteer scorer's threshold is never under this multiple of the prior's busiest cell: a post that names
# no place must pass it, and an area as wide as the prior's own spread is no give-away.
PLACE_THRESHOLD_OVER_PRIOR = 1.25

FORMAT_VERSION = 1
PAPER_THRESHOLD = 0.37
# The paper's majority baseline: always answering the busiest area (Kyoto Station) is right 11.6% of the time.
PAPER_MAJORITY_SHARE = 0.116
# Its threshold is this many times the busiest cell's share; a model of a more spread-out corpus, whose
# probabilities are lower overall, gets the same multiple of its own busiest cell's share.
RELATIVE_FACTOR = PAPER_THRESHOLD / PAPER_MAJORITY_SHARE

Progress = Callable[[int, int, str], None]


@dataclass(frozen=True)
class Threshold:
    """The top-cell probability under which a post counts as de-identified, and why it is that value."""

    value: float
    kind: str  # "attacker" (an independent attacker's accuracy), "calibrated" (hand de-identified), "relative", "paper"
    explanation: str

    @classmethod
    def choose(cls, majority_share: float, calibrated: float | None = None, calibrated_posts: int = 0) -> Threshold:
        if calibrated is not None:
            return cls(calibrated, "calibrated",
                       f"Calibrated: the mean top-cell probability of {calibrated_posts} posts that people "
                       "de-identified by hand (the paper's method).")
        relative = RELATIVE_FACTOR * majority_share
        if relative < PAPER_THRESHOLD:
            return cls(relative, "relative",
                       f"Relative: this model's probabilities are low overall (its busiest cell holds "
                       f"{majority_share:.1%} of the training posts), so the threshold is {RELATIVE_FACTOR:.2f} x "
                       f"that share, the ratio of the paper's 0.37 to its 11.6% majority baseline.")
        return cls(PAPER_THRESHOLD, "paper", "The paper's threshold, 0.37, calibrated on hand de-identified posts.")


@dataclass(frozen=True)
class Inference:
    """A post's tokens and its probability for every cell of the grid (0 for cells without training posts)."""

    tokens: list[Token]
    probabilities: np.ndarray  # n_cells

    def top(self, k: int = 5) -> list[tuple[int, float]]:
        order = np.argsort(-self.probabilities, kind="stable")[:k]
        return [(int(cell), float(self.probabilities[cell])) for cell in order]


@dataclass(frozen=True)
class DeidentifiedPost:
    """A post before and after de-identification, with everything a page needs to show both."""

    text: str
    tokens: list[Token]
    decision: Deidentification
    text_after: str
    probabilities_before: np.ndarray  # n_cells
    probabilities_after: np.ndarray
    kept: list[int]  # token indices the user asked to keep
    replacements: dict[int, str] = field(default_factory=dict)  # deleted token index -> what was written instead
    rounds: int = 1  # searches run until the re-tokenized released text scored under every threshold
    keep_missing: tuple[str, ...] = ()  # keep-words or phrases found nowhere in the post

    @property
    def deleted_tokens(self) -> list[Token]:
        return [self.tokens[i] for i in self.decision.deleted]


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


class LocationModel:
    """Everything needed to infer a post's cell and to de-identify it."""

    def __init__(self, *, name: str, grid: Grid, tokenizer_settings: TokenizerSettings,
                 classifier: LocationClassifier, threshold: Threshold, metadata: dict | None = None,
                 learned_places: Mapping[str, Mapping[int, int]] | None = None) -> None:
        self.name, self.grid, self.tokenizer_settings = name, grid, tokenizer_settings
        self.classifier, self.threshold = classifier, threshold
        self.metadata = dict(metadata or {})
        # Place units of the training posts and the cells they were written in (see place_scorer).
        self.learned_places = {norm: {int(c): int(n) for c, n in cells.items()}
                               for norm, cells in (learned_places or {}).items()}

    @property
    def language(self) -> str:
        return self.tokenizer_settings.language

    def tokenize(self, text: str) -> list[Token]:
        return get_tokenizer(self.tokenizer_settings).tokenize(text)

    def cell_probabilities(self, docs: Sequence[Sequence[str]]) -> np.ndarray:
        """Probabilities over all grid cells (n_docs x n_cells) for token-norm sequences."""
        out = np.zeros((len(docs), self.grid.n_cells))
        out[:, self.classifier.classes_] = self.classifier.predict_proba(docs)
        return out

    def infer(self, text: str) -> Inference:
        tokens = self.tokenize(text)
        return Inference(tokens, self.cell_probabilities([[t.norm for t in tokens]])[0])

    def scorer(self) -> LinearScorer:
        return LinearScorer("location", self.classifier.vocabulary_, self.classifier.weights_,
                            self.classifier.intercept_, self.threshold.value)

    @cached_property
    def place_resolver(self) -> PlaceResolver:
        prior = smoothed_prior(self.grid, self.metadata.get("cell_counts"), self.classifier.classes_)
        return PlaceResolver(self.grid, prior, self.learned_places)

    @property
    def place_threshold(self) -> float:
        """The gazetteer scorer's threshold: the model's, but never so low that a post naming nothing fails."""
        floor = PLACE_THRESHOLD_OVER_PRIOR * float(self.place_resolver.prior.max())
        return min(1.0, max(self.threshold.value, floor))

    @cached_property
    def _place_scorer(self) -> LinearScorer:
        # One per model: its vocabulary remembers every unit it resolved.
        return place_scorer(self.place_resolver, self.place_threshold)

    def scorers(self, extra_scorers: Sequence[LinearScorer] = ()) -> list[LinearScorer]:
        """What a released post must be under: the classifier, the gazetteer scorer (models trained with
        units) and any extra model (the crowd's human-inferability model)."""
        own = [self.scorer()]
        if self.tokenizer_settings.units:
            own.append(self._place_scorer)
        return [*own, *extra_scorers]

    def scores(self, text: str, extra_scorers: Sequence[LinearScorer] = ()) -> tuple[list[Token], dict[str, float]]:
        """A text's tokens and every scorer's score on it, as a reader of exactly this text would get them."""
        tokens = self.tokenize(text)
        return tokens, Deidentifier(self.scorers(extra_scorers)).scores([t.norm for t in tokens])

    def generalization(self, token: Token) -> str | None:
        """A coarser place for a place unit: its state or prefecture ("Des Moines" -> "Iowa", "品川区" -> "東京"),
        or None when the unit is not a gazetteer place inside an area."""
        if token.kind not in ("place", "hashtag"):
            return None
        for place in self.place_resolver.places_of(token.norm)[:1]:
            area = place if place.is_area else self.place_resolver.gazetteer.area_of(place)
            if area is None or area is place:
                return None
            if self.language == "ja":
                name = next((n for n in (area.name[:-1],) if area.name[-1:] in "都府県" and len(n) >= 2), area.name)
                return name
            return area.name
        return None

    def deidentify(self, text: str, *, m: int | None = None, keep_words: Sequence[str] = (),
                   keep_spans: Sequence[tuple[int, int]] = (), extra_scorers: Sequence[LinearScorer] = (),
                   replacement: str = DEFAULT_OPTIONS.replacement, places: str = DEFAULT_OPTIONS.places,
                   deadline: Deadline | None = None) -> DeidentifiedPost:
        """Delete the fewest units (or exactly m) that bring every scorer under its threshold, then check the
        text actually released: re-tokenized and re-scored, and searched again (automatic mode) while it is not
        under every threshold. Units matching ``keep_words`` (case-insensitive), and units that overlap a
        character span of ``keep_spans``, are kept. ``replacement``: "delete" (the paper), "mask" (a deleted
        place reads "[place]") or "generalize" (a deleted place becomes its state or prefecture where that keeps
        every scorer under its threshold, else it is deleted). ``places`` (automatic mode): "all" deletes every
        place name the gazetteer resolves inside the grid, then the fewest other units; "needed" only what the
        thresholds need. Fixed m is the paper's experiment and ignores it. Past ``deadline`` it stops between two
        steps with DeadlineExceeded."""
        if replacement not in REPLACEMENTS:
            raise ValueError(f"replacement must be one of {REPLACEMENTS}, not {replacement!r}")
        if places not in PLACE_POLICIES:
            raise ValueError(f"places must be one of {PLACE_POLICIES}, not {places!r}")
        tokens = self.tokenize(text)
        norms = [t.norm for t in tokens]
        matched = match_keep_words(text, tokens, keep_words)
        keep = sorted({i for units in matched.values() for i in units}
                      | {i for i, t in enumerate(tokens) if any(t.start < end and start < t.end
                                                                for start, end in keep_spans)})
        scorers = self.scorers(extra_scorers)
        thresholds = {s.name: s.threshold for s in scorers}
        deidentifier = Deidentifier(scorers)
        allowed = {i for i, t in enumerate(tokens) if t.deletable and i not in set(keep)}
        named = self._places_in_grid(tokens, allowed) if m is None and places == "all" else []
        decision = _search_without(deidentifier, norms, [t.deletable for t in tokens], keep, named, m, deadline)
        deleted = set(decision.deleted)

        def masks() -> dict[int, str]:
            if replacement != "mask":
                return {}
            return {i: MASK[self.language] for i in deleted if tokens[i].kind != "word"}

        release = build_release(text, tokens, deleted, masks())
        released_tokens, scores = self.scores(release.text, extra_scorers)
        rounds = 1
        while m is None and not _under(scores, thresholds) and rounds < MAX_ROUNDS:
            protected = [k for k, t in enumerate(released_tokens)
                         if not _from_allowed(release, t, tokens, allowed)]
            more = deidentifier.deidentify([t.norm for t in released_tokens],
                                           [t.deletable for t in released_tokens], keep=protected, deadline=deadline)
            new = set()
            for k in more.deleted:
                new |= _original_tokens(release, released_tokens[k], tokens) & allowed
            new -= deleted
            if not new:
                break
            deleted |= new
            rounds += 1
            release = build_release(text, tokens, deleted, masks())
            released_tokens, scores = self.scores(release.text, extra_scorers)
        replacements = masks()
        if replacement == "generalize" and _under(scores, thresholds):
            # One trial per coarser place, not per deleted unit: the units it would replace go in together (a
            # bag of words sees one "Iowa" however often it is written), so a post with hundreds of deleted
            # places costs a few re-scorings, not hundreds (each re-tokenizes the whole post).
            groups: dict[str, list[int]] = {}
            for i in sorted(deleted):
                coarser = self.generalization(tokens[i])
                if coarser is not None:
                    groups.setdefault(coarser, []).append(i)
            for coarser, units in groups.items():
                check(deadline)
                trial = build_release(text, tokens, deleted, {**replacements, **dict.fromkeys(units, coarser)})
                trial_tokens, trial_scores = self.scores(trial.text, extra_scorers)
                if _under(trial_scores, thresholds):
                    replacements.update(dict.fromkeys(units, coarser))
                    release, released_tokens, scores = trial, trial_tokens, trial_scores
        under = _under(scores, thresholds)
        reason = "" if under else self._why_not_under(scores, thresholds, tokens, deleted, keep, m)
        final = replace(decision, deleted=tuple(sorted(deleted)), scores_after=scores, under_threshold=under,
                        optimal=decision.optimal and rounds == 1, minimal=decision.minimal and rounds == 1,
                        reason=reason)
        probabilities = self.cell_probabilities([norms, [t.norm for t in released_tokens]])
        return DeidentifiedPost(text, tokens, final, release.text, probabilities[0], probabilities[1], keep,
                                replacements, rounds, tuple(word for word, units in matched.items() if not units))

    def _places_in_grid(self, tokens: Sequence[Token], allowed: set[int]) -> list[int]:
        """The deletable units that name a place the gazetteer puts inside the grid (not what the corpus taught:
        a reader needs a map, not our training posts, to read those), every place name the gazetteer does not
        know, and every venue or landmark: a reader with a search engine finds those wherever no gazetteer
        does."""
        out = []
        for i in sorted(allowed):
            if tokens[i].kind == "word":  # place mentions, hashtags, @mentions and URLs are units of their own
                continue
            if tokens[i].kind == "venue":
                out.append(i)
                continue
            # A place name the gazetteer cannot place at all (成城, 宮前区菅生: a neighbourhood, a ward of a
            # designated city) is still read as a place; one it places elsewhere (京都) says nothing here.
            if tokens[i].kind == "place" and not self.place_resolver.places_of(tokens[i].norm):
                out.append(i)
                continue
            resolution = self.place_resolver.resolve(tokens[i].norm)
            if resolution is not None and not resolution.learned:
                out.append(i)
        return out

    def _why_not_under(self, scores: Mapping[str, float], thresholds: Mapping[str, float], tokens: Sequence[Token],
                       deleted: set[int], keep: Sequence[int], m: int | None) -> str:
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

    def with_threshold(self, threshold: Threshold) -> LocationModel:
        return LocationModel(name=self.name, grid=self.grid, tokenizer_settings=self.tokenizer_settings,
                             classifier=self.classifier, threshold=threshold, metadata=self.metadata,
                             learned_places=self.learned_places)

    def record_fields(self) -> dict:
        """What a catalogue of models keeps about this one beside its files: its name, language and threshold,
        and a summary (the metadata with the grid, the tokenizer and the threshold explained)."""
        threshold = {"value": self.threshold.value, "kind": self.threshold.kind,
                     "explanation": self.threshold.explanation}
        return {"name": self.name, "language": self.language, "threshold": self.threshold.value,
                "threshold_kind": self.threshold.kind,
                "metadata": {**self.metadata, "grid": self.grid.to_dict(),
                             "tokenizer": self.tokenizer_settings.to_dict(), "threshold": threshold}}

    # -- persistence ------------------------------------------------------------------------------------
    def save(self, directory: Path) -> None:
        directory.mkdir(parents=True, exist_ok=True)
        self.classifier.save(directory / "classifier.npz")
        (directory / "places.json").write_text(json.dumps(self.learned_places, ensure_ascii=False))
        document = {"format": FORMAT_VERSION, "name": self.name, "grid": self.grid.to_dict(),
                    "tokenizer": self.tokenizer_settings.to_dict(), "threshold": asdict(self.threshold),
                    "metadata": self.metadata}
        # Written last and atomically: a directory with model.json is a complete model.
        partial = directory / "model.json.partial"
        partial.write_text(json.dumps(document, ensure_ascii=False, indent=1))
        partial.replace(directory / "model.json")

    @classmethod
    def load(cls, directory: Path) -> LocationModel:
        document = json.loads((directory / "model.json").read_text())
        if document.get("format") != FORMAT_VERSION:
            raise ValueError(f"{directory} holds a model of format {document.get('format')}, expected "
                             f"{FORMAT_VERSION}; train it again.")
        return cls(name=document["name"], grid=Grid.from_dict(document["grid"]),
                   tokenizer_settings=TokenizerSettings.from_dict(document["tokenizer"]),
                   classifier=LocationClassifier.load(directory / "classifier.npz"),
                   threshold=Threshold(**document["threshold"]), metadata=document["metadata"],
                   learned_places=json.loads(places.read_text()) if (places := directory / "places.json").exists()
                   else None)


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


def _under(scores: Mapping[str, float], thresholds: Mapping[str, float]) -> bool:
    return all(scores[name] < thresholds[name] for name in thresholds)


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


def calibrated_threshold(model: LocationModel, hand_deidentified: Sequence[str]) -> Threshold:
    """The paper's calibration: the mean top-cell probability of posts that people de-identified by hand."""
    return hand_calibration(model, hand_deidentified)[0]


def hand_calibration(model: LocationModel, hand_deidentified: Sequence[str], *, resamples: int = 2000,
                     seed: int = 0) -> tuple[Threshold, tuple[float, float]]:
    """The calibrated threshold (``calibrated_threshold``) and a 95% percentile-bootstrap interval of it over the
    posts (resampled ``resamples`` times): how much it owes to which posts people happened to de-identify."""
    if not hand_deidentified:
        raise ValueError("calibration needs at least one hand de-identified post")
    tokenizer = get_tokenizer(model.tokenizer_settings)
    docs = [[t.norm for t in tokenizer.tokenize(text)] for text in hand_deidentified]
    top = model.classifier.predict_proba(docs).max(axis=1)
    means = np.random.default_rng(seed).choice(top, size=(resamples, len(top))).mean(axis=1)
    interval = (float(np.quantile(means, 0.025)), float(np.quantile(means, 0.975)))
    return Threshold.choose(0.0, calibrated=float(top.mean()), calibrated_posts=len(docs)), interval


def train_location_model(posts: Sequence[Post], *, name: str, grid: Grid, tokenizer_settings: TokenizerSettings,
                         C: float = 1.0, min_df: int = 2, max_iter: int = 500, test_size: float = 0.4,
                         seed: int = 0, progress: Progress | None = None) -> LocationModel:
    """Tokenize, split (60/40, user-disjoint when users are known), fit, evaluate on the held-out part.

    Progress is reported on one 0..100 scale: tokenizing to 15, training to 90, evaluating to 100.
    """
    if not posts:
        raise ValueError("no posts to train on")
    report = progress or (lambda done, total, message: None)
    started = time.perf_counter()
    cells = np.array([grid.cell_of(p.lat, p.lon) if p.cell is None else p.cell for p in posts], dtype=object)
    if any(cell is None for cell in cells):
        raise ValueError("every post must lie inside the grid (read the corpus with this grid)")
    cells = cells.astype(np.int64)
    tokenizer = get_tokenizer(tokenizer_settings)
    docs: list[list[str]] = []
    place_units: list[set[str]] = []
    for i, tokens in enumerate(tokenizer.tokenize_many(p.text for p in posts)):
        docs.append([t.norm for t in tokens])
        place_units.append({t.norm for t in tokens if t.kind != "word"})
        if i % 2000 == 0:
            report(int(15 * i / len(posts)), 100, f"tokenizing: {i:,} of {len(posts):,} posts")
    train, test, user_disjoint = split_train_test(len(posts), users=[p.user for p in posts], test_size=test_size,
                                                  seed=seed)
    if len(np.unique(cells[train])) < 2:
        raise ValueError("the training posts fall in fewer than two cells; a classifier needs at least two")
    tokenized = time.perf_counter()

    def fit_progress(iteration: int, max_iterations: int, message: str) -> None:
        report(15 + int(75 * iteration / max_iterations), 100, message)

    classifier = LocationClassifier(C=C, min_df=min_df, max_iter=max_iter).fit(
        [docs[i] for i in train], cells[train], progress=fit_progress)
    fitted = time.perf_counter()
    report(90, 100, "evaluating on held-out posts")
    values, counts = np.unique(cells[train], return_counts=True)
    majority_cell, majority_share = int(values[counts.argmax()]), float(counts.max() / len(train))
    learned = learned_places([place_units[i] for i in train], cells[train])
    scores = None
    if len(test):
        probabilities = classifier.predict_proba([docs[i] for i in test])
        scores = evaluate_predictions(probabilities, classifier.classes_, cells[test],
                                      np.array([posts[i].lat for i in test]), np.array([posts[i].lon for i in test]),
                                      grid, majority_cell)
    metadata = {
        "created_at": datetime.now(UTC).isoformat(timespec="seconds"),
        "corpus_fingerprint": corpus_fingerprint(posts),
        "posts": len(posts),
        "train_posts": len(train),
        "test_posts": len(test),
        "split": {"test_size": test_size, "seed": seed, "user_disjoint": user_disjoint},
        "classes": len(classifier.classes_),
        "vocabulary_size": len(classifier.vocabulary_),
        "training": {"C": C, "min_df": min_df, "max_iter": max_iter, "iterations": classifier.n_iter_},
        "majority_cell": majority_cell,
        "majority_share": majority_share,
        "cell_counts": {str(int(v)): int(c) for v, c in zip(values, counts, strict=True)},
        "learned_places": len(learned),
        "scores": scores,
        "seconds": {"tokenize": round(tokenized - started, 2), "fit": round(fitted - tokenized, 2),
                    "total": round(time.perf_counter() - started, 2)},
    }
    report(100, 100, "trained")
    return LocationModel(name=name, grid=grid, tokenizer_settings=tokenizer_settings, classifier=classifier,
                         threshold=Threshold.choose(majority_share), metadata=metadata, learned_places=learned)


def learned_places(units: Sequence[set[str]], cells: np.ndarray) -> dict[str, dict[int, int]]:
    """What the corpus teaches about its place units (and hashtags, mentions, URLs): the cells of the posts
    that used each one seen in at least LEARNED_PLACE_MIN_POSTS posts."""
    by_unit: dict[str, Counter] = {}
    for post_units, cell in zip(units, cells, strict=True):
        for unit in post_units:
            by_unit.setdefault(unit, Counter())[int(cell)] += 1
    return {unit: dict(counter) for unit, counter in by_unit.items()
            if sum(counter.values()) >= LEARNED_PLACE_MIN_POSTS}


