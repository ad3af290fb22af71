"""The whole rx-anon run on a CSV file: read, recognize sensitive terms, build the person-centric view,
partition, recode, check k-anonymity, write the anonymized CSV, and measure the information loss.

The file is read three times, streamed (relational values, then the texts in chunks for recognition, then
every row for writing): only parsed relational values and recognized terms stay in memory, never the texts or
spaCy documents.
"""

from __future__ import annotations

import contextlib
import gc
import hashlib
import inspect
import json
import time
from array import array
from collections import Counter, defaultdict
from collections.abc import Callable, Iterable, Iterator, Sequence
from functools import lru_cache
from itertools import chain
from pathlib import Path
from typing import BinaryIO

import numpy as np

from anonymizer.kanon.hierarchies import TermHierarchies
from anonymizer.kanon.metrics import information_loss, released_classes
from anonymizer.kanon.occurrences import SPREAD_VERSION, UNSURE, OccurrenceSpreader, is_common_word
from anonymizer.kanon.partition import TooFewPersons, partition
from anonymizer.kanon.recode import TextRecoder, recode_classes
from anonymizer.kanon.review import ReviewList
from anonymizer.kanon.table import Table, iter_rows, read_table
from anonymizer.kanon.terms import RowTerms
from anonymizer.kanon.verify import SHOWN_CACHE, surviving_strings
from anonymizer.kanon.view import build_view, redundant_match
from anonymizer.recognize.cache import apply_change, change_of, dump_changes, load_changes
from anonymizer.recognize.entities import ALWAYS_TYPES
from anonymizer.recognize.measured import measured_recognizer
from anonymizer.recognize.recognizer import term_key
from anonymizer.tabular import export
from anonymizer.tabular.reader import CsvSource
from anonymizer.tabular.spans import records_in_span

Progress = Callable[[int, int, str], None]
# Share of the progress bar per stage: reading, recognizing, string-level recoding, partitioning, recoding and
# writing. A job fanned out over the workers recognizes in parts ("fan_out"), then reads every text's terms back
# ("gather").
STAGES = {"read": (0, 10), "recognize": (10, 70), "fan_out": (10, 64), "gather": (64, 70), "spread": (70, 76),
          "partition": (76, 80), "write": (80, 100)}
#: ``spread_in_parts(spreader, progress)``: the texts' changes by string-level recoding, as stored
#: (``dump_changes``), computed in parts with a fitted spreader (``spread_part`` on each, ``merge_parts``), or
#: None when the dataset is not worth splitting.
SpreadInParts = Callable[[OccurrenceSpreader, Progress], "str | None"]


def _stage(progress: Progress | None, name: str) -> Progress:
    low, high = STAGES[name]

    def report(done: int, total: int, message: str) -> None:
        if progress is not None:
            progress(low + int((high - low) * done / max(total, 1)), 100, message)

    return report


def _texts(source: Path, columns: list[int]) -> Iterator[str]:
    with source.open("rb") as handle:
        for record in iter_rows(handle):
            for column in columns:
                yield record[column]


def recognize_rows(source: Path, table, config, recognize: Callable, progress: Progress) -> RowTerms:
    """Per row, the sensitive terms of each text column (in the order of config.text_columns). Progress is
    reported in characters (a file may hold one huge cell), at least every second."""
    columns = [table.header.index(name) for name in config.text_columns]
    if not columns:
        return RowTerms.of([()] * table.rows, 0)
    total_chars = sum(len(text) for text in _texts(source, columns))
    store = RowTerms(len(columns))
    total = table.rows * len(columns)
    done_chars, last = 0, time.monotonic()
    lengths = (len(text) for text in _texts(source, columns))
    counted = {"texts": 0}

    def inside(characters: int) -> None:  # within one huge cell, as NER goes through its pieces
        nonlocal last
        if time.monotonic() - last >= 1:
            last = time.monotonic()
            progress(characters, total_chars, f"recognizing sensitive terms: {counted['texts']:,} of {total:,} "
                                              f"texts, {_chars(characters)} of {_chars(total_chars)} characters")

    accepts = "on_characters" in inspect.signature(recognize).parameters
    stream = recognize(_texts(source, columns), on_characters=inside) if accepts else recognize(
        _texts(source, columns))
    for done, terms in enumerate(stream, start=1):
        counted["texts"] = done
        store.append(terms)
        done_chars += next(lengths)
        if done % 500 == 0 or done == total or time.monotonic() - last >= 1:
            last = time.monotonic()
            progress(done_chars, total_chars, f"recognizing sensitive terms: {done:,} of {total:,} texts, "
                                              f"{_chars(done_chars)} of {_chars(total_chars)} characters")
    if store.texts != total:
        raise ValueError(f"the recognizer gave the terms of {store.texts:,} texts for {total:,}")
    return store


