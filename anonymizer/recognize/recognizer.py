"""The TermRecognizer: spaCy NER (OntoNotes types), the rules and the custom entities over one text or a stream.

Overlaps: rule and custom matches are precise and win over every NER span they overlap; among them the
longer span wins (ties: custom entities in their order, then MAIL, URL, POSTCODE, PHONE; then the earlier).
NER spans come from spaCy's ``doc.ents`` (non-overlapping already) plus, with ``lexicons=True`` (the default),
the spans of the lexicon recognizers (`lexicons`: gazetteer places, Census names, organisation suffixes, date
and time shapes) that overlap no spaCy entity of any type: spaCy's spans carry context and win, the lexicons
fill what it missed. Before that, with ``drop_ordinary_words=True`` (the default), spaCy spans that are
ordinary English words and no name in their context ("Heh", "Ill" for I'll, "creepy", a poem line as DATE) are
dropped (`precision`), so the lexicons may still fill them ("Today" tagged ORG comes back as DATE). The
lexicons' strong spans (handles, street grids, dated events: `handles`, `cues`, `events`) replace the spaCy
entities inside them ("70th" ORDINAL in "the 70th anniversary of ..."). Then the
types not asked for are dropped. Output: sorted by start, non-overlapping.

Speed: only the components NER needs are loaded. In ``en_core_web_sm`` the NER has its own tok2vec, so
tok2vec, tagger, parser, attribute_ruler, lemmatizer and senter are all left out: on the 1,000 blog posts
this is 2.2x faster (25 -> 55 posts/s on one core). The only loss is that the parser's sentence boundaries
no longer stop an entity: 27 of the 1,000 posts got a different entity, e.g. "Jordan Hill Every" instead
of "Jordan Hill" (10,662 vs 10,655 entities). Texts longer than ``NER_MAX_CHARS`` are run through NER in
pieces cut at whitespace (rules always see the whole text), which keeps spaCy's memory bounded: with 100,000
characters one NER process of the 100,000-post blog benchmark grew to 1.2 GB; 20,000 touches 70 of those posts.
"""

from __future__ import annotations

import hashlib
import json
import logging
import multiprocessing
import threading
import unicodedata
from bisect import bisect_left, bisect_right
from collections import deque
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from functools import lru_cache
from importlib import metadata
from pathlib import Path
from typing import Any

from anonymizer.recognize.entities import ALWAYS_TYPES, BUILTIN_TYPES, DEFAULT_MODEL, ONTONOTES_TYPES
from anonymizer.recognize.patterns import PATTERN_ENGINE

from .custom import compile_custom
from .extend import EXTEND_VERSION, grow_person_spans
from .lexicons import Lexicons
from .lexicons import data_version as lexicons_version
from .people import prefer_people
from .precision import data_version as precision_version
from .precision import drop_ordinary_spans
from .rules import RULES, RULES_VERSION

log = logging.getLogger(__name__)

#: Pipeline components NER does not need; tok2vec-like components nobody listens to are removed as well.
UNNEEDED_COMPONENTS = ("tagger", "morphologizer", "parser", "attribute_ruler", "lemmatizer",
                       "trainable_lemmatizer", "senter")
#: Longest piece of text given to spaCy at once.
NER_MAX_CHARS = 20_000
# The shared type lists are ordered tuples; the recognizer does set algebra on them.
_NER_SET = frozenset(ONTONOTES_TYPES)
_BUILTIN_SET = frozenset(BUILTIN_TYPES)


@dataclass(frozen=True, slots=True)
class Term:
    """A sensitive term: ``original[start:end] == text``, offsets are ``str`` indices."""

    start: int
    end: int
    label: str
    text: str

    def key(self) -> str:
        """Normalised form for comparing terms across posts: NFKC, casefold, whitespace runs -> one space."""
        return _key(self.text)


def term_key(text: str) -> str:
    """``Term.key`` of a term written ``text``."""
    return _key(text)


@lru_cache(maxsize=1 << 17)  # a dataset's terms repeat: a run asks for about a million keys of 70,000 strings
def _key(text: str) -> str:
    folded = unicodedata.normalize("NFKC", unicodedata.normalize("NFKC", text).casefold())
    return " ".join(folded.split())


# ------------------------------------------------------------------------------------------ overlaps

