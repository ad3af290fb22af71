"""Time expressions removed from the posts of a CSV file or of a DataFrame's column, here (no server): the work of
the web's remove-time job (``anonymizer.temporal.dataset``), so a file written here is byte for byte the job's
output for the same input and options, on one process or several.

A file with posts that are not English is refused whole (``NotEnglish``, naming their rows as the job does), and
nothing is written: the output and the report take their names only when everything went right."""

from __future__ import annotations

import json
import os
import tempfile
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING, Any

from anonymizer.tabular.reader import CsvSource
from anonymizer.tabular.rewrite import Part, column_indices, rewrite_file
from anonymizer.temporal.dataset import LocationStep, TimeRemoval, outcome
from anonymizer.temporal.removal import (
    DEFAULTS,
    KINDS,
    LANGUAGE,
    MAX_TOP,
    TIME_MODES,
    TimeRemovalOptions,
    not_english_message,
    time_anonymizer,
    top_patterns,
)
from kakurega.config import ReleaseSettings

if TYPE_CHECKING:
    import pandas as pd

    from anonymizer.temporal.anonymize import TemporalAnonymizer

__all__ = ["NotEnglish", "remove_time_csv", "remove_time_frame", "time_removal_options"]

WHAT_TO_DO = "remove or translate those rows and run it again."
Progress = Callable[[int, int, str], None]


class NotEnglish(ValueError):
    """Posts that are not English: time expressions are removed from English posts only. The message is the web
    job's: how many, their rows (the header is row 1), the first one's column and why."""


def time_removal_options(*, time_mode: str = DEFAULTS.time_mode, keep_time: Iterable[str] = DEFAULTS.keep_time,
                         remove_how_long: bool = DEFAULTS.remove_how_long, time_patterns: str | Path | None = None,
                         time_patterns_top: int = DEFAULTS.time_patterns_top) -> TimeRemovalOptions:
    """The options checked as the web job checks them (ValueError naming the option and what it expects).
    ``time_patterns``: the JSON result of a "learn temporal patterns" job (``*.temporal-patterns.json``)."""
    if time_mode not in TIME_MODES:
        raise ValueError(f"time_mode: expected one of {', '.join(TIME_MODES)}, not {time_mode!r}")
    keep = tuple(keep_time)
    if unknown := [kind for kind in keep if kind not in KINDS]:
        raise ValueError(f"keep_time: expected granularities among {', '.join(KINDS)}, not {unknown[0]!r}")
    if not 1 <= time_patterns_top <= MAX_TOP:
        raise ValueError(f"time_patterns_top: expected a number from 1 to {MAX_TOP}, not {time_patterns_top}")
    return TimeRemovalOptions(time_mode=time_mode, keep_time=keep, remove_how_long=bool(remove_how_long),
                              time_patterns=str(time_patterns) if time_patterns else None,
                              time_patterns_top=time_patterns_top)


def _known_patterns(options: TimeRemovalOptions) -> tuple[tuple[str, int], ...] | None:
    """The top patterns of the options' patterns file (pattern, count), or None for every removable subtree."""
    if not options.time_patterns:
        return None
    path = Path(options.time_patterns)
    expected = "the JSON result of a 'learn temporal patterns' job (a .temporal-patterns.json file)"
    try:
        learned = json.loads(path.read_text(encoding="utf-8"))
        return tuple(top_patterns(learned, options.time_patterns_top).items())
    except OSError as exc:
        raise ValueError(f"time_patterns: {path}: {exc.strerror or exc}; expected {expected}") from exc
    except (ValueError, KeyError, TypeError) as exc:
        raise ValueError(f"time_patterns: {path}: expected {expected}") from exc


@cache
def _anonymizer(options: TimeRemovalOptions, known: tuple[tuple[str, int], ...] | None,
                use_ner: bool) -> TemporalAnonymizer:
    return time_anonymizer(options, use_ner=use_ner, known_patterns=dict(known) if known is not None else None)


@cache
def _location_step(ref: str) -> LocationStep:
    """The location model ``ref`` names (a default model's name, trained on first use, or a model folder), once
    per process. The report names it as given. ValueError for a model of another language, as the job says it."""
    from kakurega.location_models import load_location_model

    model = load_location_model(ref)
    if model.language != LANGUAGE:
        raise ValueError(f"location_model: Time expressions are found in English posts only; the model {ref!r} is "
                         f"for {model.language!r} posts. Choose an English model (language {LANGUAGE!r}).")
    return LocationStep(model, (), {"name": ref})


@dataclass(frozen=True)
class _TimeRewrite:
    """Builds a process's rewrite (``rewrite_file`` sends it to each process, so it holds only what pickles:
    the options, the columns and the location model's name; each process loads the parser and the model).
    ``use_ner``: the environment's TEMPORAL_USE_NER, read once by the first process."""

    options: TimeRemovalOptions
    known: tuple[tuple[str, int], ...] | None
    columns: tuple[str, ...]
    location_model: str | None
    file_name: str
    use_ner: bool

    def removal(self) -> TimeRemoval:
        location = _location_step(self.location_model) if self.location_model else None
        return TimeRemoval(self.options, self.columns, location)

    def __call__(self):
        return self.removal().rewrite(_anonymizer(self.options, self.known, self.use_ner), self.file_name)


def _columns(column: str | Sequence[str]) -> tuple[str, ...]:
    names = tuple(dict.fromkeys([column] if isinstance(column, str) else column))
    if not names:
        raise ValueError("column: expected at least one text column")
    return names


