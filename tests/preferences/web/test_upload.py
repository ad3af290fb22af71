"""Real preferences uploaded as a CSV (user, time or slot, place, label, optional weekday): bad rows refused
with row and column before anything runs; a training job makes the uploader's own model (theirs alone, served
like the default); the experiment runs on the upload instead of the proxy labels."""

from __future__ import annotations

import csv
import io

import numpy as np
import pytest
from django.core.files.uploadedfile import SimpleUploadedFile

from anonymizer.models import Job, PreferenceModel, Upload
from tests.helpers import run_in_process, token_client

pytestmark = pytest.mark.django_db
PLACES = ("Home", "Office", "Gym", "Cafe", "Park", "Clinic")


def preference_rows(users: int = 30, seed: int = 1) -> list[list[str]]:
    """People who hide home, office and clinic, some also the gym in the evening; publish the rest."""
    rng = np.random.default_rng(seed)
    rows = [["user", "weekday", "time", "place", "label"]]
    for u in range(users):
        private_gym = rng.random() < 0.5
        for _ in range(25):
            place = PLACES[rng.integers(len(PLACES))]
            hour = int(rng.integers(24))
            hide = place in ("Home", "Office", "Clinic") or (place == "Gym" and private_gym and hour >= 17)
            rows.append([f"p{u}", ["Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"][rng.integers(7)],
                         f"{hour:02d}:{int(rng.integers(60)):02d}", place, "hide" if hide else "1"])
    return rows


def csv_file(rows, name="prefs.csv") -> SimpleUploadedFile:
    out = io.StringIO()
    csv.writer(out, lineterminator="\n").writerows(rows)
    return SimpleUploadedFile(name, out.getvalue().encode(), content_type="text/csv")


def upload(api, rows, name="prefs.csv") -> str:
    response = api.post("/api/v1/uploads/", {"file": csv_file(rows, name)}, format="multipart")
    assert response.status_code == 201, response.json()
    return response.json()["id"]


def test_a_training_job_makes_the_uploaders_own_model(preference_model, user, other_user, api, alice_client):
    upload_id = upload(api, preference_rows())
    created = api.post("/api/v1/jobs/", {"kind": "train_preference_model", "inputs": [upload_id],
                                         "params": {"name": "my-lab", "slot_hours": 6, "split_week": True}},
                       format="json")
    assert created.status_code == 201, created.json()
    job = run_in_process(owner=user, kind="train_preference_model", params=created.json()["params"],
                         inputs=[Upload.objects.get(id=upload_id)])
    assert job.status == Job.Status.SUCCEEDED, job.error
    record = PreferenceModel.objects.get(owner=user, name="my-lab")
    assert record.training["source"] == "upload" and record.item_space["columns"] == sorted(PLACES)
    # The served item side is the candidate that recalled most on held-out users; the job's result says which.
    scores = job.result["scores"]
    assert record.training["method"] == scores["served"] == record.metadata["scores"]["served"]
    assert set(scores["methods"]) == {"ldp-mf", "user-mean", "item-mean+offset", "item-mean", "mf"}
    if scores["served"] == "ldp-mf":
        assert record.training["epsilon_per_user"] == 1.0 and record.training["users"] == 30
    assert len(record.item_space["rows"]) == 8  # Mon–Fri and Sat–Sun x 4 slots of 6 hours

    served = api.get("/api/v1/preferences/model", {"model": "my-lab"})
    assert served.status_code == 200 and served.json()["labels"] == "uploaded" and served.json()["mine"] is True
    assert len(served.json()["items"]) == 8 * 6
    assert token_client(other_user).get("/api/v1/preferences/model", {"model": "my-lab"}).status_code == 404
    page = alice_client.get(f"/jobs/{job.id}/").content.decode()
    assert 'id="preference-model-summary"' in page and "my-lab" in page and 'id="preference-model-scores"' in page
    assert f"Served: <strong>{scores['served']}</strong>" in page and 'id="preference-model-rule"' in page
    assert "my-lab" in alice_client.get("/preferences/").content.decode()  # offered on the page, to her


def test_the_experiment_runs_on_the_upload_instead_of_the_proxy_labels(user, api):
    upload_id = upload(api, preference_rows(users=24))
    params = {"sweeps": ["hidden_share"], "hidden_shares": [0.2, 0.5], "folds": 3, "methods": ["item-mean", "mf"]}
    created = api.post("/api/v1/jobs/", {"kind": "preference_experiment_upload", "inputs": [upload_id],
                                         "params": params}, format="json")
    assert created.status_code == 201, created.json()
    assert created.json()["params"]["place"] == "given"
    job = run_in_process(owner=user, kind="preference_experiment_upload", params=created.json()["params"],
                         inputs=[Upload.objects.get(id=upload_id)])
    assert job.status == Job.Status.SUCCEEDED, job.error
    assert job.result["source"] == "upload" and "uploaded preferences" in job.result["notice"]
    assert [(r["value"], r["method"]) for r in job.result["rows"]] == [
        (0.2, "item-mean"), (0.2, "mf"), (0.5, "item-mean"), (0.5, "mf")]
    assert {r["n_users"] for r in job.result["rows"]} == {24}
    assert {r.name for r in job.results.all()} == {"prefs.preference-experiment.csv",
                                                   "prefs.preference-experiment.json"}