def _resolve(precise: list[tuple[int, int, int, str]], ner: list[tuple[int, int, str]]) -> list[tuple[int, int, str]]:
    """precise: (start, end, priority, label). Longest precise spans first, then NER spans that touch none."""
    chosen: list[tuple[int, int, str]] = []
    taken: list[tuple[int, int]] = []

    def free(start: int, end: int) -> bool:
        return all(end <= s or start >= e for s, e in taken)

    for start, end, _, label in sorted(precise, key=lambda p: (p[0] - p[1], p[2], p[0])):
        if free(start, end):
            chosen.append((start, end, label))
            taken.append((start, end))
    for start, end, label in ner:
        if free(start, end):
            chosen.append((start, end, label))
    chosen.sort()
    return chosen


def _fill(ner: list[tuple[int, int, str]], extra: list[tuple[int, int, str]]) -> list[tuple[int, int, str]]:
    """NER spans plus the `extra` spans that overlap none of them (both sorted and non-overlapping), sorted."""
    if not extra:
        return ner
    if not ner:
        return extra
    starts = [s for s, _, _ in ner]
    ends = [e for _, e, _ in ner]
    kept = []
    for span in extra:
        i = bisect_right(starts, span[1] - 1) - 1    # the last NER span starting before this one ends
        if i < 0 or ends[i] <= span[0]:
            kept.append(span)
    return sorted(ner + kept) if kept else ner


def _override(ner: list[tuple[int, int, str]], strong: list[tuple[int, int, str]],
              wanted: frozenset[str]) -> list[tuple[int, int, str]]:
    """NER spans with the `strong` spans (both sorted, non-overlapping) put in: a strong span replaces the NER
    spans inside it and those of unwanted types it overlaps; a wanted NER span reaching outside it wins."""
    if not strong:
        return ner
    # NER spans are sorted and non-overlapping (as ``_fill`` assumes), so their ends are sorted too: the spans a
    # strong span crosses are one slice, found by bisection (a scan per strong span was quadratic in long texts)
    starts, ends = [n[0] for n in ner], [n[1] for n in ner]
    kept, dropped = [], set()
    for s_start, s_end, label in strong:
        crossing = ner[bisect_right(ends, s_start):bisect_left(starts, s_end)]
        if any(n[2] in wanted and (n[0] < s_start or n[1] > s_end) for n in crossing):
            continue
        kept.append((s_start, s_end, label))
        dropped.update(crossing)
    return sorted([n for n in ner if n not in dropped] + kept)