def _chars(count: int) -> str:
    return f"{count / 1e6:.1f} million" if count >= 1_000_000 else f"{count:,}"


def anonymize_csv(source: Path, config, output: Path, *, recognize: Callable | None = None,
                  progress: Progress | None = None, neutralize_formulas: bool = True, cache=None,
                  fan_out: Callable[[Progress], None] | None = None, spread_in_parts: SpreadInParts | None = None,
                  review_output: Path | None = None) -> dict:
    """Run rx-anon on ``source`` into ``output`` and return the report. ``recognize(texts) -> iterator of term
    lists`` is the (cached) sensitive-term recognizer; it is not called when the dataset has no text column.
    ``neutralize_formulas``: cells a spreadsheet would run as formulas are written quoted (``tabular.export``).
    ``cache``: a ``TermCache`` that keeps the dataset's terms after string-level recoding, which depend on the
    dataset, not on k or λ, so that the other runs of a grid skip it. ``fan_out(progress)``: called once the
    file was read and before recognition, to have the texts recognized into the cache elsewhere (by parts, on
    many workers); ``recognize`` then reads them back and recognizes only what it finds missing.
    ``spread_in_parts``: string-level recoding's adding pass run in parts elsewhere (see ``spread_terms``).
    ``review_output``: where the tokens left for review are written as CSV (row, column, tokens), every text
    that has some; the report has their counts and the first texts' lists either way (``review``)."""
    seconds: dict[str, float] = {}
    started = time.perf_counter()
    table = _read_persons(source, config, progress, seconds)
    row_terms, spread, spread_cached = _terms_of_rows(source, table, config, recognize, progress, cache, fan_out,
                                                      spread_in_parts, seconds)
    hierarchies = TermHierarchies(enabled=config.generalize_terms)

    step = time.perf_counter()
    partitioner = _stage(progress, "partition")
    partitioner(0, 1, "building the person-centric view")
    view = build_view(table, config, row_terms, hierarchies)
    partitioner(1, 3, f"partitioning {view.size:,} persons ({config.strategy}, k = {config.k})")
    partitioning = partition(view, config)
    recodings, person_class = recode_classes(view, partitioning.classes, config, hierarchies)
    released = released_classes(recodings)
    seconds["partition"] = time.perf_counter() - step

    step = time.perf_counter()
    levels, pseudonyms, review = _write(source, output, table, config, row_terms, recodings, person_class, view,
                                        hierarchies, _stage(progress, "write"), neutralize_formulas, review_output)
    seconds["write"] = time.perf_counter() - step
    loss = information_loss(view, recodings, person_class, config, hierarchies)
    step = time.perf_counter()
    _stage(progress, "write")(1, 1, "re-reading the released file for recognized names")
    check = check_release(output, table, config, row_terms, recodings, person_class, view, hierarchies)
    seconds["verify"] = time.perf_counter() - step

    sizes = Counter(len(c) for c in partitioning.classes)
    released_sizes = sorted(released.values())
    recognized = row_terms.label_counts()
    redundant = _redundant_terms(table, config, row_terms)
    seconds["total"] = time.perf_counter() - started
    return {
        "k": config.k, "strategy": config.strategy, "relational_weight": config.relational_weight,
        "rows": table.rows, "persons": view.size, "classes": len(partitioning.classes),
        "k_reached": bool(released_sizes) and released_sizes[0] >= config.k,
        "smallest_class": released_sizes[0] if released_sizes else 0,
        "class_sizes": {str(size): count for size, count in sorted(sizes.items())},
        "splits": dict(sorted(partitioning.splits.items())),
        "recognized_terms": dict(sorted(recognized.items())), "redundant_terms": redundant,
        # String-level recoding: occurrences NER missed of strings it recognized elsewhere, per type.
        "spread_terms": dict(sorted(spread.items())), "spread_scope": "dataset" if config.recode_everywhere
        else "person", "spread_cached": spread_cached,
        # How the released terms were written: kept, generalized (a node between term and type) or as the type.
        "released_terms": levels,
        "generalize_terms": config.generalize_terms,
        # Distinct strings written as a numbered pseudonym (PERSON_1, ...), per type; None when the option is off.
        "numbered_pseudonyms": pseudonyms,
        # Re-read from the written file: names *the recognizer found* (somewhere in the dataset) standing where
        # their class does not share them. Names it never found are not counted: 0 here is 0 of those recognized,
        # not 0 names; how much it finds is ``recognizer`` and where a miss is likeliest ``left_for_review``.
        "recognized_names_left": sum(check["names"].values()),
        "recognized_names_left_by_type": dict(sorted(check["names"].items())),
        "rows_with_recognized_names_left": check["rows_with_names"],
        "recognizer": measured_recognizer(),
        "left_for_review": review,
        **loss,
        "dropped_columns": [config.direct_identifier],
        "seconds": {name: round(value, 3) for name, value in seconds.items()},
        "warnings": list(config.warnings),
    }


