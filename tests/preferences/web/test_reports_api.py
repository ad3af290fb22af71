"""POST /api/v1/preferences/reports: an anonymous contribution's one-bit reports are stored as sent, nothing
else; malformed ones are refused by field. The stored reports aggregate into a new version of the model."""

from __future__ import annotations

import uuid
from dataclasses import replace
from datetime import UTC, datetime

import numpy as np
import pytest
from django.core.management import call_command
from django.db import models
from rest_framework.test import APIClient

from anonymizer.models import PreferenceContribution, PreferenceModel, PreferenceReport
from anonymizer.preferences import serving
from anonymizer.preferences.ldp import Mulberry32, one_bit_bound
from anonymizer.preferences.web.services import register_preference_model
from tests.helpers import token_client

pytestmark = pytest.mark.django_db
URL = "/api/v1/preferences/reports"


def reports(epsilon: float = 1.0, rounds: int = 5, seed: int = 7, n: int = 480) -> list[dict]:
    """What a browser sends for a gradient of n coordinates: rounds reports of epsilon / rounds."""
    gradient = np.random.default_rng(seed).uniform(-1, 1, n)
    return serving.contribution_reports(gradient, epsilon, rounds, Mulberry32(seed))


def post(body, client=None):
    return (client or APIClient()).post(URL, body, format="json")


def test_a_contribution_is_stored_as_sent_and_nothing_else(preference_model):
    sent = reports(epsilon=1.0, rounds=5)
    response = post({"model": str(preference_model.id), "reports": sent})
    assert response.status_code == 201, response.json()
    body = response.json()
    assert body["reports"] == 5 and body["epsilon"] == pytest.approx(1.0)
    contribution = PreferenceContribution.objects.get(id=body["contribution"])
    assert contribution.model_id == preference_model.id and contribution.rounds == 5
    stored = [{"round": r.round, "index": r.index, "value": r.value, "epsilon": r.epsilon}
              for r in contribution.reports.order_by("round")]
    assert stored == sent
    # The records have no place for anything about the sender: no user, no address, no ratings.
    assert {f.name for f in PreferenceContribution._meta.get_fields()} == {
        "id", "model", "rounds", "epsilon", "aggregated_into", "received_on", "reports"}
    assert {f.name for f in PreferenceReport._meta.get_fields()} == {
        "id", "contribution", "round", "index", "value", "epsilon"}
    # Of the time, the day only (UTC): a finer one would match the request in any other record of it.
    assert contribution.received_on == datetime.now(UTC).date()
    assert not [f.name for f in PreferenceContribution._meta.get_fields() if isinstance(f, models.DateTimeField)]


def test_one_address_sends_at_most_the_report_rate_signed_in_or_not(preference_model, user, settings):
    settings.PREFERENCE_REPORT_RATE = "3/hour"
    settings.CACHES = {**settings.CACHES, "default": {**settings.CACHES["default"], "KEY_PREFIX": uuid.uuid4().hex}}
    body = {"model": str(preference_model.id), "reports": reports()}
    codes = [post(body, token_client(user) if i % 2 else None).status_code for i in range(5)]
    # An account does not buy more (nor is it the key: the limiter's cache never ties a report to an account).
    assert codes == [201, 201, 201, 429, 429]
    assert PreferenceContribution.objects.count() == 3
    assert int(post(body)["Retry-After"]) > 0


def test_a_signed_in_contribution_is_not_tied_to_the_account(preference_model, user):
    response = post({"model": str(preference_model.id), "reports": reports()}, token_client(user))
    assert response.status_code == 201
    assert PreferenceContribution.objects.count() == 1  # and the model has no field that could hold the user