@pytest.mark.parametrize("bad,row,column", [
    (["p1", "Mon", "18:00", "Home", "maybe"], 3, "label"),
    (["p1", "Mon", "25:00", "Home", "1"], 3, "time"),
    (["p1", "Someday", "18:00", "Home", "1"], 3, "weekday"),
    (["", "Mon", "18:00", "Home", "1"], 3, "user"),
])
def test_a_bad_row_is_refused_with_row_and_column(user, api, bad, row, column):
    rows = [*preference_rows(users=2)[:2], bad, *preference_rows(users=2)[2:5]]
    upload_id = upload(api, rows)  # a well-formed CSV: the generic upload check accepts it
    for kind in ("train_preference_model", "preference_experiment_upload"):
        params = {"name": "x"} if kind == "train_preference_model" else {}
        response = api.post("/api/v1/jobs/", {"kind": kind, "inputs": [upload_id], "params": params}, format="json")
        assert response.status_code == 400
        message = response.json()["params"]["input"][0]
        assert f"row {row}, column {column!r}" in message, message
    assert Job.objects.count() == 0


def test_a_weekday_split_needs_weekdays(api):
    rows = [[c for i, c in enumerate(r) if i != 1] for r in preference_rows(users=3)]  # no weekday column
    upload_id = upload(api, rows)
    response = api.post("/api/v1/jobs/", {"kind": "train_preference_model", "inputs": [upload_id],
                                          "params": {"name": "x", "split_week": True}}, format="json")
    assert response.status_code == 400 and "weekday" in response.json()["params"]["input"][0]


def test_the_jobs_page_uploads_checks_and_starts_jobs(user, alice_client, settings, tmp_path):
    settings.MODEL_DIR = tmp_path / "models"
    bad = [*preference_rows(users=2)[:3], ["p9", "Mon", "18:00", "Home", "perhaps"]]
    refused = alice_client.post("/preferences/jobs/", {"action": "upload", "file": csv_file(bad, "bad.csv")})
    assert refused.status_code == 400
    assert "bad.csv: row 4, column &#x27;label&#x27;" in refused.content.decode()
    assert Upload.objects.count() == 0  # nothing stored

    stored = alice_client.post("/preferences/jobs/", {"action": "upload", "file": csv_file(preference_rows())})
    upload = Upload.objects.get()
    assert stored.status_code == 302 and stored["Location"].endswith(f"?upload={upload.id}")
    page = alice_client.get(stored["Location"]).content.decode()
    assert "proxy" in page and f'value="{upload.id}" selected' in page

    no_name = alice_client.post("/preferences/jobs/", {"action": "train", "upload": str(upload.id), "name": "",
                                                       "slot_hours": "6", "epsilon": "1", "rounds": "5"})
    assert no_name.status_code == 400 and "<code>name</code>" in no_name.content.decode()
    started = alice_client.post("/preferences/jobs/", {"action": "train", "upload": str(upload.id),
                                                       "name": "lab", "slot_hours": "6", "epsilon": "2",
                                                       "rounds": "4"})
    assert started.status_code == 302
    job = Job.objects.get(kind="train_preference_model")
    assert job.params["epsilon"] == 2.0 and job.params["rounds"] == 4 and list(job.inputs.all()) == [upload]

    experiment = alice_client.post("/preferences/jobs/", {
        "action": "experiment", "source": "proxy", "sweeps": ["epsilon"], "slot_hours": ["4"],
        "epsilons": "0.5, 2", "hidden_shares": "0.1", "methods": ["ldp-mf"], "folds": "3", "place": "root"})
    assert experiment.status_code == 302
    job = Job.objects.get(kind="preference_experiment")
    assert job.params["epsilons"] == [0.5, 2.0] and job.params["fixed_slot_hours"] == 4
    wrong = alice_client.post("/preferences/jobs/", {
        "action": "experiment", "source": "proxy", "sweeps": ["epsilon"], "slot_hours": ["4"],
        "epsilons": "0.5, lots", "hidden_shares": "0.1", "methods": ["ldp-mf"], "folds": "3"})
    assert wrong.status_code == 400 and "<code>epsilons</code>: value 2: A valid number" in wrong.content.decode()


def test_the_jobs_page_needs_an_account(client):
    assert client.get("/preferences/jobs/").status_code == 302