def _read_persons(source: Path, config, progress: Progress | None, seconds: dict[str, float]) -> Table:
    """The dataset read, refused when it has fewer persons than k (before minutes of NER, not after)."""
    started = time.perf_counter()
    with source.open("rb") as handle:
        table = read_table(handle, config, progress=_stage(progress, "read"))
    seconds["read"] = time.perf_counter() - started
    persons = len(set(table.persons))
    if persons < config.k:
        raise TooFewPersons(f"The dataset has {persons} persons, fewer than k = {config.k}: no class of k persons "
                            "can be formed.")
    return table


def _terms_of_rows(source: Path, table: Table, config, recognize: Callable | None, progress: Progress | None,
                   cache, fan_out: Callable[[Progress], None] | None, spread_in_parts: SpreadInParts | None,
                   seconds: dict[str, float]) -> tuple[RowTerms, Counter, bool]:
    """Recognition, then string-level recoding: every row's terms, the occurrences added per type (and terms
    that took in a shorter one NER tagged), and whether they came from the cache."""
    step = time.perf_counter()
    if config.text_columns and recognize is None:
        raise ValueError("the configuration has text columns but no recognizer was given")
    stage = "recognize"
    if fan_out is not None and config.text_columns:
        fan_out(_stage(progress, "fan_out"))
        seconds["fan_out"] = time.perf_counter() - step  # part of seconds["recognize"], which is the whole stage
        stage = "gather"
    row_terms = recognize_rows(source, table, config, recognize, _stage(progress, stage))
    seconds["recognize"] = time.perf_counter() - step

    step = time.perf_counter()
    _stage(progress, "spread")(0, 1, "recoding every occurrence of the recognized strings")
    recognized_terms = row_terms
    row_terms, spread_cached = spread_terms(source, table, config, row_terms, cache, spread_in_parts,
                                            _stage(progress, "spread"), seconds)
    spread = row_terms.added_over(recognized_terms) if row_terms is not recognized_terms else Counter()
    seconds["spread"] = time.perf_counter() - step
    return row_terms, spread, spread_cached


def _redundant_terms(table: Table, config, row_terms: RowTerms) -> int:
    """Terms of a type mapped to a quasi-identifier that state its value in the row (only these can)."""
    qis = [a for a in config.quasi_identifiers if a.type != "text"]
    mapped = {label for a in qis for label in a.entities}
    if not mapped:
        return 0
    return sum(1 for row, terms in enumerate(row_terms) for column in terms for t in column
               if t.label in mapped and redundant_match(t, row, qis, table) is not None)


