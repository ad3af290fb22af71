"""Learning from a campaign: the human-inferability classifier used by inspect, the calibrated threshold from
hand de-identifications, and the machine x human table."""

from __future__ import annotations

import pytest
from django.test import Client
from django.urls import reverse
from rest_framework.test import APIClient

from anonymizer.crowd.web import services as crowd
from anonymizer.models import Campaign, HumanInferabilityModel, Job, TrainedLocationModel
from anonymizer.platform.jobs import runner
from anonymizer.platform.jobs import services as job_services
from tests.helpers import answer_all

pytestmark = pytest.mark.django_db(transaction=True)
PLACES = ("渋谷", "新宿", "池袋", "東京", "品川", "銀座", "駅", "秋葉原", "上野")




def run(staff, kind: str, campaign: Campaign) -> Job:
    job = job_services.create_job(owner=staff, kind=kind, params={"campaign": str(campaign.id)})
    runner.run_job(job.id)
    return Job.objects.get(id=job.id)


def test_human_model_is_trained_and_used_by_inspect(staff, location_models):
    tokyo = location_models["tokyo-ja"]
    posts = crowd.posts_from_corpus(tokyo, 400)
    campaign = crowd.create_campaign(owner=staff, name="labels", instructions="x", consent_text="x", posts=posts,
                                     judgments_per_post=3, location_model=tokyo)
    answer_all(campaign, 3, lambda text: any(place in text for place in PLACES))
    job = run(staff, "train_human_model", campaign)
    assert job.status == "succeeded", job.error
    assert job.result["scores"]["posts"] == 40 and 0 <= job.result["scores"]["accuracy"] <= 1
    assert 0 < job.result["inferable_share"] < 1
    assert HumanInferabilityModel.objects.get(active=True).location_model == tokyo

    text = "渋谷駅のハチ公前で待ち合わせ"
    body = APIClient().post(reverse("api-inspect"), {"text": text, "model": "tokyo-ja"}, format="json").json()
    assert set(body["human"]) == {"threshold", "probability_before", "probability_after"}
    assert body["human"]["probability_before"] > 0.5 and body["classes"]["before"]["human_inferable"]
    # The de-identifier satisfied both models: after deletion the post is under both thresholds.
    assert body["human"]["probability_after"] < 0.5 and body["after"]["under_threshold"]
    assert not body["classes"]["after"]["human_inferable"]

    table = run(staff, "machine_human_table", campaign)
    assert table.status == "succeeded", table.error
    assert sum(row["posts"] for row in table.result["table"]) == table.result["posts"] == 400
    csv_text = table.results.get().file.read().decode()
    assert csv_text.splitlines()[0] == "post,external_id,top_probability,machine_inferable,human_inferable"


def test_hand_deidentifications_calibrate_the_threshold(staff, location_models, settings):
    tokyo = location_models["tokyo-ja"]
    posts = crowd.posts_from_corpus(tokyo, 8, seed=3)
    campaign = crowd.create_campaign(owner=staff, name="strike", instructions="x", consent_text="x", posts=posts,
                                     task=Campaign.Task.DEIDENTIFY, judgments_per_post=1, location_model=tokyo)
    participant = Client()
    participant.post(reverse("crowd-join", args=[campaign.join_token]), {"consent": "yes"})
    url = lambda action: reverse("crowd-api", args=[campaign.join_token, action])  # noqa: E731
    payload = participant.get(url("next")).json()
    struck = []
    while not payload["done"]:
        tokens = payload["post"]["tokens"]
        delete = [i for i, t in enumerate(tokens) if t["deletable"]][:2]  # strike the first two words
        struck.append("".join(t["text"] for i, t in enumerate(tokens) if i in delete))
        payload = participant.post(url("answer"), {"post": payload["post"]["id"], "deleted": delete},
                                   content_type="application/json").json()
    assert len(struck) == 8
    bad = participant.post(url("answer"), {"post": 1, "deleted": [999]}, content_type="application/json")
    assert bad.status_code == 400
    job = run(staff, "calibrate_threshold", campaign)
    assert job.status == "succeeded", job.error
    assert job.result["threshold"]["kind"] == "calibrated" and job.result["posts"] == 8
    active = TrainedLocationModel.objects.get(name="tokyo-ja", active=True)
    assert active.id != tokyo.id and active.threshold_kind == "calibrated"
    body = APIClient().post(reverse("api-inspect"), {"text": "渋谷で地震", "model": "tokyo-ja"}, format="json").json()
    assert body["model"]["threshold"]["kind"] == "calibrated"
    assert body["model"]["threshold"]["value"] == pytest.approx(job.result["threshold"]["value"])


def test_jobs_refuse_another_owners_campaign(staff, django_user_model, location_models):
    campaign = crowd.create_campaign(owner=staff, name="x", instructions="x", consent_text="x",
                                     posts=[crowd.PostSpec("a")], location_model=location_models["tokyo-ja"])
    other = django_user_model.objects.create_user("suzuki", password="another staff passphrase", is_staff=True)
    job = run(other, "train_human_model", campaign)
    assert job.status == "failed" and "no such campaign of yours" in job.error
