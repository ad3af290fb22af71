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
from collections.abc import Callable, Iterator
from pathlib import Path

from anonymizer.location.defaults import DEFAULT_MODELS, ModelSpec
from anonymizer.location.model import LocationModel
from anonymizer.location.tokenize import detect_language
from anonymizer.location.training import build_default_model
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
    return cache_dir() / "models" / spec.name / spec.fingerprint(data_dir())


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