def spread_terms(source: Path, table, config, row_terms: RowTerms | Sequence, cache=None,
                 spread_in_parts: SpreadInParts | None = None, progress: Progress | None = None,
                 seconds: dict[str, float] | None = None) -> tuple[RowTerms, bool]:
    """String-level recoding (``occurrences``): each column's terms plus the occurrences of recognized strings
    NER missed, in the texts of the same person, or of every person with ``config.recode_everywhere``. With a
    ``cache`` (``TermCache``) the result is kept under a digest of all it depends on; returns (terms, whether
    they came from the cache). The texts are streamed from ``source`` (a million posts do not fit in memory
    as strings): once when the cache has the result, else twice (learning, then adding). Texts nothing is
    added to are copied as arrays, not made into ``Term`` objects.

    ``spread_in_parts(spreader, progress)``: the adding pass, the longer one, run in parts (byte ranges of the
    file, on many workers) with what was learned here from all texts; its changes are then applied here as a
    cached result is, and kept in the cache the same way. ``seconds`` receives the time of its steps when they
    ran: learning (``spread_learn``), the adding pass in parts (``spread_parts``), applying their changes
    (``spread_apply``)."""
    columns = [table.header.index(name) for name in config.text_columns]
    if not columns:
        return row_terms, False
    width = len(columns)
    if not isinstance(row_terms, RowTerms):
        row_terms = RowTerms.of(row_terms, width)
    base = row_terms.only(spread_labels(config))
    owners = _TextOwners(table.persons, width)
    scope = "dataset" if config.recode_everywhere else "person"
    digest = _spread_digest(source, columns, table.persons, base, scope) if cache is not None else None
    stored = cache.get_changes(digest) if cache is not None else None
    if stored is not None:
        try:
            return _apply_changes(stored, source, columns, base), True
        except ValueError:  # an entry that does not fit the texts: computed again, and stored anew
            pass
    seconds = {} if seconds is None else seconds
    step = time.perf_counter()
    with _collector_paused():
        spreader = OccurrenceSpreader(scope).fit_store(base, _texts(source, columns), owners)
    seconds["spread_learn"] = time.perf_counter() - step
    stored = spread_in_parts(spreader, progress or (lambda done, total, message: None)) if spread_in_parts else None
    if stored is not None:
        del spreader  # not needed to apply the parts' changes: its strings go before they are parsed
        seconds["spread_parts"] = time.perf_counter() - step - seconds["spread_learn"]
        step = time.perf_counter()
        spread = _apply_changes(stored, source, columns, base)
        if cache is not None:
            cache.put_changes(digest, stored)
        seconds["spread_apply"] = time.perf_counter() - step
        return spread, False
    spread = base.empty_like()
    changes: list[str] = []  # as JSON text as they come: smaller than lists of lists of ints
    for i, text in enumerate(_texts(source, columns)):
        terms = base.text(i)
        found = spreader.transform_one(text, terms, owners[i])
        change = change_of(found, terms)
        if change is None:
            spread.copy_text(base, i)
        else:
            spread.append(found)
            if cache is not None:
                changes.append(dump_changes({str(i): change})[1:-1])
    if spread.texts != base.texts:
        raise ValueError(f"the file holds {spread.texts:,} texts, {base.texts:,} were recognized")
    if cache is not None:
        cache.put_changes(digest, "{" + ",".join(changes) + "}")
    return spread, False


def texts_in_span(fileobj: BinaryIO, start: int, end: int, config) -> tuple[list[str], list[str]]:
    """The texts of the records in bytes ``[start, end)`` of a dataset's file (a part ``record_spans`` cut), row
    by row and column by column as ``_texts`` gives them, and the person of each as ``read_table`` reads it (the
    direct identifier, stripped)."""
    source = CsvSource(fileobj)
    columns = [source.header.index(name) for name in config.text_columns]
    person_at = source.header.index(config.direct_identifier)
    texts, persons = [], []
    for record in records_in_span(fileobj, start, end, delimiter=source.delimiter, width=len(source.header)):
        person = record[person_at].strip()
        for column in columns:
            texts.append(record[column])
            persons.append(person)
    return texts, persons


def spread_labels(config) -> set[str]:
    """The types of the terms string-level recoding learns from and adds to: those the configuration asks for."""
    return set(config.entity_types) | {c.label for c in config.custom_entities} | set(ALWAYS_TYPES)


