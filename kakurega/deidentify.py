"""Every post of a CSV file or a DataFrame de-identified, as the web's de-identify-posts job does it (no server):
the released text in its cell, and per text column a verdict column (pass, review, places, fail) and a review
column (the names no scorer could resolve). ``deidentify_csv`` writes the job's file byte for byte, on as many
processes as asked; ``deidentify_frame`` returns a DataFrame.

The report of ``deidentify_csv`` is the job's report (``<name>.deidentified.report.json``) but for what only a
server has or what depends on the run: ``model`` names the model (``name``, ``threshold``, ``strength``,
``human_model``) and gives the folder it was read from (``path``) instead of the server's ``id`` and ``version``;
``options.time_patterns`` is always null (a patterns job lives on a server); ``seconds`` is this run's time and
``parts`` the number of parts this run cut the file into (0 for one), which depend on the machine and options, not
on the released file."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from time import perf_counter
from typing import TYPE_CHECKING, Any

from anonymizer.location.model import LocationModel
from anonymizer.location.options import PLACE_POLICIES, REPLACEMENTS, InspectOptions
from anonymizer.location.posts_file import (
    REVIEW_SEPARATOR,
    PostsRelease,
    TimeStep,
    added_columns,
    check_verdicts,
    release_report,
    review_column,
    taken_columns,
    taken_message,
    verdict_column,
    verdicts_in,
)
from anonymizer.location.review import warm_up
from anonymizer.location.verdict import model_strength
from anonymizer.tabular import chosen_columns
from anonymizer.tabular.reader import CsvFormatError, CsvSource
from anonymizer.tabular.rewrite import Part, gather, rewrite_file, start_method
from anonymizer.temporal import removal as time_removal
from kakurega.checks import DeidentifyError, located, posts_header
from kakurega.config import ReleaseSettings
from kakurega.location_models import default_model_for, load_location_model

if TYPE_CHECKING:
    import pandas as pd

Progress = Callable[[int, int, str], None]
#: Posts read from the text columns to choose the default model when none is named (the language most of them
#: are in).
LANGUAGE_SAMPLE = 200
WARM_UP_POST = "Chicago tomorrow at 5pm"
_NOT_ENGLISH_ADVICE = "remove or translate those rows, or run again without removing time."


def deidentify_csv(path: str | Path, output: str | Path, *, column: str | Sequence[str] = "text",
                   model: str | Path | LocationModel | None = None, processes: int = 1,
                   keep_words: Sequence[str] = (), replacement: str = "delete", places: str = "all",
                   remove_time: bool = False, time: time_removal.TimeRemovalOptions | None = None,
                   chunk_bytes: int | None = None, progress: Progress | None = None) -> dict:
    """De-identify every post of the CSV file ``path`` into ``output`` (the de-identify-posts job's file, byte for
    byte) and return its report. ``column``: the text column, or a list of them; ``model``: a default model's name
    ("tokyo-ja", "us-midwest-en"), a model folder, a loaded LocationModel (on macOS and Windows with one process
    only), or None for the
    default model of the posts' language; ``processes``: how many processes of this machine share the file.
    The other options are the inspect page's (automatic mode). DeidentifyError on bad input (a missing column, a
    column the release would add already there, a bad row, a post that is not English with ``remove_time``);
    nothing is written at ``output`` then."""
    started = perf_counter()
    path, output = Path(path), Path(output)
    names = [column] if isinstance(column, str) else list(dict.fromkeys(column))
    _checked_header(path, names)
    loaded, reference = _model(model, path, names, progress, processes)
    options, time_options = _options(loaded, keep_words, replacement, places, remove_time, time)
    builder = ReleaseBuilder(reference, tuple(names), path.name, options, time_options,
                             ReleaseSettings.from_environment().temporal_use_ner, loaded if reference is None else None)

    def check(parts: Sequence[Part], written: Path) -> None:  # before the file takes its name
        counts, _, refused = gather(parts)
        if refused:
            raise DeidentifyError(time_removal.not_english_message(path.name, refused, _NOT_ENGLISH_ADVICE))
        check_verdicts(counts, verdicts_in(written, names))

    try:
        parts = rewrite_file(path, output, builder, header=lambda columns: [*columns, *added_columns(names)],
                             processes=processes, chunk_bytes=chunk_bytes,
                             neutralize=ReleaseSettings.from_environment().neutralize_formulas,
                             progress=_progress_of(progress), check=check)
    except CsvFormatError as exc:
        raise DeidentifyError(located(path, exc)) from exc
    counts, _, _ = gather(parts)
    return release_report(input_name=path.name, rows=sum(part.rows for part in parts), names=names, counts=counts,
                          released=verdicts_in(output, names), model=_model_report(loaded, reference),
                          options=_report_options(options, time_options), seconds=perf_counter() - started,
                          parts=len(parts))


@dataclass(frozen=True)
class ReleaseBuilder:
    """Builds the rewrite of a file's posts once per process (``anonymizer.tabular.rewrite.MakeRewrite``): the
    model read from ``model`` (a default model's name or a folder) unless ``loaded`` is given (this process only),
    the time anonymizer when ``time`` is set."""

    model: str | None
    columns: tuple[str, ...]
    file_name: str
    options: InspectOptions
    time: time_removal.TimeRemovalOptions | None
    use_ner: bool
    loaded: LocationModel | None = field(default=None, compare=False)

    def __call__(self):
        return self.release().rewrite

    def release(self) -> PostsRelease:
        model = self.loaded if self.loaded is not None else load_location_model(self.model)
        step = None
        if self.time is not None:
            step = TimeStep(time_removal.time_anonymizer(self.time, use_ner=self.use_ner),
                            time_removal.not_english_rows)
        release = PostsRelease(model=model, columns=self.columns, file_name=self.file_name, options=self.options,
                               time=step)
        # What a first post builds lazily (the tokenizer, the gazetteer index, the review's word lists, the time
        # parser: seconds), built now, as the web's workers do on loading a model: processes forked from this one
        # start with it.
        release.inspect(WARM_UP_POST)
        warm_up(model.language)
        return release

    def __getstate__(self) -> dict:
        if self.loaded is not None:
            raise TypeError("a loaded LocationModel is used by this process only: name the model (or its folder) "
                            "to share the file among processes")
        return self.__dict__


def deidentify_frame(df: pd.DataFrame, column: str | Sequence[str] = "text", *,
                     model: str | Path | LocationModel | None = None, keep_words: Sequence[str] = (),
                     replacement: str = "delete", places: str = "all", remove_time: bool = False,
                     time: time_removal.TimeRemovalOptions | None = None) -> pd.DataFrame:
    """A copy of ``df`` with each post of the text column(s) released as ``deidentify_csv`` releases it, and per
    text column two columns after the frame's own: ``<column>_location_verdict`` (pass, review, places or fail;
    empty for an empty post) and ``<column>_location_review`` (the list of names no scorer could resolve, for
    the reader to check). A missing value is an empty post. Options as ``deidentify_csv``; DeidentifyError on
    bad input (a row is named by its index label)."""
    import pandas as pd

    names = [column] if isinstance(column, str) else list(dict.fromkeys(column))
    _, missing = chosen_columns(names, [str(name) for name in df.columns], "the DataFrame")
    taken = taken_columns([str(name) for name in df.columns], names)
    if missing or taken:
        raise DeidentifyError(missing[0] if missing else taken_message("the DataFrame", taken[0]))
    records = [["" if pd.isna(value) else str(value) for value in row]
               for row in df[names].itertuples(index=False, name=None)]
    texts = [text for record in records for text in record if text.strip()]
    loaded = _loaded_model(model if model is not None else default_model_of(texts), None)
    options, time_options = _options(loaded, keep_words, replacement, places, remove_time, time)
    builder = ReleaseBuilder(None, tuple(names), "the DataFrame", options, time_options,
                             ReleaseSettings.from_environment().temporal_use_ner, loaded)
    written: list[list[str]] = []
    state = builder()(names, records, _Collect(written), lambda done: None)
    if state["refused"]:
        labels = [(df.index[row], name, reason) for row, name, reason in state["refused"]]
        raise DeidentifyError(time_removal.not_english_message("the DataFrame", labels, _NOT_ENGLISH_ADVICE)
                              .replace("(rows ", "(index ").replace("; row ", "; index "))
    out = df.copy()
    for n, name in enumerate(names):
        out[name] = [row[n] if records[i][n].strip() else df[name].iloc[i] for i, row in enumerate(written)]
    width = len(names)
    for n, name in enumerate(names):
        out[verdict_column(name)] = [row[width + 2 * n] for row in written]
        out[review_column(name)] = [row[width + 2 * n + 1].split(REVIEW_SEPARATOR) if row[width + 2 * n + 1]
                                    else [] for row in written]
    return out


class _Collect:
    """A csv writer's ``writerow``/``writerows`` that keeps the rows (a frame's release is not a file)."""

    def __init__(self, rows: list[list[str]]) -> None:
        self.rows = rows

    def writerow(self, row: Sequence[Any]) -> None:
        self.rows.append(list(row))

    def writerows(self, rows) -> None:
        self.rows.extend(list(row) for row in rows)


def _checked_header(path: Path, names: list[str]) -> None:
    """DeidentifyError naming the file and what was expected unless the text columns are in its header and none
    of the columns the release adds is."""
    header = posts_header(path, names)
    taken = taken_columns(header, names)
    if taken:
        raise DeidentifyError(taken_message(path.name, taken[0]))


def _model(model: str | Path | LocationModel | None, path: Path, names: list[str], progress: Progress | None,
           processes: int) -> tuple[LocationModel, str | None]:
    """The model, and how another process reads it (None: only this process has it)."""
    if isinstance(model, LocationModel):
        if processes > 1 and start_method() != "fork":
            raise DeidentifyError("model: a loaded LocationModel is used by this process only; name the model, or "
                                  "its folder, to share the file among processes")
        return model, None
    reference = str(model) if model is not None else default_model_of(_first_posts(path, names))
    return _loaded_model(reference, progress), reference


def first_posts_model(path: str | Path, columns: Sequence[str]) -> str:
    """The default model for the language most of the file's first posts are in; DeidentifyError naming the
    file and what was expected when it cannot be read or lacks a column."""
    path = Path(path)
    _checked_header(path, list(columns))
    return default_model_of(_first_posts(path, list(columns)))


def default_model_of(texts: Sequence[str]) -> str:
    """The default model of the language most of ``texts`` are in (the first of them: LANGUAGE_SAMPLE)."""
    chosen = [default_model_for(text) for text in texts[:LANGUAGE_SAMPLE]] or [default_model_for("")]
    return max(dict.fromkeys(chosen), key=chosen.count)


def _loaded_model(model: str | Path | LocationModel, progress: Progress | None) -> LocationModel:
    if isinstance(model, LocationModel):
        return model
    try:
        return load_location_model(str(model), progress=progress)
    except ValueError as exc:
        raise DeidentifyError(str(exc)) from exc


def _first_posts(path: Path, names: list[str]) -> list[str]:
    """The first LANGUAGE_SAMPLE non-empty posts of the text columns."""
    texts: list[str] = []
    with path.open("rb") as handle:
        source = CsvSource(handle)
        indices = [source.header.index(name) for name in names]
        try:
            for batch in source.batches():
                texts.extend(row[i] for row in batch for i in indices if row[i].strip())
                if len(texts) >= LANGUAGE_SAMPLE:
                    break
        except CsvFormatError:  # the posts before the bad row choose; the release names the row
            pass
    return texts[:LANGUAGE_SAMPLE]


def _options(model: LocationModel, keep_words: Sequence[str], replacement: str, places: str, remove_time: bool,
             time: time_removal.TimeRemovalOptions | None,
             ) -> tuple[InspectOptions, time_removal.TimeRemovalOptions | None]:
    """The inspect options (checked as the web checks them) and, with remove_time, the time options."""
    time_options = (time or time_removal.TimeRemovalOptions()) if remove_time else None
    if time_options is not None and model.language != time_removal.LANGUAGE:
        raise DeidentifyError(f"remove_time: time expressions are found in English posts only; the model "
                              f"{model.name!r} is for {model.language!r} posts.")
    for name, value, choices in (("replacement", replacement, REPLACEMENTS), ("places", places, PLACE_POLICIES)):
        if value not in choices:
            raise DeidentifyError(f"{name}: {value!r} is not one of {', '.join(map(repr, choices))}")
    options = InspectOptions(keep_words=tuple(keep_words), replacement=replacement, places=places, model=model.name,
                             remove_time=remove_time,
                             time=_time_params(time_options) if time_options is not None else {})
    return options, time_options


def _time_params(options: time_removal.TimeRemovalOptions) -> dict:
    return {"time_mode": options.time_mode, "keep_time": list(options.keep_time),
            "remove_how_long": options.remove_how_long}


def _report_options(options: InspectOptions, time_options: time_removal.TimeRemovalOptions | None) -> dict:
    """The report's options, under the job's names."""
    shown = time_options or time_removal.TimeRemovalOptions()
    return {"remove_time": options.remove_time, "time_mode": shown.time_mode, "keep_time": list(shown.keep_time),
            "remove_how_long": shown.remove_how_long, "time_patterns": None, "replacement": options.replacement,
            "places": options.places, "keep": list(options.keep_words)}


def _model_report(model: LocationModel, reference: str | None) -> dict:
    path = None
    if reference is not None:
        from kakurega.location_models import DEFAULT_SPECS, default_model_directory

        path = str(default_model_directory(reference) if reference in DEFAULT_SPECS else Path(reference).resolve())
    return {"name": model.name, "path": path, "threshold": model.threshold.value,
            "strength": model_strength(model.metadata), "human_model": False}


def _progress_of(progress: Progress | None) -> Progress | None:
    if progress is None:
        return None
    return lambda done, total, message: progress(done, total, f"de-identifying posts: {message}")
