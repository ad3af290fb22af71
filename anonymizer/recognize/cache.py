"""Recognition results kept across runs: TermCache (an SQLite file) and recognize_with_cache, which streams texts
through the cache and a TermRecognizer so that re-running an anonymization with another k or lambda skips NLP."""

from __future__ import annotations

import hashlib
import json
import sqlite3
from collections import deque
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from itertools import islice
from pathlib import Path

from .recognizer import Term, TermRecognizer, check_text


def text_digest(text: str) -> bytes:
    """The key of a text in a term cache: the sha256 of its UTF-8 bytes."""
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).digest()


def encode_terms(terms: Sequence[Term]) -> str:
    """A text's terms as stored by a cache: ``[[start, end, label], ...]`` (their text is the looked-up text's)."""
    return json.dumps([[t.start, t.end, t.label] for t in terms], ensure_ascii=False, separators=(",", ":"))


def decode_terms(text: str, stored: str) -> list[Term] | None:
    """The terms ``encode_terms`` stored for ``text``; None when the stored value does not fit the text."""
    try:
        triples = json.loads(stored)
    except ValueError:
        return None
    return _terms(text, triples)


def _terms(text: str, triples: object) -> list[Term] | None:
    try:
        # Every worker of a first run's string-level recoding decodes every text's terms: ints and strs as JSON
        # gives them are taken as they are (the common case), anything else converted as before.
        bounded = [(s, e, label) if type(s) is int and type(e) is int and type(label) is str
                   else (int(s), int(e), str(label)) for s, e, label in triples]  # type: ignore[attr-defined]
    except (ValueError, TypeError):
        return None
    size = len(text)
    if any(not 0 <= s < e <= size for s, e, _ in bounded):
        return None
    return [Term(s, e, label, text[s:e]) for s, e, label in bounded]


def _added_terms(text: str, added: object) -> list[Term] | None:
    """A change's added terms, ``[start, end, label, text]`` (``change_of``) or, stored before they carried
    their text, ``[start, end, label]``; None where they do not fit ``text``."""
    try:
        terms = _terms(text, [entry[:3] for entry in added])  # type: ignore[attr-defined]
    except TypeError:
        return None
    # The text an added term carries must be the text's there.
    if terms is None or any(len(entry) != 3 and (len(entry) != 4 or entry[3] != term.text)
                            for entry, term in zip(added, terms, strict=True)):  # type: ignore[call-overload]
        return None
    return terms


def change_of(after: Sequence[Term], before: Sequence[Term]) -> list | None:
    """One text's terms after string-level recoding as their change to ``before``: ``[removed, added]`` (the
    numbers of the terms of ``before`` that went, ``[start, end, label, text]`` of those that came), None if
    none. The added terms' text is the text's there, kept so that the changes can be applied to the terms
    without reading the texts again (``kanon.pipeline``); changes stored without it are read too."""
    after, before = list(after), list(before)
    if after == before:
        return None
    kept = set(after)
    had = set(before)
    return [[n for n, term in enumerate(before) if term not in kept],
            [[t.start, t.end, t.label, t.text] for t in after if t not in had]]


def encode_changes(results: Iterable[Sequence[Term]], base: Iterable[Sequence[Term]]) -> str:
    """A dataset's terms after string-level recoding (``results``, per text) as their changes to ``base`` (the
    terms before): most texts have none, so a dataset's entry stays small."""
    changes = {}
    for i, (after, before) in enumerate(zip(results, base, strict=True)):
        change = change_of(after, before)
        if change is not None:
            changes[str(i)] = change
    return dump_changes(changes)


def dump_changes(changes: dict[str, list]) -> str:
    """The stored form of ``{text number (str): change_of(...)}``."""
    return json.dumps(changes, ensure_ascii=False, separators=(",", ":"))


def load_changes(stored: str) -> dict[int, list]:
    """What ``dump_changes`` stored, by text number; ValueError when it is not such a mapping."""
    try:
        changes = json.loads(stored)
    except ValueError:
        raise ValueError("the stored changes are not JSON") from None
    if not isinstance(changes, dict) or not all(
            isinstance(k, str) and k.isdigit() and isinstance(v, list) and len(v) == 2 for k, v in changes.items()):
        raise ValueError("the stored changes are not a mapping of text numbers to changes")
    return {int(index): change for index, change in changes.items()}


def apply_change(change: list, text: str, terms: Sequence[Term], index: int) -> list[Term]:
    """Text number ``index``'s terms after its stored ``change`` to ``terms``; ValueError where it does not fit."""
    removed, triples = change
    added = _added_terms(text, triples)
    if added is None or not isinstance(removed, list) or not all(
            isinstance(r, int) and 0 <= r < len(terms) for r in removed):
        raise ValueError(f"the stored changes of text {index} do not fit it")
    gone = set(removed)
    return sorted([t for n, t in enumerate(terms) if n not in gone] + added, key=lambda t: t.start)


