"""The protection evaluation as a job: started through the API without an input file, run here, and shown on
the job page with the per-attacker table and the share of released posts still naming a place."""

from __future__ import annotations

import json

import pytest
from django.urls import reverse

from anonymizer.models import Job
from anonymizer.platform.jobs import runner

pytestmark = pytest.mark.django_db


def test_the_protection_job_runs_on_a_default_corpus_and_shows_the_attackers(api, alice_client):
    created = api.post(reverse("api-job-list"), {"kind": "evaluate_location_protection",
                                                 "params": {"spec": "tokyo-ja", "max_posts": 20}}, format="json")
    assert created.status_code == 201, created.json()
    params = created.json()["params"]
    assert params == {"spec": "tokyo-ja", "max_posts": 20, "seed": 0, "replacement": "delete"}
    runner.run_job(created.json()["id"])
    job = Job.objects.get(id=created.json()["id"])
    assert job.status == Job.Status.SUCCEEDED, job.error
    result = job.result
    json.dumps(result)
    assert result["spec"] == "tokyo-ja" and result["posts"]["test"] == 20
    assert set(result["attackers"]) == {"char_ngram", "complement_nb", "gazetteer", "model"}
    assert result["report"].startswith("## Protection against independent attackers")
    page = alice_client.get(reverse("job-detail", args=[job.id])).content.decode()
    assert 'id="protection-attackers"' in page and page.count('data-attacker="char_ngram"') == 2
    assert "Released posts still naming a place inside the grid" in page


def test_bad_protection_parameters_are_refused_by_field(api):
    response = api.post(reverse("api-job-list"), {"kind": "evaluate_location_protection",
                                                  "params": {"spec": "kyoto", "max_posts": 5,
                                                             "replacement": "blur"}}, format="json")
    assert response.status_code == 400
    assert set(response.json()["params"]) == {"spec", "max_posts", "replacement"}
    assert Job.objects.count() == 0
