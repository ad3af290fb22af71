"""The location models of the ``kakurega`` command and API: a default model trained on first use into the user's
cache is the model `make run`'s bootstrap trains (same bytes), and is trained once; ``kakurega train-location``
and ``kakurega evaluate-protection`` as the management commands, without Django."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from anonymizer.location.defaults import TOKYO
from anonymizer.location.web.services import ensure_default_models
from tests.cli.conftest import run_kakurega
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


# -- kakurega train-location and evaluate-protection -------------------------------------------------------------
TOKYO_BOX = ("--south", "35.5", "--west", "139.45", "--north", "35.85", "--east", "139.95")


def tokyo_sample(path: Path, rows: int = 800) -> Path:
    """The first ``rows`` posts of the Tokyo corpus in data/ (about half of them inside the Tokyo box)."""
    lines = (ROOT / "data" / TOKYO.corpus).read_text(encoding="utf-8").splitlines(keepends=True)
    path.write_text("".join(lines[: rows + 1]), encoding="utf-8")
    return path


@pytest.mark.django_db
def test_train_location_saves_the_model_the_management_command_trains(settings, tmp_path):
    from django.core.management import call_command

    from anonymizer.models import TrainedLocationModel

    corpus, output = tokyo_sample(tmp_path / "tokyo.csv"), tmp_path / "out" / "small-ja"
    done = run_kakurega("train-location", str(corpus), "--name", "small-ja", *TOKYO_BOX, "--rows", "5", "--cols",
                        "5", "--id-column", "id", "-o", str(output), cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert "Read 800 rows" in done.stdout and f"saved in {output}" in done.stdout and "Held-out" in done.stdout
    assert "kakurega: tokenizing" in done.stderr  # progress, in plain lines without a terminal

    settings.MODEL_DIR = tmp_path / "var-models"
    call_command("train_location_model", str(corpus), "--name", "small-ja", "--bbox", "35.5", "139.45", "35.85",
                 "139.95", "--rows", "5", "--cols", "5", "--id-column", "id")
    web = Path(settings.MODEL_DIR) / TrainedLocationModel.objects.get(name="small-ja").path
    for name in ("classifier.npz", "places.json"):
        assert (output / name).read_bytes() == (web / name).read_bytes(), name

    from kakurega import load_location_model

    model = load_location_model(str(output))
    assert model.name == "small-ja" and model.grid.rows == 5 and model.metadata["corpus_report"]["accepted"] > 300
    again = run_kakurega("train-location", str(corpus), "--name", "small-ja", *TOKYO_BOX, "-o", str(output),
                         cwd=tmp_path)
    assert again.returncode == 2 and f"{output}: already exists" in again.stderr


@pytest.mark.parametrize(("content", "options", "expected"), [
    ('id,text,lat,lon\n1,"地震です,35.6,139.7\n', (), r"[Rr]ow 2"),
    ("id,body,lat,lon\n1,地震です,35.6,139.7\n", (), r'"text"'),
    ("id,text,lat,lon\n1,地震です,35.6,139.7\n", ("--rows", "0"), r"--south/--west/--north/--east/--rows/--cols: "
                                                                 r"The grid's rows is 0"),
    ("id,text,lat,lon\n1,地震です,35.6,139.7\n", ("--where", "lang"), r"--where 'lang': expected COLUMN=VALUE1"),
])
def test_train_location_refuses_bad_input_naming_what_was_expected(tmp_path, content, options, expected):
    corpus, output = tmp_path / "bad.csv", tmp_path / "model"
    corpus.write_text(content, encoding="utf-8")
    done = run_kakurega("train-location", str(corpus), "--name", "bad", *TOKYO_BOX, *options, "-o", str(output),
                        "-q", cwd=tmp_path)
    assert done.returncode == 2, done.stderr
    assert re.search(expected, done.stderr), done.stderr
    assert done.stderr.startswith("kakurega: error: ") and "Traceback" not in done.stderr
    assert sorted(p.name for p in tmp_path.iterdir()) == ["bad.csv"]  # no model folder, not even a partial one


def test_evaluate_protection_reports_the_attackers_before_and_after(tmp_path):
    done = run_kakurega("evaluate-protection", "--model", "tokyo-ja", "--max-posts", "10", "--examples", "1",
                        "--replacement", "mask", "--json", "-q", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    result = json.loads(done.stdout)
    assert result["posts"]["test"] == 10 and result["options"] == {"replacement": "mask", "places": "all"}
    assert result["baseline"]["majority_label"]
    refused = run_kakurega("evaluate-protection", "--model", "kyoto-ja", cwd=tmp_path)
    assert refused.returncode == 2 and "kyoto-ja" in refused.stderr


def test_the_commands_offer_every_default_model():
    from kakurega.cli.models import DEFAULT_NAMES
    from kakurega.location_models import DEFAULT_SPECS

    assert DEFAULT_NAMES == tuple(DEFAULT_SPECS)  # the command's list is written out so that --help stays quick