def spread_part(spreader: OccurrenceSpreader, texts: Sequence[str], terms: RowTerms, owners: Sequence[object]
                ) -> bytes:
    """String-level recoding's adding pass on one part of a dataset (``texts``, their recognized terms of the
    configured types, the person of each), with a ``spreader`` fitted on the whole dataset: the part's output,
    its number of texts and their changes, numbered in the part (``merge_parts`` joins them).

    The output is lines: the number of texts, then one line per text changed, its number in the part, a tab and
    its change as JSON (no line break in it: JSON writes them escaped), so that the parts are joined by moving
    each line's number, not by reading and writing every change again."""
    if terms.texts != len(texts):
        raise ValueError(f"the part holds {len(texts):,} texts and the terms of {terms.texts:,}")
    lines = [str(len(texts))]
    dumps = _CHANGE_JSON.encode
    for i, text in enumerate(texts):
        change = spreader.change_one(text, terms.spans(i), owners[i])
        if change is UNSURE:
            before = terms.text(i)
            change = change_of(spreader.transform_one(text, before, owners[i]), before)
        if change is not None:
            lines.append(f"{i}\t{dumps(change)}")
    return "\n".join(lines).encode()


#: A change as ``dump_changes`` writes it inside a dataset's changes.
_CHANGE_JSON = json.JSONEncoder(ensure_ascii=False, separators=(",", ":"))


@contextlib.contextmanager
def _collector_paused() -> Iterator[None]:
    """Python's cycle collector off for a block that makes millions of small lists and dicts and no cycle (the
    parts' changes as JSON): each of its passes would go through every object of the process (a million rows'
    persons and values), over and over; at 200,000 rows decoding the parts' changes took 8.3 s with it, most of
    the main process's share of string-level recoding."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()


def merge_parts(outputs: Iterable[bytes]) -> str:
    """The outputs of ``spread_part`` on consecutive parts of a dataset, in order, as one dataset's stored
    changes (``dump_changes``): each part's text numbers moved by the texts of the parts before it."""
    pieces: list[str] = []
    offset = 0
    for output in outputs:
        if output[:1] == b"{":  # written as JSON, by string-level recoding before the lines
            with _collector_paused():
                part = json.loads(output)
                changes = {str(offset + int(index)): change for index, change in part["changes"].items()}
                if changes:
                    pieces.append(dump_changes(changes)[1:-1])
                offset += part["texts"]
                del part, changes
            continue
        lines = output.decode().split("\n")
        for line in lines[1:]:
            index, change = line.split("\t", 1)
            pieces.append(f'"{offset + int(index)}":{change}')
        offset += int(lines[0])
    return "{" + ",".join(pieces) + "}"


def _apply_changes(stored: str, source: Path, columns: list[int], base: RowTerms) -> RowTerms:
    """``base`` with the stored changes of string-level recoding (``dump_changes``): on the arrays when every
    added term carries its text (``change_of``), else text by text with the texts read from ``source``."""
    with _collector_paused():
        changes = load_changes(stored)
        spread = _apply_spelled(changes, base)
        if spread is None:
            spread = _apply_stored(changes, _texts(source, columns), base)
        del changes
    return spread


def _apply_spelled(changes: dict[int, list], base: RowTerms) -> RowTerms | None:
    """``base`` with the changes (``load_changes``) whose added terms all carry their text, on the arrays,
    without the texts: what ``_apply_stored`` makes of them, the same terms in the same order, numbered alike.
    None when an added term has no text (changes stored before they carried it); ValueError where the changes
    do not fit the terms. The changes are checked and taken apart a column at a time, not term by term."""
    bounds = np.frombuffer(base._bounds, dtype=np.int64)
    indices = np.fromiter(changes, dtype=np.int64, count=len(changes))
    if len(indices) and not (0 <= indices.min() and indices.max() < base.texts):
        wrong = next(i for i in changes if not 0 <= i < base.texts)
        raise ValueError(f"the stored changes name text {wrong}, past the dataset's last")
    removed_lists = [change[0] for change in changes.values()]
    added_lists = [change[1] for change in changes.values()]
    if not all(type(r) is list for r in removed_lists) or not all(type(a) is list for a in added_lists):
        bad = np.array([type(r) is not list or type(a) is not list
                        for r, a in zip(removed_lists, added_lists, strict=True)])
        raise ValueError(f"the stored changes of text {int(indices[bad.argmax()])} do not fit it")
    added = _checked_added(indices, added_lists)
    if added is None:
        return None
    removed_text, removed_at = _checked_removed(indices, removed_lists, bounds)
    return _with_changes(base, bounds, indices, added, removed_text, removed_at)


