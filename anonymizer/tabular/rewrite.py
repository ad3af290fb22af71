"""A CSV file rewritten row by row, by parts of the file (no Django here): the pieces a web job fanned out over the
workers uses (``anonymizer.platform.jobs.csv_parts``) and a local runner, ``rewrite_file``, that shares the parts
among processes of this machine (the ``kakurega`` command; ``start_method`` says how they start). Both write the
header and then the parts' rows in file order, so the file is the one a single process writes, whatever the parts
and the processes.

A kind of rewrite gives one function, ``rewrite(header, records, writer, progress) -> state``: it reads the records
(lists of strings), writes what it releases through ``writer`` and returns what it counted as JSON (its rows
numbered from 0 within the records it was given); ``progress(rows_done)`` must be called now and then (it is
where a cancelled part stops). The runner then gets, per part in order, the number of records before it and its
state, to add up (``Part``, ``gather``).
"""

from __future__ import annotations

import io
import multiprocessing
import os
import pickle
import sys
import tempfile
from collections import deque
from collections.abc import Callable, Iterable, Iterator, Sequence
from concurrent.futures import Future, ProcessPoolExecutor
from contextlib import closing
from dataclasses import dataclass
from itertools import islice
from pathlib import Path
from typing import Any, BinaryIO

from anonymizer.tabular import export
from anonymizer.tabular.csvcheck import chosen_columns
from anonymizer.tabular.reader import CsvFormatError, CsvSource
from anonymizer.tabular.spans import record_spans, records_in_span
from anonymizer.threads import hold_one_thread, one_thread, prefer_one_thread

Rewrite = Callable[[Sequence[str], Iterable[list[str]], Any, Callable[[int], None]], dict]
#: Builds a rewrite, once per process (loading its models is the cost). Given to other processes, it must pickle:
#: a module-level function, or a frozen dataclass with a ``__call__``.
MakeRewrite = Callable[[], Rewrite]
#: ``progress(done, total, message)``: parts written of the file's parts, and the rows written so far in words.
Progress = Callable[[int, int, str], None]

#: Bytes of the file per part when the caller does not say: small enough that the processes share the file evenly
#: (a process idles at most while the last part is rewritten), large enough that handing parts out costs nothing.
PART_BYTES_MIN, PART_BYTES_MAX = 4 * 1024, 1024 * 1024
PARTS_PER_PROCESS = 12


class MissingColumn(ValueError):
    """A column a rewrite reads is not in the file's header; the message names the file, the column and the
    file's columns."""


@dataclass(frozen=True)
class Part:
    """One part's outcome: ``rows_before`` data records precede it in the file (its first record is row
    ``rows_before + 2``, the header being row 1), ``rows`` it holds, and the ``state`` its rewrite returned."""

    rows_before: int
    rows: int
    state: dict


@dataclass(frozen=True)
class RewrittenPart:
    """A part rewritten: how many records it held, the CSV text of its rows and its rewrite's state."""

    rows: int
    csv: str
    state: dict


class Counted:
    """The records of a part, counted as they are read."""

    def __init__(self, records: Iterable[list[str]]) -> None:
        self.records, self.count = records, 0

    def __iter__(self) -> Iterator[list[str]]:
        for record in self.records:
            self.count += 1
            yield record


def gather(parts: Sequence[Part]) -> tuple[list[dict], list[dict], list[tuple[int, str, str]]]:
    """The parts of a rewrite whose state holds ``counts`` (a dict per text column: its ``name`` and numbers),
    ``sample`` (dicts with a ``row``) and ``refused`` ((row, column, reason)), as one: the numbers summed, the
    rows numbered in the file (the header is row 1, as in the upload's error messages)."""
    counts: list[dict] = []
    sample: list[dict] = []
    refused: list[tuple[int, str, str]] = []
    for part in parts:
        if not counts:
            counts = [{"name": counted["name"]} for counted in part.state["counts"]]
        for total, counted in zip(counts, part.state["counts"], strict=True):
            for key, value in counted.items():
                if key != "name":
                    total[key] = total.get(key, 0) + value
        sample.extend({**item, "row": part.rows_before + item["row"] + 2} for item in part.state["sample"])
        refused.extend((part.rows_before + row + 2, name, why) for row, name, why in part.state["refused"])
    return counts, sample, refused


def column_indices(header: Sequence[str], names: Sequence[str], file_name: str) -> list[int]:
    """Where the named columns are in ``header``; MissingColumn naming the first one the file lacks."""
    _, missing = chosen_columns(names, header, file_name)
    if missing:
        raise MissingColumn(missing[0])
    return [list(header).index(name) for name in names]