def remove_time_csv(path: str | Path, output: str | Path, *, column: str | Sequence[str] = "text",
                    report: str | Path | None = None, processes: int = 1, time_mode: str = DEFAULTS.time_mode,
                    keep_time: Iterable[str] = DEFAULTS.keep_time, remove_how_long: bool = DEFAULTS.remove_how_long,
                    time_patterns: str | Path | None = None, time_patterns_top: int = DEFAULTS.time_patterns_top,
                    location_model: str | None = None, chunk_bytes: int | None = None,
                    progress: Progress | None = None) -> dict:
    """Remove the time expressions of the text ``column``(s) of the CSV file ``path`` into ``output`` (the remove-
    time job's file: header and rows in order, only the text cells changed) and return the job's report (counts
    per column, the options), also written to ``report`` when given. ``processes`` share the file's parts; the file
    is the same whatever their number. ``location_model`` (a default model's name or a model folder) also
    de-identifies each post's location after its time expressions are gone.

    Raises CsvFormatError (row and column) for a file that is not an acceptable CSV, MissingColumn, NotEnglish,
    ValueError for an option."""
    started = time.perf_counter()
    source = Path(path)
    options = time_removal_options(time_mode=time_mode, keep_time=keep_time, remove_how_long=remove_how_long,
                                   time_patterns=time_patterns, time_patterns_top=time_patterns_top)
    release = ReleaseSettings.from_environment()  # as the web app reads them: the same bytes as its job
    maker = _TimeRewrite(options, _known_patterns(options), _columns(column), location_model, source.name,
                         release.temporal_use_ner)
    with source.open("rb") as handle:  # a missing column is named before any model loads
        column_indices(CsvSource(handle).header, maker.columns, source.name)
    if location_model:  # a default model's first use trains it: under the progress bar, before the parts start
        from kakurega.location_models import load_location_model

        load_location_model(location_model, progress=_prefixed(progress, f"location model {location_model}"))
    removal = maker.removal()

    def refuse_other_languages(parts: Sequence[Part], written: Path) -> None:
        if refused := outcome(removal, source.name, parts, 0).refused:
            raise NotEnglish(not_english_message(source.name, refused, WHAT_TO_DO))

    parts = rewrite_file(source, Path(output), maker, processes=processes, chunk_bytes=chunk_bytes,
                         neutralize=release.neutralize_formulas, check=refuse_other_languages,
                         progress=_prefixed(progress, "removing time expressions"))
    done = outcome(removal, source.name, parts, time.perf_counter() - started)
    if report is not None:
        _write_atomically(Path(report), json.dumps(done.report, indent=1, ensure_ascii=False).encode())
    return done.report


def _prefixed(progress: Progress | None, stage: str) -> Progress | None:
    """``progress`` with the stage its messages are about."""
    if progress is None:
        return None
    return lambda done, total, message: progress(done, total, f"{stage}: {message}")


def _write_atomically(path: Path, data: bytes) -> None:
    descriptor, temporary = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".part", dir=path.parent)
    try:
        with open(descriptor, "wb") as out:
            out.write(data)
        os.replace(temporary, path)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise


class _Rows:
    """A writer that keeps the rows a rewrite writes."""

    def __init__(self) -> None:
        self.rows: list[list[str]] = []

    def writerows(self, rows: Iterable[list[str]]) -> None:
        self.rows.extend(list(row) for row in rows)


def remove_time_frame(df: pd.DataFrame, column: str | Sequence[str] = "text", *,
                      time_mode: str = DEFAULTS.time_mode, keep_time: Iterable[str] = DEFAULTS.keep_time,
                      remove_how_long: bool = DEFAULTS.remove_how_long, time_patterns: str | Path | None = None,
                      time_patterns_top: int = DEFAULTS.time_patterns_top,
                      location_model: str | None = None) -> pd.DataFrame:
    """A copy of ``df`` with the time expressions of its text ``column``(s) removed, cell by cell as the job
    rewrites them (a missing value stays missing; other columns, the index and the row order are kept). The job's
    report is in the result's ``attrs["report"]``. Cells are not formula-neutralized: that is for a CSV file.
    Raises KeyError for a missing column, NotEnglish (rows named by ``df``'s index labels), ValueError for an
    option."""
    options = time_removal_options(time_mode=time_mode, keep_time=keep_time, remove_how_long=remove_how_long,
                                   time_patterns=time_patterns, time_patterns_top=time_patterns_top)
    names = _columns(column)
    if missing := [name for name in names if name not in df.columns]:
        raise KeyError(f"the DataFrame has no column {missing[0]!r}; its columns are: "
                       f"{', '.join(map(str, df.columns))}")
    started = time.perf_counter()
    maker = _TimeRewrite(options, _known_patterns(options), names, location_model, "DataFrame",
                         ReleaseSettings.from_environment().temporal_use_ner)
    removal = maker.removal()
    cells = df[list(names)]
    rows = [["" if _missing(value) else str(value) for value in row] for row in cells.itertuples(index=False)]
    written = _Rows()
    state = maker()(list(names), rows, written, lambda done: None)
    done = outcome(removal, "DataFrame", [Part(0, len(rows), state)], time.perf_counter() - started)
    if done.refused:
        labels = [(df.index[row - 2], name, why) for row, name, why in done.refused]
        raise NotEnglish(not_english_message("DataFrame", labels, WHAT_TO_DO).replace("(rows ", "(index ", 1)
                         .replace("; row ", "; index ", 1))
    result = df.copy()
    for position, name in enumerate(names):
        original = cells[name]
        result[name] = [value if _missing(value) or row[position] == str(value) else row[position]
                        for value, row in zip(original, written.rows, strict=True)]
    result.attrs["report"] = done.report
    return result


def _missing(value: Any) -> bool:
    import pandas as pd

    return value is None or (not isinstance(value, str) and bool(pd.isna(value)))