def _checked_added(indices: np.ndarray, added_lists: list[list]) -> tuple | None:
    """The added terms of the stored changes as columns: (text, start, end) arrays and (label, spelling)
    lists; None when one has no text (changes stored before they carried it); ValueError where one is no
    term of its text."""
    added = list(chain.from_iterable(added_lists))
    added_text = np.repeat(indices, np.fromiter(map(len, added_lists), dtype=np.int64, count=len(added_lists)))
    if not all(type(entry) is list and len(entry) == 4 for entry in added):
        if any(type(entry) is list and len(entry) == 3 for entry in added):
            return None
        bad = np.array([not (type(entry) is list and len(entry) == 4) for entry in added])
        raise ValueError(f"the stored changes of text {int(added_text[bad.argmax()])} do not fit it")
    add_start, add_end, add_label, add_spelling = ([list(column) for column in zip(*added, strict=True)]
                                                   if added else ([], [], [], []))
    if not (set(map(type, add_start)) | set(map(type, add_end)) <= {int}
            and set(map(type, add_label)) | set(map(type, add_spelling)) <= {str}):
        bad = np.array([not (type(a) is int and type(b) is int and type(c) is str and type(d) is str)
                        for a, b, c, d in added])
        raise ValueError(f"the stored changes of text {int(added_text[bad.argmax()])} do not fit it")
    starts_added = np.array(add_start, dtype=np.int64)
    ends_added = np.array(add_end, dtype=np.int64)
    lengths = np.fromiter(map(len, add_spelling), dtype=np.int64, count=len(added))
    bad = ~((0 <= starts_added) & (starts_added < ends_added) & (ends_added - starts_added == lengths)
            & (ends_added <= np.iinfo(np.int32).max))
    if bad.any():
        raise ValueError(f"the stored changes of text {int(added_text[bad.argmax()])} do not fit it")
    return added_text, starts_added, ends_added, add_label, add_spelling


def _checked_removed(indices: np.ndarray, removed_lists: list[list], bounds: np.ndarray
                     ) -> tuple[np.ndarray, np.ndarray]:
    """The removed terms of the stored changes as (text, place among the text's terms) arrays; ValueError where
    one is no term of its text."""
    removed = list(chain.from_iterable(removed_lists))
    removed_text = np.repeat(indices, np.fromiter(map(len, removed_lists), dtype=np.int64, count=len(removed_lists)))
    if not set(map(type, removed)) <= {int}:
        bad = np.array([type(r) is not int for r in removed])
        raise ValueError(f"the stored changes of text {int(removed_text[bad.argmax()])} do not fit it")
    removed_at = np.array(removed, dtype=np.int64)
    bad = (removed_at < 0) | (removed_at >= bounds[removed_text + 1] - bounds[removed_text])
    if bad.any():
        raise ValueError(f"the stored changes of text {int(removed_text[bad.argmax()])} do not fit it")
    return removed_text, removed_at


