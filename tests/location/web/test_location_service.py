"""The Django shell around the location package: the training job and command, the default models of the
bootstrap, artifacts on disk, and who sees which model."""

from __future__ import annotations

import csv
import io
import shutil
from pathlib import Path

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.core.management import CommandError, call_command
from django.urls import reverse
from rest_framework.test import APIClient

from anonymizer.location.defaults import TOKYO
from anonymizer.location.web import selectors
from anonymizer.location.web.services import ensure_default_models
from anonymizer.models import Job, TrainedLocationModel
from anonymizer.platform.jobs import runner
from tests.helpers import ROOT
from tests.model_cache import cached_training

pytestmark = pytest.mark.django_db
TOKYO_CSV = ROOT / "data" / TOKYO.corpus
TOKYO_PARAMS = {"name": "tokyo-mine", "language": "ja", "south": 35.50, "west": 139.45, "north": 35.85,
                "east": 139.95, "rows": 10, "cols": 10, "id_column": "id"}


@pytest.fixture(autouse=True)
def model_dir(settings, tmp_path) -> Path:
    settings.MODEL_DIR = tmp_path / "models"
    return settings.MODEL_DIR


def csv_file(rows: list[list[str]], name: str = "corpus.csv") -> SimpleUploadedFile:
    out = io.StringIO()
    csv.writer(out, lineterminator="\n").writerows(rows)
    return SimpleUploadedFile(name, out.getvalue().encode("utf-8"), content_type="text/csv")


def tokyo_sample(rows: int = 1500) -> SimpleUploadedFile:
    return SimpleUploadedFile("tokyo.csv", b"".join(TOKYO_CSV.open("rb").readlines()[: rows + 1]))


def start_training(api: APIClient, file: SimpleUploadedFile, params: dict) -> dict:
    upload = api.post(reverse("api-upload-list"), {"file": file}, format="multipart")
    assert upload.status_code == 201, upload.content
    job = api.post(reverse("api-job-list"), {"kind": "train_location_model", "params": params,
                                             "inputs": [upload.json()["id"]]}, format="json")
    assert job.status_code == 201, job.content
    return job.json()


@pytest.fixture
def api(user) -> APIClient:
    client = APIClient()
    client.force_authenticate(user)
    return client


def test_training_job_registers_a_model_only_its_owner_sees(api, alice_client, user, other_user, model_dir):
    job = start_training(api, tokyo_sample(), TOKYO_PARAMS)
    runner.run_job(job["id"])
    done = api.get(job["url"]).json()
    assert done["status"] == "succeeded", done["error"]
    result = done["result"]
    assert result["language"] == "ja" and result["corpus"]["rows_read"] == 1500
    assert result["corpus"]["rejected"]["outside_grid"] > 0  # counted and reported, not dropped silently
    assert result["scores"]["posts"] > 0 and result["threshold"]["kind"] in {"relative", "paper"}
    record = TrainedLocationModel.objects.get(id=result["model"])
    assert record.owner == user and record.active and record.job_id == Job.objects.get().id
    assert (model_dir / record.path / "model.json").exists() and (model_dir / record.path / "classifier.npz").exists()
    assert record in selectors.location_models_for(user)
    assert record not in selectors.location_models_for(other_user)
    model = selectors.load_location_model(record)
    assert selectors.load_location_model(record) is model  # cached per process
    assert model.grid.rows == 10 and model.infer("渋谷で地震").probabilities.sum() == pytest.approx(1.0)
    page = alice_client.get(reverse("job-detail", args=[job["id"]])).content.decode()
    assert 'id="model-scores"' in page and "Lift over the baseline" in page


def test_a_second_training_becomes_the_active_version(api, user):
    for _ in range(2):
        job = start_training(api, tokyo_sample(900), TOKYO_PARAMS)
        runner.run_job(job["id"])
    versions = TrainedLocationModel.objects.filter(owner=user, name="tokyo-mine").order_by("created_at")
    assert versions.count() == 2
    assert [v.active for v in versions] == [False, True]
    assert list(selectors.location_models_for(user)) == [versions.last()]


@pytest.mark.parametrize(
    ("rows", "params", "expected"),
    [
        ([["id", "body", "lat", "lon"], ["1", "渋谷", "35.66", "139.70"]], {}, 'no column "text"'),
        ([["text", "lat", "lon"], ["渋谷", "north", "139.70"], ["新宿", "95", "139.70"]], {"id_column": None},
         "No post was accepted"),
        ([["text", "lat", "lon"], *[["大阪", "34.69", "135.50"]] * 5], {"id_column": None}, "outside the grid"),
    ],
)
def test_a_bad_corpus_fails_the_job_with_row_numbers(api, rows, params, expected):
    job = start_training(api, csv_file(rows), {**TOKYO_PARAMS, **params})
    runner.run_job(job["id"])
    failed = api.get(job["url"]).json()
    assert failed["status"] == "failed"
    assert expected in failed["error"] and "corpus.csv" in failed["error"]
    assert not TrainedLocationModel.objects.exists()


