"""Training a location model from a corpus file, without Django: what to train (columns, rows, grid, language),
reading the posts, and the default models of `make run` (their spec's corpus in the data folder, trained and
calibrated). The web's training job, `manage.py train_location_model`, the bootstrap and the ``kakurega`` command
and API all train through here, so a model has the same bytes whichever of them trained it."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import BinaryIO

from anonymizer.location.calibration import train_calibrated_model
from anonymizer.location.corpus import ColumnMap, CorpusReport, Post, open_corpus, read_corpus
from anonymizer.location.defaults import ModelSpec
from anonymizer.location.model import LocationModel, train_location_model
from anonymizer.location.tokenize import TokenizerSettings, detect_language
from anonymizer.platform.grid import Grid
from anonymizer.threads import one_thread

Progress = Callable[[int, int, str], None]
DefaultTraining = Callable[[ModelSpec, Sequence[Post]], LocationModel]


@dataclass(frozen=True)
class TrainingRequest:
    """Everything needed to train a model from a corpus file."""

    name: str
    title: str
    language: str  # "ja", "en" or "auto"
    grid: Grid
    columns: ColumnMap
    where: Mapping[str, Sequence[str]]
    C: float = 1.0
    min_df: int = 2


def parse_where(clauses: Sequence[str]) -> dict[str, tuple[str, ...]]:
    """``COLUMN=VALUE1,VALUE2`` clauses (keep only rows whose column holds one of the values) as a request's
    ``where``. Raises ValueError naming the clause and what was expected."""
    where: dict[str, tuple[str, ...]] = {}
    for clause in clauses:
        column, sep, values = clause.partition("=")
        if not sep or not column or not values:
            raise ValueError(f"--where {clause!r}: expected COLUMN=VALUE1,VALUE2")
        where[column] = tuple(v for v in values.split(",") if v)
    return where


def read_posts(fileobj: BinaryIO, request: TrainingRequest, *, name: str = "",
               progress: Progress | None = None) -> tuple[list[Post], CorpusReport]:
    """The corpus's accepted posts and the report of what was rejected. A malformed file raises CsvFormatError
    (its row and column)."""
    report = CorpusReport()
    posts: list[Post] = []
    for post in read_corpus(fileobj, columns=request.columns, grid=request.grid, report=report, name=name,
                            where={k: set(v) for k, v in request.where.items()} or None):
        posts.append(post)
        if progress is not None and len(posts) % 20_000 == 0:
            progress(0, 100, f"reading the corpus: {len(posts):,} posts")
    return posts, report


def choose_language(request: TrainingRequest, posts: Sequence[Post]) -> str:
    if request.language != "auto":
        return request.language
    sample = [detect_language(post.text) for post in posts[:500]]
    return max(set(sample), key=sample.count)


def train_from_corpus(fileobj: BinaryIO, request: TrainingRequest, *, name: str = "",
                      progress: Progress | None = None) -> tuple[LocationModel, CorpusReport]:
    """Read the corpus and train (held-out evaluation, the paper's threshold); the model's metadata keeps the
    corpus report. Raises CsvFormatError for a malformed file, ValueError when the posts cannot train a model."""
    posts, report = read_posts(fileobj, request, name=name, progress=progress)
    language = choose_language(request, posts)
    model = train_location_model(posts, name=request.name, grid=request.grid,
                                 tokenizer_settings=TokenizerSettings.current(language), C=request.C,
                                 min_df=request.min_df, progress=progress)
    model.metadata["corpus_report"] = report.as_dict()
    return model, report


def train_default_model(spec: ModelSpec, posts: Sequence[Post], progress: Progress | None = None) -> LocationModel:
    """A default model trained from its corpus's posts, as the spec says, its threshold calibrated against an
    independent attacker on the held-out posts."""
    return train_calibrated_model(posts, name=spec.name, grid=spec.grid, tokenizer_settings=spec.tokenizer_settings,
                                  progress=progress)


def build_default_model(spec: ModelSpec, data_dir: Path, *, fingerprint: str | None = None,
                        train: DefaultTraining | None = None, progress: Progress | None = None) -> LocationModel:
    """The default model of ``spec`` from its corpus in ``data_dir``: trained (by ``train``, else
    train_default_model), its metadata recording the spec's fingerprint (what the bootstrap and the user cache
    compare to know it is current), the corpus report and the corpus file."""
    fingerprint = spec.fingerprint(data_dir) if fingerprint is None else fingerprint
    request = TrainingRequest(name=spec.name, title=spec.title, language=spec.language, grid=spec.grid,
                              columns=spec.columns, where=spec.where)
    with open_corpus(data_dir / spec.corpus) as fileobj:
        posts, report = read_posts(fileobj, request, name=spec.corpus, progress=progress)
    with one_thread():  # the same bytes whatever door trains it, in whatever process (anonymizer/threads.py)
        model = train(spec, posts) if train is not None else train_default_model(spec, posts, progress=progress)
    model.metadata.update(spec_fingerprint=fingerprint, corpus_report=report.as_dict(), corpus=spec.corpus)
    return model