def apply_changes(stored: str, texts: Iterable[str], base: Iterable[Sequence[Term]]) -> Iterator[list[Term]]:
    """The per-text terms ``encode_changes`` stored, applied to ``base``, text by text (both may be streams).
    Raises ValueError, as it comes to it, where the stored changes do not fit the texts."""
    pending = load_changes(stored)
    for i, (text, terms) in enumerate(zip(texts, base, strict=True)):
        change = pending.pop(i, None)
        yield list(terms) if change is None else apply_change(change, text, terms, i)
    if pending:
        raise ValueError(f"the stored changes name text {min(pending)}, past the dataset's last")


class TermCache:
    """Results by (fingerprint, sha256(text)) in an SQLite file, so a re-run with other k / lambda skips NLP.

    Terms are stored as ``[start, end, label]`` triples; their text is taken from the text looked up, so a
    cached result always satisfies ``text[start:end] == term.text``. WAL mode: several processes may read
    and write the same file. One connection per object (use it from the thread that created it).
    """

    _QUERY_SLICE = 500

    def __init__(self, path: Path) -> None:
        self.path = Path(path)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self._db = sqlite3.connect(self.path, timeout=60, isolation_level=None)
        try:
            self._db.execute("PRAGMA journal_mode=WAL")
        except sqlite3.DatabaseError:        # pragma: no cover - e.g. file systems without shared memory
            pass
        self._db.execute("PRAGMA synchronous=NORMAL")
        self._db.execute(
            "CREATE TABLE IF NOT EXISTS terms_v1 (fingerprint TEXT NOT NULL, text_sha256 BLOB NOT NULL, "
            "terms TEXT NOT NULL, PRIMARY KEY (fingerprint, text_sha256)) WITHOUT ROWID")
        # Whole datasets' terms after string-level recoding, by a digest of everything that decides them.
        self._db.execute("DROP TABLE IF EXISTS spread_v1")  # whole term lists; v2 keeps only the changes
        self._db.execute("CREATE TABLE IF NOT EXISTS spread_v2 (dataset_sha256 BLOB PRIMARY KEY, terms TEXT NOT NULL, "
                         "used REAL NOT NULL)")

    def get_many(self, fingerprint: str, texts: Sequence[str]) -> list[list[Term] | None]:
        digests = [text_digest(check_text(t)) for t in texts]
        found: dict[bytes, str] = {}
        unique = list(dict.fromkeys(digests))
        for i in range(0, len(unique), self._QUERY_SLICE):
            part = unique[i:i + self._QUERY_SLICE]
            rows = self._db.execute(
                f"SELECT text_sha256, terms FROM terms_v1 WHERE fingerprint = ? "
                f"AND text_sha256 IN ({','.join('?' * len(part))})", [fingerprint, *part])
            found.update(rows)
        results: list[list[Term] | None] = []
        for text, digest in zip(texts, digests, strict=True):
            stored = found.get(digest)
            results.append(None if stored is None else decode_terms(text, stored))
        return results

    def put_many(self, fingerprint: str, texts: Sequence[str], results: Sequence[list[Term]]) -> None:
        if len(texts) != len(results):
            raise ValueError("texts and results differ in length")
        rows = [(fingerprint, text_digest(check_text(text)), encode_terms(terms))
                for text, terms in zip(texts, results, strict=True)]
        if not rows:
            return
        self._db.execute("BEGIN IMMEDIATE")
        try:
            self._db.executemany("INSERT OR REPLACE INTO terms_v1 VALUES (?, ?, ?)", rows)
        except BaseException:
            self._db.execute("ROLLBACK")
            raise
        self._db.execute("COMMIT")

    #: Datasets whose spread terms are kept (the least recently used go first); one is a few MB.
    SPREAD_ENTRIES = 16

    def get_changes(self, digest: bytes) -> str | None:
        """What ``put_changes`` stored under ``digest`` (for ``apply_changes``), or None; marks it used."""
        row = self._db.execute("SELECT terms FROM spread_v2 WHERE dataset_sha256 = ?", [digest]).fetchone()
        if row is not None:
            self._db.execute("UPDATE spread_v2 SET used = julianday('now') WHERE dataset_sha256 = ?", [digest])
        return None if row is None else row[0]

    def put_changes(self, digest: bytes, stored: str) -> None:
        """Keep a dataset's terms after string-level recoding as their changes to the terms before, as
        ``encode_changes`` / ``dump_changes`` wrote them: most texts have none."""
        self._db.execute("BEGIN IMMEDIATE")
        try:
            self._db.execute("INSERT OR REPLACE INTO spread_v2 VALUES (?, ?, julianday('now'))", [digest, stored])
            self._db.execute("DELETE FROM spread_v2 WHERE dataset_sha256 NOT IN (SELECT dataset_sha256 FROM spread_v2 "
                             "ORDER BY used DESC LIMIT ?)", [self.SPREAD_ENTRIES])
        except BaseException:
            self._db.execute("ROLLBACK")
            raise
        self._db.execute("COMMIT")

    def __len__(self) -> int:
        return self._db.execute("SELECT count(*) FROM terms_v1").fetchone()[0]

    def close(self) -> None:
        self._db.close()

    def __enter__(self) -> TermCache:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


