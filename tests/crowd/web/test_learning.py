"""Learning from a campaign: the human-inferability classifier used by inspect, the calibrated threshold from
hand de-identifications, and the machine x human table."""

from __future__ import annotations

import io

import pytest
from django.core.management import call_command
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
    # Cut-off 0.5 and 5 answers: 5 of 5 decides "human-inferable" (interval 0.57-1), 0 of 5 "not" (0-0.43).
    campaign = crowd.create_campaign(owner=staff, name="labels", instructions="x", consent_text="x", posts=posts,
                                     judgments_per_post=5, cutoff=0.5, location_model=tokyo)
    answer_all(campaign, 5, lambda text: any(place in text for place in PLACES))
    job = run(staff, "train_human_model", campaign)
    assert job.status == "succeeded", job.error
    assert job.result["scores"]["posts"] == 40 and 0 <= job.result["scores"]["accuracy"] <= 1
    assert 0 < job.result["inferable_share"] < 1
    # Saved unused: the built-in model serves everyone, so only the operator's command switches to it.
    trained = HumanInferabilityModel.objects.get(id=job.result["model_version"])
    assert not trained.active and job.result["switched_by"] == "operator"
    assert not HumanInferabilityModel.objects.filter(active=True).exists()
    page = Client()
    page.force_login(staff)
    assert page.get(reverse("model-use", args=[trained.id])).status_code == 404  # not the staff user's to switch
    call_command("promote_model_version", str(trained.id), stdout=io.StringIO())
    assert HumanInferabilityModel.objects.get(active=True) == trained and trained.location_model == tokyo

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
    default_threshold = tokyo.threshold

    # 8 posts by 1 participant is below the minimum sample (30 posts x 3 participants): refused, nothing saved.
    staff_page = Client()
    staff_page.force_login(staff)
    detail = staff_page.get(reverse("campaign-detail", args=[campaign.id])).content.decode()
    assert "It needs at least 30 posts each de-identified by 3 participants" in detail
    assert 'id="action-calibrate_threshold"' not in detail  # offered only when it can run
    refused = staff_page.post(reverse("campaign-action", args=[campaign.id, "calibrate_threshold"]),
                              {"confirm": "yes"})
    assert refused.status_code == 302 and not Job.objects.exists()
    job = run(staff, "calibrate_threshold", campaign)
    assert job.status == "failed" and "Too few hand de-identifications" in job.error
    assert TrainedLocationModel.objects.filter(name="tokyo-ja").count() == 1

    settings.CROWD_CALIBRATION_MIN_POSTS, settings.CROWD_CALIBRATION_MIN_PARTICIPANTS = 8, 1
    job = run(staff, "calibrate_threshold", campaign)
    assert job.status == "succeeded", job.error
    assert job.result["threshold"]["kind"] == "calibrated" and job.result["posts"] == 8
    assert job.result["interval_low"] <= job.result["threshold"]["value"] <= job.result["interval_high"]
    version = TrainedLocationModel.objects.get(id=job.result["model_version"])
    assert version.owner == staff and not version.active and version.threshold_kind == "calibrated"
    # The public default is untouched: still active, still what anonymous inspect uses.
    assert TrainedLocationModel.objects.get(id=tokyo.id).active
    anonymous = APIClient().post(reverse("api-inspect"), {"text": "渋谷で地震", "model": "tokyo-ja"},
                                 format="json").json()
    assert anonymous["model"]["threshold"]["value"] == pytest.approx(default_threshold)

    # Its owner switches to it, after a confirmation page; then their own requests use it, nobody else's.
    use = reverse("model-use", args=[version.id])
    assert "Use this version?" in staff_page.get(use).content.decode()
    assert not TrainedLocationModel.objects.get(id=version.id).active  # the page changed nothing
    assert staff_page.post(use, {"confirm": "yes"}).status_code == 302
    assert TrainedLocationModel.objects.get(id=version.id).active
    owner_api = APIClient()
    owner_api.force_authenticate(staff)
    mine = owner_api.post(reverse("api-inspect"), {"text": "渋谷で地震", "model": "tokyo-ja"}, format="json").json()
    assert mine["model"]["threshold"]["value"] == pytest.approx(job.result["threshold"]["value"])
    again = APIClient().post(reverse("api-inspect"), {"text": "渋谷で地震", "model": "tokyo-ja"}, format="json").json()
    assert again["model"]["threshold"]["value"] == pytest.approx(default_threshold)

    # Only the operator's command makes it the default for everyone.
    call_command("promote_model_version", str(version.id), stdout=io.StringIO())
    promoted = TrainedLocationModel.objects.get(name="tokyo-ja", owner__isnull=True, active=True)
    assert promoted.id != tokyo.id and promoted.threshold_kind == "calibrated"
    body = APIClient().post(reverse("api-inspect"), {"text": "渋谷で地震", "model": "tokyo-ja"}, format="json").json()
    assert body["model"]["threshold"]["value"] == pytest.approx(job.result["threshold"]["value"])


def test_jobs_refuse_another_owners_campaign(staff, django_user_model, location_models):
    campaign = crowd.create_campaign(owner=staff, name="x", instructions="x", consent_text="x",
                                     posts=[crowd.PostSpec("a")], location_model=location_models["tokyo-ja"])
    other = django_user_model.objects.create_user("suzuki", password="another staff passphrase", is_staff=True)
    job = run(other, "train_human_model", campaign)
    assert job.status == "failed" and "no such campaign of yours" in job.error