def _segments(text: str, limit: int) -> list[tuple[int, str]]:
    """(offset, piece) pieces of at most ``limit`` characters, cut at a newline or a space where possible."""
    if len(text) <= limit:
        return [(0, text)] if text.strip() else []
    pieces, start = [], 0
    while start < len(text):
        end = min(start + limit, len(text))
        if end < len(text):
            window_start = max(start + 1, end - limit // 10)
            cut = text.rfind("\n", window_start, end)
            if cut < 0:
                cut = max(text.rfind(" ", window_start, end), text.rfind("\t", window_start, end))
            if cut > start:
                end = cut
        piece = text[start:end]
        if piece.strip():
            pieces.append((start, piece))
        start = end
    return pieces


def check_text(text: Any) -> str:
    if not isinstance(text, str):
        raise TypeError(f"texts must be str, got {type(text).__name__}")
    return text


# ------------------------------------------------------------------------------------------ recognizer

def _model_version(model: str) -> str:
    path = Path(model)
    if path.is_dir() and (path / "meta.json").is_file():
        meta = json.loads((path / "meta.json").read_text(encoding="utf-8"))
        return f"{meta.get('name', '')}-{meta.get('version', '')}"
    try:
        return metadata.version(model)
    except metadata.PackageNotFoundError:
        return "unknown"


class TermRecognizer:
    """spaCy NER + rules + custom entities. The spaCy model is loaded on first use, so a fully cached run
    (see :func:`recognize_with_cache`) never loads it."""

    def __init__(self, *, model: str = DEFAULT_MODEL, entity_types: Iterable[str] | None = None,
                 custom_entities: Sequence[Any] = (), n_process: int = 1, batch_size: int = 64,
                 lexicons: bool = True, drop_ordinary_words: bool = True) -> None:
        if n_process == 0 or n_process < -1:
            raise ValueError("n_process must be >= 1 (or -1 for all cores)")
        if batch_size < 1:
            raise ValueError("batch_size must be >= 1")
        self.model = model
        self.n_process = n_process
        self.batch_size = batch_size
        self.custom = tuple(compile_custom(entity) for entity in custom_entities)
        custom_labels = {c.label for c in self.custom}
        if entity_types is None:
            self.entity_types: frozenset[str] = _BUILTIN_SET
            self._explicit_types: list[str] | None = None
        else:
            if isinstance(entity_types, str):
                entity_types = [entity_types]
            wanted = {t.strip().upper() if t.strip().upper() in _BUILTIN_SET else t.strip()
                      for t in entity_types}
            unknown = wanted - _BUILTIN_SET - custom_labels
            if unknown:
                raise ValueError(f"unknown entity types {sorted(unknown)}; known: "
                                 f"{sorted(_BUILTIN_SET)} and custom {sorted(custom_labels)}")
            self.entity_types = frozenset(wanted)
            self._explicit_types = sorted(wanted)
        self.custom_labels = frozenset(custom_labels)
        self._ner_types = self.entity_types & _NER_SET
        # ALWAYS_TYPES (CODE) are direct identifiers: recognized whatever the configuration asks for
        self._rules = tuple(rule for rule in RULES if rule.label in self.entity_types or rule.label in ALWAYS_TYPES)
        self.lexicons = bool(lexicons)
        self._lexicons = Lexicons(self._ner_types) if lexicons else None
        # spaCy spans that are ordinary English words ("Heh", "Ill", "creepy"): see `precision`
        self.drop_ordinary_words = bool(drop_ordinary_words) and bool(self._ner_types)
        self._nlp_obj: Any = None
        self._lock = threading.Lock()
        self.fingerprint = self._make_fingerprint()

    def _make_fingerprint(self) -> str:
        try:
            spacy_version = metadata.version("spacy")
        except metadata.PackageNotFoundError:     # pragma: no cover
            spacy_version = "unknown"
        payload = {
            "model": self.model,
            "model_version": _model_version(self.model),
            "spacy": spacy_version,
            "entity_types": self._explicit_types,
            "custom": [{"label": c.label, "patterns": sorted(c.patterns), "terms": sorted(c.terms)}
                       for c in self.custom],
            "rules_version": RULES_VERSION,
            "rule_patterns": [p.pattern for rule in RULES for p in rule.patterns],
            "ner_max_chars": NER_MAX_CHARS,
            "ner_components": "ner-only",
        }
        if self._lexicons:   # only when they can add a term: rules-only recognizers keep their fingerprint
            payload["lexicons"] = lexicons_version()
            payload["person_growth"] = EXTEND_VERSION
        if self.drop_ordinary_words:
            payload["precision"] = precision_version()
        if any(c.patterns for c in self.custom):  # the engine that matched them (results of another differ)
            payload["custom_pattern_engine"] = PATTERN_ENGINE
        blob = json.dumps(payload, sort_keys=True, ensure_ascii=False).encode("utf-8")
        return hashlib.sha256(blob).hexdigest()

    # -- spaCy

    @property
    def nlp(self) -> Any:
        """The spaCy pipeline with only what NER needs (loaded on first use)."""
        if self._nlp_obj is None:
            with self._lock:
                if self._nlp_obj is None:
                    self._nlp_obj = self._load()
        return self._nlp_obj

    def _load(self) -> Any:
        import spacy

        nlp = spacy.load(self.model, exclude=list(UNNEEDED_COMPONENTS))
        if "ner" not in nlp.pipe_names:
            raise ValueError(f"spaCy model {self.model!r} has no 'ner' component")
        for name, component in list(nlp.pipeline):
            listeners = getattr(component, "listening_components", None)
            if listeners is not None and name != "ner" and not set(listeners) & set(nlp.pipe_names):
                nlp.remove_pipe(name)        # e.g. the tok2vec of tagger/parser: the sm NER has its own
        nlp.max_length = max(nlp.max_length, NER_MAX_CHARS + 1)
        return nlp

    @property
    def uses_ner(self) -> bool:
        return bool(self._ner_types)

    def _n_process(self) -> int:
        if self.n_process != 1 and multiprocessing.current_process().daemon:
            log.warning("n_process=%s inside a daemonic process (e.g. a Celery worker): using 1", self.n_process)
            return 1
        return self.n_process

    # -- recognition

    def recognize(self, text: str) -> list[Term]:
        """The sensitive terms of one text, sorted by start, non-overlapping."""
        return next(self.recognize_many([text]))

    def recognize_many(self, texts: Iterable[str], *,
                       on_characters: Callable[[int], None] | None = None) -> Iterator[list[Term]]:
        """Terms for each text, in input order, through ``nlp.pipe`` (n_process, batch_size); Docs are
        dropped as soon as their entities are read.

        ``on_characters(n)``, if given, is called with the cumulative number of characters of the texts
        processed so far: after each text, and for a text longer than ``NER_MAX_CHARS`` after each of its NER
        pieces too. spaCy hands Docs back a batch (``batch_size`` pieces) at a time, which would report a 5 MB
        text only every 1.3 MB; so with a callback such a text is run through NER on its own, one piece per
        batch, in this process (the same entities: spaCy's results do not depend on the batch)."""
        done = 0
        last_reported = -1

        def report(n: int) -> None:
            nonlocal last_reported
            if on_characters is not None and n > last_reported:
                last_reported = n
                on_characters(n)

        if not self.uses_ner:
            for text in texts:
                terms = self._finish(check_text(text), [])
                done += len(text)
                report(done)
                yield terms
            return
        # (text, its NER pieces as (offset, length), whether they run on their own after a placeholder Doc)
        pending: deque[tuple[str, list[tuple[int, int]], bool]] = deque()

        def pieces() -> Iterator[str]:
            for text in texts:
                segments = _segments(check_text(text), NER_MAX_CHARS)
                alone = on_characters is not None and len(segments) > 1
                pending.append((text, [(offset, len(piece)) for offset, piece in segments], alone))
                if alone:
                    yield ""                    # keeps the stream's read-ahead bounded by pieces
                    continue
                for _, piece in segments:
                    yield piece

        docs = iter(self.nlp.pipe(pieces(), n_process=self._n_process(), batch_size=self.batch_size))
        buffered: deque[Any] = deque()
        while True:
            if not pending:
                doc = next(docs, None)          # pulls input, which fills `pending`
                if doc is not None:
                    buffered.append(doc)
                elif not pending:
                    return
            text, segments, alone = pending.popleft()
            spans: list[tuple[int, int, str]] = []
            if alone:
                _ = buffered.popleft() if buffered else next(docs)    # the placeholder Doc
                own = self.nlp.pipe((text[offset:offset + length] for offset, length in segments), batch_size=1)
                for (offset, length), doc in zip(segments, own, strict=True):
                    spans.extend((e.start_char + offset, e.end_char + offset, e.label_) for e in doc.ents)
                    del doc
                    report(done + offset + length)
            else:
                for offset, _ in segments:
                    doc = buffered.popleft() if buffered else next(docs)
                    spans.extend((e.start_char + offset, e.end_char + offset, e.label_) for e in doc.ents)
                    del doc
            terms = self._finish(text, spans)
            done += len(text)
            report(done)
            yield terms

    def _finish(self, text: str, ner_spans: list[tuple[int, int, str]]) -> list[Term]:
        precise: list[tuple[int, int, int, str]] = []
        for priority, custom in enumerate(self.custom):
            precise.extend((s, e, priority, custom.label) for s, e in custom.spans(text))
        offset = len(self.custom)
        for priority, rule in enumerate(self._rules, start=offset):
            precise.extend((s, e, priority, rule.label) for s, e in rule.spans(text))
        ner = []
        for start, end, label in ner_spans:
            if label not in self._ner_types and not self._lexicons:
                continue
            while start < end and text[start].isspace():
                start += 1
            while end > start and text[end - 1].isspace():
                end -= 1
            if end > start:
                ner.append((start, end, label))
        if self.drop_ordinary_words and ner:
            ner = drop_ordinary_spans(text, ner)
        if self._lexicons:
            # every spaCy entity, of a wanted type or not, keeps the lexicons out of its span
            extra, strong = self._lexicons.spans_and_strong(text)
            ner = prefer_people(ner, strong, text)       # "lin" -> "lin yi qin", ORG "Cat and Kurt" -> two PERSON
            ner = _override(ner, self._lexicons.strong_spans(text), self._ner_types)   # "the 70th anniversary of"
            ner = [span for span in _fill(ner, extra) if span[2] in self._ner_types]
        spans = _resolve(precise, ner)
        if self._lexicons and "PERSON" in self._ner_types:     # a name is masked whole (extend.py)
            spans = grow_person_spans(text, spans, _NER_SET)
        return [Term(s, e, label, text[s:e]) for s, e, label in spans]