def batches(records: Iterable[list[str]], size: int) -> Iterator[list[list[str]]]:
    """The records in lists of ``size`` (the last one shorter)."""
    iterator = iter(records)
    while batch := list(islice(iterator, size)):
        yield batch


def csv_writer(out, delimiter: str, *, neutralize: bool) -> export.FormulaSafeWriter:
    """The writer of every rewritten file: the input's delimiter, ``\\r\\n``, formulas neutralized when asked."""
    return export.writer(out, delimiter=delimiter, neutralize=neutralize)


def rewrite_span(fileobj: BinaryIO, start: int, end: int, rewrite: Rewrite, *, header: Sequence[str], delimiter: str,
                 neutralize: bool, progress: Callable[[int], None] = lambda done: None) -> RewrittenPart:
    """The records in bytes ``[start, end)`` of a file ``record_spans`` cut, rewritten; CsvFormatError (its row
    counted from the part's first record) where the reader would refuse the file."""
    out = io.StringIO()
    records = Counted(records_in_span(fileobj, start, end, delimiter=delimiter, width=len(header)))
    state = rewrite(header, records, csv_writer(out, delimiter, neutralize=neutralize), progress)
    return RewrittenPart(records.count, out.getvalue(), state)


@dataclass(frozen=True)
class _Source:
    """What every process needs to read its parts of the file."""

    path: str
    header: tuple[str, ...]
    delimiter: str
    neutralize: bool


def rewrite_file(source: Path, output: Path, make_rewrite: MakeRewrite, *,
                 header: Callable[[Sequence[str]], Sequence[str]] | None = None, processes: int = 1,
                 chunk_bytes: int | None = None, neutralize: bool = True, progress: Progress | None = None,
                 check: Callable[[Sequence[Part], Path], None] | None = None) -> list[Part]:
    """Rewrite the CSV file ``source`` into ``output`` by parts of about ``chunk_bytes`` (default: a dozen per
    process), on ``processes`` processes of this machine (1: this one); the rewrite is built once with
    ``make_rewrite()`` (here before the processes are forked, or once in each spawned process); returns the parts in
    file order. The file is the same whatever ``processes`` and
    ``chunk_bytes``, and the one a web job writes. ``header(the file's header)`` is the output's, when the rewrite
    adds columns; ``check(parts, written file)``, when given, may refuse the result before it takes ``output``'s
    name. The output is written beside it under a temporary name: nothing is left there if anything fails.
    CsvFormatError (rows numbered in the file, the header being row 1) for a file the reader refuses."""
    if processes < 1:
        raise ValueError("processes must be at least 1")
    with open(source, "rb") as handle:
        shape = CsvSource(handle)
        spans = record_spans(handle, chunk_bytes or _part_bytes(shape.size_bytes, processes), shape.delimiter)
    read = _Source(str(source), tuple(shape.header), shape.delimiter, neutralize)
    output = Path(output)
    descriptor, temporary = tempfile.mkstemp(prefix=f".{output.name}.", suffix=".part", dir=output.parent or ".")
    try:
        with open(descriptor, "w", encoding="utf-8", newline="") as out:
            csv_writer(out, read.delimiter, neutralize=neutralize).writerow(
                read.header if header is None else header(read.header))
            parts = _write_parts(out, read, spans, make_rewrite, processes, progress or (lambda *_: None))
        if check is not None:
            check(parts, Path(temporary))
        os.replace(temporary, output)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise
    return parts


