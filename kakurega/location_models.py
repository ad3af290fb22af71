"""Location models for the ``kakurega`` command and API: the default models (trained on first use into the user's
cache, the same bytes `make run`'s bootstrap trains), a model directory of one's own, training one from a corpus
file, and the attacker evaluation of the de-identifier.

A default model lives in ``cache_dir()/models/<name>/<fingerprint>``, the fingerprint of its spec and corpus
(``ModelSpec.fingerprint``): new data or a new way of training makes a new directory. One process trains it, the
others wait on a lock file and then read it; it is written beside its place and renamed, so a directory holding
``model.json`` is always a whole model."""

from __future__ import annotations

import contextlib
import fcntl
import logging
import shutil
import threading
import uuid
from collections.abc import Callable, Iterator, Mapping, Sequence
from pathlib import Path

from anonymizer.location import protection
from anonymizer.location.corpus import ColumnMap, open_corpus
from anonymizer.location.defaults import DEFAULT_MODELS, GAZETTEER, ModelSpec
from anonymizer.location.model import LocationModel
from anonymizer.location.options import DEFAULT_OPTIONS
from anonymizer.location.tokenize import detect_language
from anonymizer.location.training import TrainingRequest, build_default_model, train_from_corpus
from anonymizer.platform.grid import Grid
from kakurega.paths import cache_dir, data_dir

logger = logging.getLogger(__name__)

Progress = Callable[[int, int, str], None]
#: The default models by name: what ``--model`` and ``load_location_model`` accept besides a directory.
DEFAULT_SPECS: dict[str, ModelSpec] = {spec.name: spec for spec in DEFAULT_MODELS}
DEFAULT_MODEL = "tokyo-ja"

# Models loaded by this process, by directory: a notebook's second call, or a command's second file, reads none.
_loaded: dict[Path, LocationModel] = {}
_loading = threading.Lock()


def default_model_for(text: str) -> str:
    """The name of the default model for a text's language (what the web does when no model is named)."""
    language = detect_language(text)
    return next((spec.name for spec in DEFAULT_MODELS if spec.language == language), DEFAULT_MODEL)


def default_model_directory(name: str) -> Path:
    """Where the default model ``name`` is (or will be) kept for the current data: it depends on the spec and
    its corpus, so it moves when either changes."""
    spec = _spec(name)
    return cache_dir() / "models" / spec.name / _fingerprint(spec, data_dir())


# Fingerprints by spec, data folder and the stat of the files they hash: hashing the corpus and the gazetteer
# took 4.5 ms a call, paid by every kakurega.inspect(text, model=name) of a notebook's loop.
_fingerprints: dict[tuple, str] = {}


def _fingerprint(spec: ModelSpec, data: Path) -> str:
    key = (spec.name, data, *(_stamp(data / name) for name in (spec.corpus, GAZETTEER)))
    if key not in _fingerprints:
        _fingerprints[key] = spec.fingerprint(data)
    return _fingerprints[key]


def _stamp(path: Path) -> tuple[int, int] | None:
    """A file's modification time and size (None when it is absent): a new file, a new fingerprint."""
    try:
        stat = path.stat()
    except FileNotFoundError:
        return None
    return stat.st_mtime_ns, stat.st_size


def load_location_model(ref: str = DEFAULT_MODEL, *, progress: Progress | None = None) -> LocationModel:
    """The location model ``ref`` names: a default model's name (``"tokyo-ja"``, ``"us-midwest-en"``), trained
    from the shipped data on first use and kept in the user's cache, or the path of a model directory (one that
    ``LocationModel.save`` or ``kakurega train-location`` wrote). ``progress(done, total, message)`` hears how a
    first-use training goes. Raises ValueError naming what was expected when ``ref`` is neither."""
    if ref in DEFAULT_SPECS:
        directory = default_model_directory(ref)
        if not (directory / "model.json").exists():
            _train_default(DEFAULT_SPECS[ref], directory, progress)
    else:
        directory = Path(ref).expanduser()
        if not (directory / "model.json").is_file():
            raise ValueError(f"model {ref!r}: expected one of {', '.join(DEFAULT_SPECS)} or a model directory "
                             f"(holding model.json), and {directory} is not one")
    directory = directory.resolve()
    with _loading:
        if directory not in _loaded:
            _loaded[directory] = LocationModel.load(directory)
        return _loaded[directory]