def _with_changes(base: RowTerms, bounds: np.ndarray, indices: np.ndarray, added: tuple,
                  removed_text: np.ndarray, removed_at: np.ndarray) -> RowTerms:
    """A new store of ``base``'s terms without the removed and with the added ones (checked already)."""
    added_text, starts_added, ends_added, add_label, add_spelling = added
    arrays = base.arrays()
    old = len(arrays["start"])
    added_count = len(add_label)
    keep = np.ones(old + added_count, dtype=bool)
    keep[bounds[removed_text] + removed_at] = False
    changed = np.zeros(base.texts, dtype=bool)
    changed[indices] = True
    spread = base.empty_like()
    texts = np.concatenate([arrays["text"], added_text])
    starts = np.concatenate([arrays["start"].astype(np.int64), starts_added])
    # A changed text's terms by start, the kept ones first where starts tie (``sorted`` of kept + added); the
    # others as they were.
    # One key sorted stably (a radix sort), not three: text, then start where changed (starts are below 2**31,
    # so text * 2**31 + start fits an int64 for any number of texts an array can hold).
    order = np.argsort(texts << 31 | np.where(changed[texts], starts, 0), kind="stable")
    order = order[keep[order]]
    # Labels and spellings the base does not have are numbered as ``RowTerms.append`` numbers them: in the order
    # they first stand.
    label_of = np.concatenate([arrays["label"].astype(np.int64), np.zeros(added_count, dtype=np.int64)])
    spelling_of = np.concatenate([arrays["spelling"].astype(np.int64), np.zeros(added_count, dtype=np.int64)])
    rank = np.empty(old + added_count, dtype=np.int64)  # where each term stands in the new store
    rank[order] = np.arange(len(order))
    for values, numbers, names, column in ((add_label, spread._label_number, spread.labels, label_of),
                                           (add_spelling, spread._spelling_number, spread.spellings, spelling_of)):
        found = np.array([numbers.get(value, -1) for value in values], dtype=np.int64)
        new = np.flatnonzero(found < 0)
        for j in new[np.argsort(rank[old + new], kind="stable")].tolist():  # the new ones, in the store's order
            number = numbers.get(values[j])
            if number is None:
                number = numbers[values[j]] = len(names)
                names.append(values[j])
            found[j] = number
        column[old:] = found
    ends = np.concatenate([arrays["end"].astype(np.int64), ends_added])
    spread._starts = array("i", starts[order].astype(np.int32).tobytes())
    spread._ends = array("i", ends[order].astype(np.int32).tobytes())
    spread._label_of = array("H", label_of[order].astype(np.uint16).tobytes())
    spread._spelling_of = array("i", spelling_of[order].astype(np.int32).tobytes())
    counts = np.bincount(texts[order], minlength=base.texts)
    spread._bounds = array("q", np.concatenate([[0], np.cumsum(counts)]).astype(np.int64).tobytes())
    return spread


def _apply_stored(changes: dict[int, list], texts: Iterable[str], base: RowTerms) -> RowTerms:
    """``base`` with the stored changes of string-level recoding (``recognize.cache.load_changes``); the texts
    nothing was added to are copied as arrays. ValueError where the changes do not fit the texts."""
    spread = base.empty_like()
    for i, text in enumerate(texts):
        change = changes.pop(i, None)
        if change is None:
            spread.copy_text(base, i)
        else:
            spread.append(apply_change(change, text, base.text(i), i))
    if changes:
        raise ValueError(f"the stored changes name text {min(changes)}, past the dataset's last")
    if spread.texts != base.texts:
        raise ValueError(f"the file holds {spread.texts:,} texts, {base.texts:,} were recognized")
    return spread


