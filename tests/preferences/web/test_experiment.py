"""The preference experiment as a job (run here, in-process) and as a management command: the sweeps on the
shipped check-ins with proxy labels, a CSV and a JSON of the rows, and line charts on the job page."""

from __future__ import annotations

import csv
import io
import json

import pytest
from django.core.management import CommandError, call_command

from anonymizer.models import Job
from tests.helpers import run_in_process

pytestmark = pytest.mark.django_db
SMALL = {"slot_hours": [4, 8], "epsilons": [0.5, 5.0], "hidden_shares": [0.1, 0.5], "folds": 3,
         "methods": ["item-mean", "ldp-mf"], "fixed_slot_hours": 8}


def test_the_experiment_job_writes_its_rows_and_draws_the_charts(user, alice_client, api):
    created = api.post("/api/v1/jobs/", {"kind": "preference_experiment", "params": SMALL}, format="json")
    assert created.status_code == 201, created.json()
    params = created.json()["params"]
    assert params["sweeps"] == ["slot_hours", "epsilon", "hidden_share"] and params["methods"] == SMALL["methods"]
    job = run_in_process(owner=user, kind="preference_experiment", params=params, inputs=[])
    assert job.status == Job.Status.SUCCEEDED, job.error
    assert job.progress_done == job.progress_total > 0

    names = {r.name: r for r in job.results.all()}
    assert set(names) == {"foursquare-nyc-proxy.preference-experiment.csv",
                          "foursquare-nyc-proxy.preference-experiment.json"}
    with names["foursquare-nyc-proxy.preference-experiment.csv"].file.open("rb") as handle:
        rows = list(csv.DictReader(io.StringIO(handle.read().decode())))
    # Every sweep point, every method (the non-private ones are the references on the epsilon chart).
    assert [(r["sweep"], r["value"], r["method"]) for r in rows] == [
        (sweep, value, method) for sweep, values in (("slot_hours", ("4", "8")), ("epsilon", ("0.5", "5.0")),
                                                     ("hidden_share", ("0.1", "0.5")))
        for value in values for method in ("item-mean", "ldp-mf")]
    for row in rows:
        assert 0 <= float(row["fpr"]) <= 1 and 0 <= float(row["recall"]) <= 1
        assert 0 <= float(row["reconstruction"]) <= 1 and row["n_users"] == "193"
        if row["method"] == "ldp-mf":
            assert float(row["epsilon_user_max"]) == pytest.approx(float(row["epsilon"]))
    assert {r["n_items"] for r in rows if r["sweep"] == "slot_hours"} == {"60", "30"}  # 24/4 and 24/8 slots x 10
    with names["foursquare-nyc-proxy.preference-experiment.json"].file.open("rb") as handle:
        report = json.loads(handle.read())
    assert report["source"] == "proxy" and "PROXY" in report["notice"] and len(report["rows"]) == 12

    page = alice_client.get(f"/jobs/{job.id}/").content.decode()
    assert page.count('<svg xmlns="http://www.w3.org/2000/svg"') == 9  # 3 sweeps x FPR, recall, reconstruction
    for title in ("False-positive rate by hours per time slot", "Recall by ε per user",
                  "Reconstruction rate by share of ratings hidden"):
        assert title in page
    assert "PROXY" in page and 'id="preference-experiment-rows"' in page


def test_bad_experiment_parameters_are_refused_by_field(api):
    response = api.post("/api/v1/jobs/", {"kind": "preference_experiment",
                                          "params": {"folds": 1, "slot_hours": [5], "methods": ["oracle"]}},
                        format="json")
    assert response.status_code == 400
    errors = response.json()["params"]
    assert set(errors) == {"folds", "slot_hours", "methods"}


def test_the_management_command_writes_the_same_rows(tmp_path):
    out, report = tmp_path / "sweep.csv", tmp_path / "sweep.json"
    call_command("run_preference_experiment", "--sweeps", "epsilon,hidden_share", "--epsilons", "1,4",
                 "--hidden-shares", "0.2", "--folds", "3", "--methods", "user-mean,ldp-mf", "--fixed-slot-hours",
                 "8", "--out", str(out), "--json", str(report), stderr=io.StringIO())
    rows = list(csv.DictReader(out.open(encoding="utf-8")))
    assert [(r["sweep"], r["value"], r["method"]) for r in rows] == [
        ("epsilon", "1.0", "user-mean"), ("epsilon", "1.0", "ldp-mf"), ("epsilon", "4.0", "user-mean"),
        ("epsilon", "4.0", "ldp-mf"), ("hidden_share", "0.2", "user-mean"), ("hidden_share", "0.2", "ldp-mf")]
    assert json.loads(report.read_text())["labels"] == "proxy"
    with pytest.raises(CommandError, match="folds"):
        call_command("run_preference_experiment", "--folds", "1", "--out", str(out))