@pytest.mark.parametrize("change,field,expected", [
    (lambda r: r[1].update(index=480), "index", "480 coordinates"),
    (lambda r: r[2].update(index=-1), "index", "greater than or equal to 0"),
    (lambda r: r[0].update(value=1.0), "value", "±"),
    (lambda r: r[3].update(value=one_bit_bound(0.5)), "value", "±"),  # B of another epsilon
    (lambda r: r[1].pop("epsilon"), "epsilon", "required"),
    (lambda r: r[4].update(epsilon=0), "epsilon", "greater than or equal to"),
    (lambda r: r[0].pop("value"), "value", "required"),
    (lambda r: r[2].update(index="seven"), "index", "whole number"),
])
def test_a_malformed_report_is_refused_by_field(preference_model, change, field, expected):
    sent = reports(epsilon=1.0, rounds=5)
    change(sent)
    response = post({"model": str(preference_model.id), "reports": sent})
    assert response.status_code == 400
    errors = response.json()["reports"]  # keyed by the faulty report's position
    assert len(errors) == 1, errors
    (position, fields), = errors.items()
    assert list(fields) == [field] and expected in fields[field][0], errors
    assert position == str(next(i for i, r in enumerate(sent) if r != reports()[i]))
    assert PreferenceContribution.objects.count() == 0


@pytest.mark.parametrize("sent,expected", [
    ([], "may not be empty"),
    ([{**r, "round": 0} for r in reports(rounds=2)], "0, 1, …, R − 1"),
    ([{**r, "round": r["round"] + 1} for r in reports(rounds=3)], "0, 1, …, R − 1"),
    ([*reports(epsilon=1.0, rounds=2)[:1], reports(epsilon=2.0, rounds=2)[1]], "same ε"),
    (reports(epsilon=2.5, rounds=2), "at most 2 is accepted"),
    (reports(epsilon=1.0, rounds=51), "At most 50 reports"),
])
def test_a_malformed_contribution_is_refused(preference_model, sent, expected):
    response = post({"model": str(preference_model.id), "reports": sent})
    assert response.status_code == 400
    errors = response.json()["reports"]
    messages = errors.get("non_field_errors", []) if isinstance(errors, dict) else errors
    assert any(expected in message for message in messages), errors


def test_the_model_must_be_given_and_available(preference_model, default_artifact, user, other_user):
    assert "required" in post({"reports": reports()}).json()["model"][0]
    unknown = post({"model": "7d1f5b44-8f5e-4a63-9a53-9bd0d9c0a111", "reports": reports()})
    assert "available" in unknown.json()["model"][0]
    theirs = register_preference_model(replace(default_artifact, name="alices"), title="Alice's", owner=user)
    refused = post({"model": str(theirs.id), "reports": reports()}, token_client(other_user))
    assert refused.status_code == 400 and "available" in refused.json()["model"][0]
    assert post({"model": str(theirs.id), "reports": reports()}, token_client(user)).status_code == 201
    assert "reports" in post({"model": str(preference_model.id)}).json()


def test_reports_aggregate_into_a_new_version_of_the_model(preference_model, default_artifact):
    # Simulated browsers: each fits its profile to its own ratings and sends its reports, as the page does.
    rng = np.random.default_rng(3)
    for person in range(40):
        items = rng.choice(default_artifact.n_items, 12, replace=False)
        ratings = {int(j): int(rng.random() < 0.3) for j in items}
        profile = serving.fit_profile(default_artifact, ratings)
        gradient = serving.gradient(default_artifact, profile, ratings)
        sent = serving.contribution_reports(gradient, 2.0, 4, Mulberry32(person))
        assert post({"model": str(preference_model.id), "reports": sent}).status_code == 201
    call_command("aggregate_preference_reports", "--min-contributions", "10")
    new = PreferenceModel.objects.get(name=preference_model.name, active=True)
    assert new.id != preference_model.id and new.training["aggregated"]["contributions"] == 40
    assert new.training["aggregated"]["reports"] == 160
    assert PreferenceContribution.objects.filter(aggregated_into=new).count() == 40
    served = APIClient().get("/api/v1/preferences/model").json()
    assert served["id"] == str(new.id) and np.array(served["factors"]).shape == (120, 3)
    # A page loaded before the new version may still send reports for the old one.
    assert post({"model": str(preference_model.id), "reports": reports()}).status_code == 201
    with pytest.raises(Exception, match="at least 5 needed"):
        call_command("aggregate_preference_reports", "--model", str(new.id), "--min-contributions", "5")