@dataclass
class _Chunk:
    """Consecutive input texts with their cached results and the distinct texts still to be recognized."""

    texts: list[str]
    results: list[list[Term] | None]
    misses: list[str]
    fed: bool = False
    repeats: int = 0    # characters of the misses' repetitions within the chunk


class _Lookup:
    """The input read ``chunk`` texts at a time and looked up in the cache, the chunks looked up and not yet
    yielded (in input order), and the characters done so far, reported to ``on_characters``."""

    def __init__(self, texts: Iterable[str], fingerprint: str, cache: TermCache | None, chunk: int,
                 on_characters: Callable[[int], None] | None) -> None:
        self.source = iter(texts)
        self.fingerprint = fingerprint
        self.cache = cache
        self.chunk = chunk
        self.on_characters = on_characters
        self.waiting: deque[_Chunk] = deque()
        self.counted = 0        # characters of cached / repeated texts
        self.fresh_chars = 0    # characters of texts through NER
        self.last_reported = -1

    def report(self) -> None:
        if self.on_characters is not None and self.counted + self.fresh_chars > self.last_reported:
            self.last_reported = self.counted + self.fresh_chars
            self.on_characters(self.last_reported)

    def on_fresh(self, n: int) -> None:
        self.fresh_chars = n
        self.report()

    def count_repeats(self, item: _Chunk) -> None:
        """A chunk's texts repeated within it are done once the chunk is."""
        if item.repeats:
            self.counted += item.repeats
            self.report()

    def look_up_next(self) -> _Chunk | None:
        batch = [check_text(t) for t in islice(self.source, self.chunk)]
        if not batch:
            return None
        results = (self.cache.get_many(self.fingerprint, batch) if self.cache is not None
                   else [None] * len(batch))
        item = _Chunk(batch, results, list(dict.fromkeys(t for t, r in zip(batch, results, strict=True)
                                                         if r is None)))
        self.waiting.append(item)
        if self.on_characters is not None:
            cached = sum(len(t) for t, r in zip(batch, results, strict=True) if r is not None)
            item.repeats = sum(map(len, batch)) - cached - sum(map(len, item.misses))
            self.counted += cached
            self.report()
        return item

    def to_recognize(self) -> Iterator[str]:
        """The misses in input order, reading further chunks as spaCy asks for more text."""
        while True:
            for item in list(self.waiting):
                if not item.fed:
                    item.fed = True
                    yield from item.misses
            if self.look_up_next() is None:
                if all(item.fed for item in self.waiting):
                    return


def recognize_with_cache(texts: Iterable[str], recognizer: TermRecognizer, cache: TermCache | None, *,
                         progress: Callable[[int, str], None] | None = None, chunk: int = 500,
                         on_characters: Callable[[int], None] | None = None,
                         counts: dict[str, int] | None = None) -> Iterator[list[Term]]:
    """Terms of every text, in input order: cached results where there are any, NER for the rest.

    Texts are looked up ``chunk`` at a time; the misses of all chunks (a text repeated within a chunk once)
    flow through **one** ``recognizer.recognize_many`` stream, so spaCy's processes start once per call and
    not once per chunk (that cost 1.2 s per chunk with 2 processes). Fresh results are stored as each chunk
    completes, and ``progress(n_done, message)`` is called then. Only the chunks between the one being
    yielded and spaCy's read-ahead are in memory. A fully cached run never loads the spaCy model.

    ``on_characters(n)`` is called with the cumulative number of characters of the texts done: those of
    cached texts count at once when their chunk is looked up (and a text repeated in a chunk when the chunk
    completes), the others as NER goes (see ``TermRecognizer.recognize_many``). It ends at the total length.
    """
    if chunk < 1:
        raise ValueError("chunk must be >= 1")
    fingerprint = recognizer.fingerprint
    lookup = _Lookup(texts, fingerprint, cache, chunk, on_characters)
    waiting = lookup.waiting
    stream: Iterator[list[Term]] | None = None
    done = from_cache = 0
    try:
        while waiting or lookup.look_up_next() is not None:
            item = waiting[0]
            from_cache += sum(r is not None for r in item.results)
            if counts is not None:
                counts["cached"] = from_cache
                counts["recognized"] = counts.get("recognized", 0) + len(item.misses)
            if item.misses:
                if stream is None:
                    stream = (recognizer.recognize_many(lookup.to_recognize(), on_characters=lookup.on_fresh)
                              if on_characters is not None else recognizer.recognize_many(lookup.to_recognize()))
                fresh = {text: next(stream) for text in item.misses}
                if cache is not None:
                    cache.put_many(fingerprint, item.misses, [fresh[t] for t in item.misses])
                item.results = [r if r is not None else fresh[t] for t, r in zip(item.texts, item.results,
                                                                                  strict=True)]
            waiting.popleft()
            lookup.count_repeats(item)
            done += len(item.texts)
            if progress is not None:
                progress(done, f"sensitive terms: {done} texts ({from_cache} from cache)")
            yield from item.results  # type: ignore[misc]
    finally:
        if stream is not None:
            stream.close()  # stops spaCy's worker processes when the caller stops early (a cancelled job)