def _part_bytes(size: int, processes: int) -> int:
    return max(PART_BYTES_MIN, min(PART_BYTES_MAX, size // (processes * PARTS_PER_PROCESS) + 1))


def _write_parts(out, read: _Source, spans: list[tuple[int, int]], make_rewrite: MakeRewrite, processes: int,
                 progress: Progress) -> list[Part]:
    parts: list[Part] = []
    rows = 0
    progress(0, len(spans), "starting")
    with closing(_rewritten(read, spans, make_rewrite, processes)) as results:
        for number, (span, rewritten) in enumerate(zip(spans, results, strict=False), 1):
            if isinstance(rewritten, CsvFormatError):
                raise _in_file(read, span, rewritten, rows)
            out.write(rewritten.csv)
            parts.append(Part(rows, rewritten.rows, rewritten.state))
            rows += rewritten.rows
            progress(number, len(spans), f"{rows:,} rows")
    if not spans:  # a header and no data: the rewrite's state of no rows, as a web job gives
        writer = csv_writer(out, read.delimiter, neutralize=read.neutralize)
        parts.append(Part(0, 0, make_rewrite()(read.header, [], writer, lambda done: None)))
    return parts


def _rewritten(read: _Source, spans: list[tuple[int, int]], make_rewrite: MakeRewrite,
               processes: int) -> Iterator[RewrittenPart | CsvFormatError]:
    """The parts rewritten, in file order: here, or by a pool of processes, each with a few parts queued so that
    none waits for the parent."""
    if processes == 1 or len(spans) <= 1:
        _WORKER.update(make=make_rewrite, rewrite=None, read=read)
        try:
            with one_thread():  # as the pool's processes and the web's workers run it: the same bytes
                yield from map(_rewrite_one, spans)
        finally:
            _WORKER.clear()
        return
    method = start_method()
    if method == "fork":  # built once here, before the fork: every process starts with it (and its models)
        _WORKER.update(make=None, rewrite=make_rewrite(), read=read)
    with ProcessPoolExecutor(max_workers=min(processes, len(spans)), mp_context=multiprocessing.get_context(method),
                             initializer=_start_worker,
                             initargs=(None if method == "fork" else pickle.dumps(make_rewrite), read)) as pool:
        pending: deque[Future] = deque()
        queued = iter(spans)
        try:
            for span in islice(queued, 2 * processes):
                pending.append(pool.submit(_rewrite_one, span))
            while pending:
                result = pending.popleft().result()
                for span in islice(queued, 1):
                    pending.append(pool.submit(_rewrite_one, span))
                yield result
        finally:
            for future in pending:
                future.cancel()
            _WORKER.clear()


def start_method() -> str:
    """How the pool's processes start. Linux: ``fork``, from this process once the rewrite is built, so they
    skip the imports, the model and its first-post set-up (measured at 13-16 s a process on this 2-core machine,
    against about 10 ms a post). The tokenizers (fugashi, spaCy) hold no threads of their own, and a forked
    process gets fresh standard streams and one BLAS thread (``_start_worker``), so a progress bar's thread
    writing at the moment of the fork cannot hold a lock the process needs. Elsewhere (macOS, Windows: forking
    is unsafe or absent): ``spawn``, each process building its rewrite from a pickle."""
    return "fork" if sys.platform.startswith("linux") else "spawn"


# The process's rewrite: "make" (a MakeRewrite; in a spawned process its pickle, built on the first part so that
# an error building it reaches the parent as any other), "rewrite" (built), "read" (a _Source).
_WORKER: dict[str, Any] = {}


def _start_worker(make_rewrite: bytes | None, read: _Source) -> None:
    """A pool process: one thread per numerical library (set before the rewrite's modules are imported in a
    spawned process, limited at run time in a forked one) and, forked, standard streams of its own."""
    prefer_one_thread()
    if make_rewrite is None:  # forked: _WORKER holds the built rewrite
        sys.stdout = open(1, "w", encoding="utf-8", closefd=False)
        sys.stderr = open(2, "w", encoding="utf-8", closefd=False)
        hold_one_thread()
        return
    _WORKER.update(make=make_rewrite, rewrite=None, read=read)


def _rewrite_one(span: tuple[int, int]) -> RewrittenPart | CsvFormatError:
    """One part, in whichever process: a CsvFormatError is returned (the parent locates it in the file), any
    other error raised."""
    read: _Source = _WORKER["read"]
    if _WORKER["rewrite"] is None:
        make = _WORKER["make"]
        _WORKER["rewrite"] = (pickle.loads(make) if isinstance(make, bytes) else make)()
    with open(read.path, "rb") as handle:
        try:
            return rewrite_span(handle, *span, _WORKER["rewrite"], header=read.header, delimiter=read.delimiter,
                                neutralize=read.neutralize)
        except CsvFormatError as exc:
            return exc


def _in_file(read: _Source, span: tuple[int, int], error: CsvFormatError, rows_before: int) -> CsvFormatError:
    """The error a part met, as the reader of the whole file words it (it says which line and what to do), or
    else with its row numbered in the file."""
    with open(read.path, "rb") as handle:
        try:
            for _ in CsvSource(handle).batches():
                pass
        except CsvFormatError as exc:
            return exc
    row = rows_before + error.row + 1 if error.row is not None else None
    return CsvFormatError(f"{error.message} (bytes {span[0]:,} to {span[1]:,})", row=row)