def test_bad_coordinates_are_reported_by_row_in_the_error():
    rows = [["text", "lat", "lon"], ["渋谷", "north", "139.70"], ["新宿", "95", "139.70"]]
    with pytest.raises(CommandError) as caught:
        call_command("train_location_model", str(write(rows)), "--name", "x", "--bbox", "35.5", "139.45", "35.85",
                     "139.95", "--language", "ja")
    message = str(caught.value)
    assert "row 2" in message and "row 3" in message
    assert "latitude" in message


def write(rows: list[list[str]], name: str = "corpus.csv") -> Path:
    import tempfile

    path = Path(tempfile.mkdtemp()) / name
    path.write_bytes(csv_file(rows).read())
    return path


def test_the_command_refuses_a_latin1_or_empty_file(tmp_path):
    latin = tmp_path / "latin.csv"
    latin.write_bytes("text,lat,lon\ncafé,35.6,139.7\n".encode("latin-1"))
    empty = tmp_path / "empty.csv"
    empty.write_bytes(b"")
    bbox = ["--bbox", "35.5", "139.45", "35.85", "139.95"]
    with pytest.raises(CommandError, match=r"UTF-8"):
        call_command("train_location_model", str(latin), "--name", "x", *bbox)
    with pytest.raises(CommandError, match=r"empty"):
        call_command("train_location_model", str(empty), "--name", "x", *bbox)
    with pytest.raises(CommandError, match=r"south|north|latitude"):
        call_command("train_location_model", str(latin), "--name", "x", "--bbox", "36", "139.45", "35", "139.95")


def test_the_command_trains_from_json_lines_with_a_filter(tmp_path, capsys):
    lines = []
    with TOKYO_CSV.open(encoding="utf-8") as handle:
        for i, row in enumerate(csv.DictReader(handle)):
            if i == 1200:
                break
            lines.append(f'{{"body": {row["text"]!r}, "y": {row["lat"]}, "x": {row["lon"]}, "src": "{i % 2}"}}'
                         .replace("'", '"'))
    path = tmp_path / "tokyo.jsonl"
    path.write_text("\n".join(line for line in lines if line.count('"') % 2 == 0) + "\n", encoding="utf-8")
    call_command("train_location_model", str(path), "--name", "tokyo-jsonl", "--language", "ja",
                 "--bbox", "35.5", "139.45", "35.85", "139.95", "--rows", "5", "--cols", "5",
                 "--text-column", "body", "--lat-column", "y", "--lon-column", "x", "--where", "src=0")
    out = capsys.readouterr().out
    assert "excluded by a filter" in out and "Held-out" in out
    record = TrainedLocationModel.objects.get(name="tokyo-jsonl")
    assert record.owner is None and record.metadata["grid"]["rows"] == 5


def test_default_models_are_trained_once(model_dir):
    trained = []

    def train(spec, posts):  # the real training, cached across test sessions; the calls are what is checked
        trained.append(spec.name)
        return cached_training(spec, posts)

    first = ensure_default_models(specs=[TOKYO], train=train)
    again = ensure_default_models(specs=[TOKYO], train=train)
    assert trained == ["tokyo-ja"]  # the second run found the active version up to date
    assert [r.id for r in first] == [r.id for r in again]
    assert TrainedLocationModel.objects.filter(name="tokyo-ja").count() == 1
    record = first[0]
    assert record.metadata["scores"]["accuracy"] > record.metadata["scores"]["majority_baseline"]
    assert record.metadata["corpus"] == TOKYO.corpus
    # A model directory lost from disk is trained again rather than served broken.
    shutil.rmtree(model_dir / record.path)
    rebuilt = ensure_default_models(specs=[TOKYO], train=train)
    assert trained == ["tokyo-ja", "tokyo-ja"]
    assert rebuilt[0].id != record.id and TrainedLocationModel.objects.get(active=True, name="tokyo-ja") == rebuilt[0]
    assert (model_dir / rebuilt[0].path / "model.json").exists()


@pytest.mark.django_db(transaction=True)
def test_deleting_an_account_deletes_its_models_from_disk(api, user, model_dir):
    job = start_training(api, tokyo_sample(900), TOKYO_PARAMS)
    runner.run_job(job["id"])
    directory = model_dir / TrainedLocationModel.objects.get(owner=user).path
    assert (directory / "model.json").exists()
    user.delete()
    assert not TrainedLocationModel.objects.exists() and not directory.exists()
