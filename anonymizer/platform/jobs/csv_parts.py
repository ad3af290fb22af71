"""Jobs that rewrite an uploaded CSV row by row (remove time expressions, de-identify every post), fanned out over
the workers by parts of the file (``chunks``): each part's rows are rewritten by whichever worker takes it, and
the job's own task writes the header and the parts' rows in order, so the file is the one a single process
writes. A file of one part is rewritten in the job's own process, by the same function.

The rewriting itself, the parts' state and how it adds up are pure (``anonymizer.tabular.rewrite``, which the
``kakurega`` command's local runner shares): this module adds the upload, the settings and the fan-out.
"""

from __future__ import annotations

import json
import zlib
from collections.abc import Callable, Sequence
from pathlib import Path

from django.conf import settings

from anonymizer.models import Job, Upload
from anonymizer.platform.errors import UserFacingError
from anonymizer.platform.jobs.chunks import ChunkWork
from anonymizer.tabular import CsvFormatError
from anonymizer.tabular.reader import CsvSource
from anonymizer.tabular.rewrite import (
    Counted,
    MissingColumn,
    Part,
    Rewrite,
    batches,
    column_indices,
    csv_writer,
    gather,
    rewrite_span,
)
from anonymizer.tabular.spans import record_spans

__all__ = ["Part", "Rewrite", "batches", "column_indices", "gather", "rewrite_csv", "rewrite_part"]


def rewrite_csv(run, upload: Upload, output: Path, rewrite: Rewrite, *, what: str,
                header: Callable[[Sequence[str]], Sequence[str]] | None = None) -> list[Part]:
    """Rewrite ``upload`` into ``output`` with ``rewrite``, by parts on every free worker when the file has more
    than one (``JOB_CHUNK_BYTES``); returns the parts in file order. ``what`` names the work in progress
    messages ("removing time expressions"); ``header(upload's header)`` is the output's, when it adds columns."""
    try:
        with upload.file.open("rb") as handle:
            source = CsvSource(handle)
            columns, delimiter = source.header, source.delimiter
            spans = record_spans(handle, settings.JOB_CHUNK_BYTES, delimiter)
        total = upload.metadata.get("rows") or 0
        with output.open("w", encoding="utf-8", newline="") as out:
            writer = csv_writer(out, delimiter, neutralize=settings.CSV_NEUTRALIZE_FORMULAS)
            writer.writerow(columns if header is None else header(columns))
            if len(spans) <= 1:
                with upload.file.open("rb") as handle:
                    source = CsvSource(handle)
                    records = Counted(record for batch in source.batches() for record in batch)
                    state = rewrite(columns, records, writer, lambda done: run.progress(
                        done, max(total, done), f"{what}: {done:,} of {max(total, done):,} rows"))
                return [Part(0, records.count, state)]
            parts, before = [], 0
            for blob in run.fan_out(spans, progress=lambda done, count, message: run.progress(
                    done, count, f"{what}: {message}")):
                part = json.loads(zlib.decompress(blob))
                out.write(part["csv"])
                parts.append(Part(before, part["rows"], part["state"]))
                before += part["rows"]
            return parts
    except CsvFormatError as exc:
        raise UserFacingError(f"{upload.original_name}: {exc}") from exc
    except MissingColumn as exc:
        raise UserFacingError(str(exc)) from exc


def rewrite_part(job: Job, work: ChunkWork, rewrite: Rewrite) -> bytes:
    """One part of ``rewrite_csv``, on any worker: its rows rewritten, with the rewrite's state, compressed
    for the job's own task to gather."""
    upload = job.inputs.get()
    try:
        with upload.file.open("rb") as handle:
            source = CsvSource(handle)
            part = rewrite_span(handle, work.start, work.end, rewrite, header=source.header,
                                delimiter=source.delimiter, neutralize=settings.CSV_NEUTRALIZE_FORMULAS,
                                progress=lambda done: work.check())
    except CsvFormatError as exc:  # the file was checked whole when it was uploaded: a cut in the wrong place
        raise UserFacingError(f"{upload.original_name}, bytes {work.start:,} to {work.end:,}: {exc.message}") from exc
    except MissingColumn as exc:
        raise UserFacingError(str(exc)) from exc
    return zlib.compress(json.dumps({"rows": part.rows, "csv": part.csv, "state": part.state},
                                    ensure_ascii=False).encode("utf-8"))