def train_location_model(corpus: str | Path, *, name: str, bbox: tuple[float, float, float, float],
                         rows: int = 20, cols: int = 10, language: str = "auto",
                         columns: ColumnMap | Mapping[str, str | None] | None = None,
                         where: Mapping[str, Sequence[str]] | None = None,
                         C: float = 1.0, min_df: int = 2, output: str | Path | None = None,
                         progress: Progress | None = None) -> LocationModel:
    """A location model trained on ``corpus`` (CSV or JSON Lines, gzip accepted) as ``manage.py
    train_location_model`` and the web's training job train one: the posts inside ``bbox`` (south, west, north,
    east) on a ``rows`` x ``cols`` grid, 60% to train, 40% held out to evaluate, the paper's threshold.
    ``columns`` names the text, latitude and longitude columns (and id, user, time), a ColumnMap or a dict like
    ``{"text": "body"}`` (the others keep their names: text, lat, lon); ``where`` keeps only rows
    whose column holds one of the values. With ``output``, the model is saved there (a new folder), for
    ``load_location_model(output)`` and ``--model DIR``.

    Raises CsvFormatError (a ValueError) naming the row and column of a malformed file, ValueError for a bad grid
    or posts that cannot train a model, FileExistsError when ``output`` exists and is not an empty folder."""
    grid = Grid(*bbox, rows=rows, cols=cols)
    if language not in ("auto", "ja", "en"):
        raise ValueError(f"language must be auto, ja or en, not {language!r}")
    if not isinstance(columns, ColumnMap):
        columns = ColumnMap(**(columns or {}))
    request = TrainingRequest(name=name, title=name, language=language, grid=grid, columns=columns,
                              where={k: tuple(v) for k, v in (where or {}).items()}, C=C, min_df=min_df)
    target = None if output is None else _free_folder(Path(output))
    with open_corpus(corpus) as fileobj:
        model, _ = train_from_corpus(fileobj, request, name=str(corpus), progress=progress)
    if target is not None:
        _save(model, target)
    return model


def evaluate_protection(model: str = DEFAULT_MODEL, *, max_posts: int = 1000, seed: int = 0, examples: int = 20,
                        replacement: str = DEFAULT_OPTIONS.replacement, places: str = DEFAULT_OPTIONS.places,
                        progress: Progress | None = None) -> dict:
    """Does de-identification protect? On the corpus of the default model ``model``: a defender and independent
    attackers trained on disjoint posts, ``max_posts`` test posts de-identified (``replacement``, ``places``) and
    every attacker scored on them before and after (``manage.py evaluate_location_protection``; the web's
    evaluation job). Returns the JSON-able result; ``protection_table(result)`` prints it as the command does."""
    if max_posts < 1 or examples < 0:
        raise ValueError("max_posts must be at least 1 and examples at least 0")
    return protection.evaluate_default_protection(_spec(model), data_dir(), replacement=replacement, places=places,
                                                  seed=seed, max_test_posts=max_posts, examples=examples,
                                                  progress=progress)


protection_table = protection.protection_table


def _free_folder(path: Path) -> Path:
    """``path`` when a model can be saved there (it does not exist, or is an empty folder), checked before a
    long training."""
    if path.exists() and not (path.is_dir() and not any(path.iterdir())):
        raise FileExistsError(f"{path}: already exists; the model is saved into a new (or empty) folder")
    return path


def _save(model: LocationModel, target: Path) -> None:
    """Save beside ``target`` and rename: no half-written model folder is ever left there."""
    target.parent.mkdir(parents=True, exist_ok=True)
    partial = target.with_name(f".{target.name}.{uuid.uuid4().hex}.partial")
    try:
        model.save(partial)
        if target.is_dir():
            target.rmdir()  # empty (checked); a rename onto a folder needs it gone
        partial.rename(target)
    except BaseException:
        shutil.rmtree(partial, ignore_errors=True)
        raise


def _spec(name: str) -> ModelSpec:
    if name not in DEFAULT_SPECS:
        raise ValueError(f"model {name!r}: expected one of {', '.join(DEFAULT_SPECS)}")
    return DEFAULT_SPECS[name]


def _train_default(spec: ModelSpec, directory: Path, progress: Progress | None) -> None:
    """Train the default model ``spec`` into ``directory`` unless another process did while this one waited."""
    with _lock(directory):
        if (directory / "model.json").exists():
            return
        logger.info("training the default model %s (first use) into %s", spec.name, directory)
        model = build_default_model(spec, data_dir(), fingerprint=directory.name, progress=progress)
        partial = directory.with_name(f"{directory.name}.{uuid.uuid4().hex}.partial")
        try:
            model.save(partial)
            partial.rename(directory)
        except BaseException:
            shutil.rmtree(partial, ignore_errors=True)
            raise
        logger.info("%s trained on %s posts", spec.name, f"{model.metadata['train_posts']:,}")


@contextlib.contextmanager
def _lock(directory: Path) -> Iterator[None]:
    """Held while one process trains the model ``directory``: another waits, then finds it trained."""
    directory.parent.mkdir(parents=True, exist_ok=True)
    with open(directory.with_name(f"{directory.name}.lock"), "w") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)
