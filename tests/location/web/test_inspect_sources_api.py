"""The inspect API names its sources and its limits (issue 43): the verdict's `before` sentence and each scorer
before and after (schema-valid), a post not in the model's language warned about in `warnings`, and the map
report's explicit `include_before` (default: the after map only; with it, the file's first line says that it
reveals where the post points, and its name says "with-before")."""

from __future__ import annotations

import pytest
from django.urls import reverse
from rest_framework.test import APIClient

from tests.location.web.test_inspect_api import assert_matches, inspect, openapi  # noqa: F401 (fixture)

pytestmark = pytest.mark.django_db
TSUNASHIMA = "綱島駅で友達と待ち合わせ"


def test_the_verdict_names_the_scorer_that_decided(location_models, openapi):  # noqa: F811
    body = inspect(APIClient(), text=TSUNASHIMA).json()
    assert_matches(openapi, "InspectResponse", body)
    assert body["model"]["name"] == "tokyo-ja" and body["map_scorer"] == "places"
    places = next(v for v in body["before"]["scorers"] if v["name"] == "places")
    assert places["over"] and places["found"] == ["綱島駅"]
    assert body["verdict"]["before"].startswith("Before: the place scorer (gazetteer) found “綱島駅” in the text: ")
    assert [v["name"] for v in body["after"]["scorers"]] == ["location", "places"]
    assert body["warnings"] == []


@pytest.mark.parametrize(("body", "language"), [
    ({"text": "我在东京塔附近"}, "Japanese"),  # no model named: the Japanese model, chosen by the script
    ({"text": "我在东京塔附近", "model": "tokyo-ja"}, "Japanese"),
    ({"text": "今日は浅草の雷門の前で待ち合わせ！", "model": "us-midwest-en"}, "English"),
])
def test_a_post_not_in_the_models_language_gets_a_warning(location_models, openapi, body, language):  # noqa: F811
    response = inspect(APIClient(), **body)
    assert response.status_code == 200, response.content
    result = response.json()
    assert_matches(openapi, "InspectResponse", result)
    [warning] = [w for w in result["warnings"] if w["field"] == "text"]
    assert warning["message"].startswith(f"This post does not look {language} (")
    assert warning["message"] in result["verdict"]["summary"]
    # The batch says it per post.
    batch = APIClient().post(reverse("api-inspect-batch"), {**{k: v for k, v in body.items() if k != "text"},
                                                            "texts": [body["text"]]}, format="json").json()
    assert batch["results"][0]["result"]["warnings"] == result["warnings"]


def report(**body):
    return APIClient().post(reverse("api-inspect-report"), body, format="json")


def test_the_report_shows_before_only_when_asked(location_models):
    default = report(text=TSUNASHIMA, format="svg")
    assert default.status_code == 200
    document = default.content.decode()
    assert 'id="before"' not in document and "WARNING" not in document and "目黒区" not in document
    assert "-with-before" not in default["Content-Disposition"]
    opted = report(text=TSUNASHIMA, format="svg", include_before=True)
    document = opted.content.decode()
    assert document.splitlines()[0].startswith("<!-- WARNING: this file includes the “before” map: it reveals "
                                               "where the original post points")
    assert 'id="before"' in document and "綱島" not in document
    assert opted["Content-Disposition"].endswith('-with-before.svg"')
    html = report(text=TSUNASHIMA, include_before=True)
    assert html.content.decode().splitlines()[0].startswith("<!-- WARNING: this file includes the “before” map")
    bad = report(text=TSUNASHIMA, include_before="yes")
    assert bad.status_code == 400 and "include_before" in bad.json()
