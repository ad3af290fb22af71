"""The whole rx-anon run on a CSV file: read, recognize sensitive terms, build the person-centric view,
partition, recode, check k-anonymity, write the anonymized CSV, and measure the information loss.

The file is read three times, streamed (relational values, then the texts in chunks for recognition, then
every row for writing): only parsed relational values and recognized terms stay in memory, never the texts or
spaCy documents.
"""

from __future__ import annotations

import time
from collections import Counter
from collections.abc import Callable, Iterator
from pathlib import Path

from anonymizer.kanon.metrics import information_loss, released_classes
from anonymizer.kanon.partition import partition
from anonymizer.kanon.recode import recode_classes, recode_text
from anonymizer.kanon.table import iter_rows, read_table
from anonymizer.kanon.view import build_view, redundant_match
from anonymizer.tabular import export

Progress = Callable[[int, int, str], None]
# Share of the progress bar per stage: reading, recognizing, partitioning, recoding and writing.
STAGES = {"read": (0, 10), "recognize": (10, 70), "partition": (70, 80), "write": (80, 100)}


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


def recognize_rows(source: Path, table, config, recognize: Callable, progress: Progress) -> list[tuple[list, ...]]:
    """Per row, the sensitive terms of each text column (in the order of config.text_columns)."""
    columns = [table.header.index(name) for name in config.text_columns]
    if not columns:
        return [() for _ in range(table.rows)]
    per_text = []
    total = table.rows * len(columns)
    for done, terms in enumerate(recognize(_texts(source, columns)), start=1):
        per_text.append(terms)
        if done % 500 == 0 or done == total:
            progress(done, total, f"recognizing sensitive terms: {done:,} of {total:,} texts")
    width = len(columns)
    return [tuple(per_text[row * width: (row + 1) * width]) for row in range(table.rows)]


def anonymize_csv(source: Path, config, output: Path, *, recognize: Callable | None = None,
                  progress: Progress | None = None, neutralize_formulas: bool = True) -> dict:
    """Run rx-anon on ``source`` into ``output`` and return the report. ``recognize(texts) -> iterator of term
    lists`` is the (cached) sensitive-term recognizer; it is not called when the dataset has no text column.
    ``neutralize_formulas``: cells a spreadsheet would run as formulas are written quoted (``tabular.export``)."""
    seconds: dict[str, float] = {}
    started = time.perf_counter()
    with source.open("rb") as handle:
        table = read_table(handle, config, progress=_stage(progress, "read"))
    seconds["read"] = time.perf_counter() - started

    step = time.perf_counter()
    if config.text_columns and recognize is None:
        raise ValueError("the configuration has text columns but no recognizer was given")
    row_terms = recognize_rows(source, table, config, recognize, _stage(progress, "recognize"))
    seconds["recognize"] = time.perf_counter() - step

    step = time.perf_counter()
    partitioner = _stage(progress, "partition")
    partitioner(0, 1, "building the person-centric view")
    view = build_view(table, config, [[t for column in terms for t in column] for terms in row_terms])
    partitioner(1, 3, f"partitioning {view.size:,} persons ({config.strategy}, k = {config.k})")
    partitioning = partition(view, config)
    recodings, person_class = recode_classes(view, partitioning.classes, config)
    released = released_classes(recodings)
    seconds["partition"] = time.perf_counter() - step

    step = time.perf_counter()
    _write(source, output, table, config, row_terms, recodings, person_class, view, _stage(progress, "write"),
           neutralize_formulas)
    seconds["write"] = time.perf_counter() - step
    loss = information_loss(view, recodings, person_class, config)

    sizes = Counter(len(c) for c in partitioning.classes)
    released_sizes = sorted(released.values())
    recognized = Counter(t.label for terms in row_terms for column in terms for t in column)
    qis = [a for a in config.quasi_identifiers if a.type != "text"]
    redundant = sum(1 for row, terms in enumerate(row_terms) for column in terms for t in column
                    if redundant_match(t, row, qis, table) is not None)
    seconds["total"] = time.perf_counter() - started
    return {
        "k": config.k, "strategy": config.strategy, "relational_weight": config.relational_weight,
        "rows": table.rows, "persons": view.size, "classes": len(partitioning.classes),
        "k_reached": bool(released_sizes) and released_sizes[0] >= config.k,
        "smallest_class": released_sizes[0] if released_sizes else 0,
        "class_sizes": {str(size): count for size, count in sorted(sizes.items())},
        "splits": dict(sorted(partitioning.splits.items())),
        "recognized_terms": dict(sorted(recognized.items())), "redundant_terms": redundant,
        **loss,
        "dropped_columns": [config.direct_identifier],
        "seconds": {name: round(value, 3) for name, value in seconds.items()},
        "warnings": list(config.warnings),
    }


def _write(source: Path, output: Path, table, config, row_terms, recodings, person_class, view, progress,
           neutralize_formulas: bool = True) -> None:
    roles = {a.name: a for a in config.attributes}
    keep = [i for i, name in enumerate(table.header) if roles[name].role != "direct_identifier"]
    qi_columns = {table.header.index(a.name): a.name for a in config.quasi_identifiers if a.type != "text"}
    text_columns = {table.header.index(name): n for n, name in enumerate(config.text_columns)}
    partial = output.with_name(output.name + ".partial")
    with source.open("rb") as handle, partial.open("w", encoding="utf-8", newline="") as out:
        writer = export.writer(out, delimiter=table.delimiter, neutralize=neutralize_formulas)
        writer.writerow([table.header[i] for i in keep])
        for row, record in enumerate(iter_rows(handle)):
            recoding = recodings[person_class[view.row_person[row]]]
            line = []
            for i in keep:
                if i in qi_columns:
                    line.append(recoding.relational[qi_columns[i]].text)
                elif i in text_columns:
                    line.append(recode_text(record[i], row_terms[row][text_columns[i]], row, recoding, config,
                                            table))
                else:
                    line.append(record[i])
            writer.writerow(line)
            if row % 2000 == 0:
                progress(row, table.rows, f"recoding and writing: {row:,} of {table.rows:,} rows")
    partial.replace(output)  # a half-written file never carries the final name
    progress(table.rows, table.rows, "written")