class _TextOwners(Sequence):
    """The person of every text (row by row, column by column) without a list of them."""

    def __init__(self, persons: Sequence[str], width: int) -> None:
        self.persons, self.width = persons, width

    def __len__(self) -> int:
        return len(self.persons) * self.width

    def __getitem__(self, index):  # type: ignore[override]
        return self.persons[index // self.width]


def _spread_digest(source: Path, columns: list[int], persons: Sequence[str], base: RowTerms, scope: str) -> bytes:
    """Everything string-level recoding depends on: its version, the scope, the file's bytes (so its texts),
    which columns are texts, every row's person and every text's terms. The file is hashed as bytes, not
    parsed: a million posts' texts would take another pass of the CSV reader."""
    digest = hashlib.sha256(f"{SPREAD_VERSION}\0{scope}\0{base.texts}\0{columns}\0".encode())
    with source.open("rb") as handle:
        while block := handle.read(1 << 20):
            digest.update(block)
    digest.update(hashlib.sha256(json.dumps(list(persons), ensure_ascii=False).encode("utf-8", "surrogatepass"))
                  .digest())
    digest.update(json.dumps(base.labels, ensure_ascii=False).encode("utf-8", "surrogatepass"))
    arrays = base.arrays()
    for name in ("start", "end", "label", "text"):
        digest.update(name.encode() + np.ascontiguousarray(arrays[name]).tobytes())
    return digest.digest()


def check_release(output: Path, table, config, row_terms, recodings, person_class, view, hierarchies) -> dict:
    """``verify.surviving_strings`` on the written file, with what each row's class may show."""
    if not config.text_columns:
        return {"names": Counter(), "rows_with_names": 0, "examples": []}
    labels: dict[str, Counter] = defaultdict(Counter)
    for (spelling, label), count in row_terms.spelling_label_counts().items():
        labels[term_key(spelling)][label] += count
    recognized = {key: counts.most_common(1)[0][0] for key, counts in labels.items()}
    del labels

    @lru_cache(maxsize=SHOWN_CACHE)  # bounded: half a million classes' lists took gigabytes
    def allowed_of_class(index: int) -> list[str]:
        recoding = recodings[index]
        shown = [g.text for g in recoding.relational.values()]
        for label, nodes in recoding.shared.items():
            for node_key in nodes:
                if node_key[0] == "term":
                    shown.append(node_key[1])
                else:
                    shown.extend(hierarchies.texts_of(label, node_key))
        return shown

    def allowed(row: int) -> list[str]:  # asked for the rows where a recognized name stands only
        return allowed_of_class(int(person_class[view.row_person[row]]))

    return surviving_strings(output, list(config.text_columns), recognized, allowed, is_common_word)


def _write(source: Path, output: Path, table, config, row_terms, recodings, person_class, view, hierarchies,
           progress, neutralize_formulas: bool = True, review_output: Path | None = None
           ) -> tuple[dict, dict | None, dict]:
    """Recode and write every row, in order, by one ``TextRecoder`` (numbered pseudonyms come from its one
    table). Returns the terms written per kind, the pseudonyms per type (None when off) and the tokens left
    for review (``ReviewList.report``), written row by row to ``review_output`` when given."""
    roles = {a.name: a for a in config.attributes}
    keep = [i for i, name in enumerate(table.header) if roles[name].role != "direct_identifier"]
    qi_columns = {table.header.index(a.name): a.name for a in config.quasi_identifiers if a.type != "text"}
    text_columns = {table.header.index(name): n for n, name in enumerate(config.text_columns)}
    partial = output.with_name(output.name + ".partial")
    levels: Counter = Counter()
    recoder, width = TextRecoder(config, table, hierarchies, view.spellings), len(text_columns)
    review = ReviewList()
    with contextlib.ExitStack() as files:
        handle = files.enter_context(source.open("rb"))
        out = files.enter_context(partial.open("w", encoding="utf-8", newline=""))
        writer = export.writer(out, delimiter=table.delimiter, neutralize=neutralize_formulas)
        review_writer = None
        if review_output is not None:
            review_writer = export.writer(files.enter_context(review_output.open("w", encoding="utf-8", newline="")),
                                          neutralize=neutralize_formulas)
            review_writer.writerow(["row", "column", "left_for_review"])
        writer.writerow([table.header[i] for i in keep])
        for row, record in enumerate(iter_rows(handle)):
            recoding = recodings[person_class[view.row_person[row]]]
            line = []
            for i in keep:
                if i in qi_columns:
                    line.append(recoding.relational[qi_columns[i]].text)
                elif i in text_columns:
                    tokens: list[str] = []
                    line.append(recoder.recode(record[i], row_terms.text(row * width + text_columns[i]), row, recoding,
                                               levels, tokens))
                    if tokens:
                        review.add(row + 1, table.header[i], list(tokens))
                        if review_writer is not None:
                            review_writer.writerow([row + 1, table.header[i], " ".join(tokens)])
                else:
                    line.append(record[i])
            writer.writerow(line)
            if row % 2000 == 0:
                progress(row, table.rows, f"recoding and writing: {row:,} of {table.rows:,} rows")
    partial.replace(output)  # a half-written file never carries the final name
    progress(table.rows, table.rows, "written")
    pseudonyms = recoder.pseudonyms.counts() if recoder.pseudonyms is not None else None
    return dict(sorted(levels.items())), pseudonyms, review.report()
