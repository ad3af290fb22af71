"""The location models of the ``kakurega`` command and API: a default model trained on first use into the user's
cache is the model `make run`'s bootstrap trains (same bytes), and is trained once; ``kakurega train-location``
and ``kakurega evaluate-protection`` as the management commands, without Django."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from anonymizer.location.defaults import TOKYO
from anonymizer.location.web.services import ensure_default_models
from tests.helpers import ROOT
from tests.model_cache import cached_training

#: What a model.json records of when and how fast it was trained, the only fields two trainings differ in:
#: metadata.created_at, metadata.seconds and the seconds of each threshold the calibration tried.
TIMING_FIELDS = ("created_at", "seconds")


LOAD = """
import logging, sys
logging.basicConfig(level=logging.INFO, stream=sys.stderr, format="%(name)s: %(message)s")
from kakurega import load_location_model
from kakurega.location_models import default_model_directory
def progress(done, total, message):
    print(f"progress {done}/{total} {message}", file=sys.stderr)
model = load_location_model(sys.argv[1], progress=progress)
print(default_model_directory(sys.argv[1]))
"""


def kakurega_python(code: str, *args: str, cache: Path, cwd: Path) -> subprocess.CompletedProcess:
    """Run ``code`` in a fresh interpreter outside the checkout, the checkout importable, the cache in ``cache``."""
    env = {**os.environ, "KAKUREGA_CACHE_DIR": str(cache), "PYTHONPATH": str(ROOT)}
    env.pop("DJANGO_SETTINGS_MODULE", None)
    return subprocess.run([sys.executable, "-c", code, *args], cwd=cwd, env=env, capture_output=True, text=True,
                          timeout=600)


def without_timings(document: dict) -> dict:
    document = json.loads(json.dumps(document))
    metadata = document["metadata"]
    tried = metadata["calibration"]["tried"].values()
    assert tried and all("seconds" in step for step in tried)  # leaving them out is a real exception, not a typo
    for step in tried:
        del step["seconds"]
    for name in TIMING_FIELDS:
        del metadata[name]
    return document


@pytest.mark.django_db
def test_a_default_model_is_the_bootstrap_model_and_trained_once(settings, tmp_path):
    # The web side: what `manage.py bootstrap` saves (its training cached across test sessions, as the other
    # bootstrap tests do: the same train_default_model); the kakurega side trains for real, in its own process.
    settings.MODEL_DIR = tmp_path / "var-models"
    record = ensure_default_models(specs=[TOKYO], train=cached_training)[0]
    web = Path(settings.MODEL_DIR) / record.path

    cache, work = tmp_path / "cache", tmp_path / "elsewhere"
    work.mkdir()
    first = kakurega_python(LOAD, "tokyo-ja", cache=cache, cwd=work)
    assert first.returncode == 0, first.stderr
    assert "training the default model tokyo-ja (first use)" in first.stderr
    assert "progress 100/100 calibrated" in first.stderr
    directory = Path(first.stdout.strip())
    assert directory.parent == cache / "models" / "tokyo-ja" and directory.name == record.metadata["spec_fingerprint"]

    for name in ("classifier.npz", "places.json"):
        assert (directory / name).read_bytes() == (web / name).read_bytes(), name
    ours, theirs = (json.loads((d / "model.json").read_text()) for d in (directory, web))
    assert ours["metadata"]["created_at"] != "" and without_timings(ours) == without_timings(theirs)

    stamp = (directory.stat().st_mtime_ns, (directory / "model.json").stat().st_mtime_ns)
    again = kakurega_python(LOAD, "tokyo-ja", cache=cache, cwd=work)
    assert again.returncode == 0, again.stderr
    assert "training" not in again.stderr and "progress" not in again.stderr
    assert Path(again.stdout.strip()) == directory
    assert (directory.stat().st_mtime_ns, (directory / "model.json").stat().st_mtime_ns) == stamp
    assert sorted(p.name for p in directory.parent.iterdir()) == [directory.name, f"{directory.name}.lock"]


def test_a_model_directory_loads_and_a_bad_reference_names_the_choices(tmp_path):
    from kakurega import load_location_model

    with pytest.raises(ValueError, match=r"expected one of tokyo-ja, us-midwest-en or a model directory"):
        load_location_model(str(tmp_path / "nothing-here"))
