"""The inspect API's words to keep as phrases, its warnings and verdict (schema-valid), and the map report
endpoint (POST /api/v1/inspect/report): an offline HTML page or an SVG figure with the de-identified text only."""

from __future__ import annotations

import logging
import re
import xml.etree.ElementTree as ET

import pytest
from django.urls import reverse
from rest_framework.test import APIClient

from anonymizer.location.report import external_urls
from anonymizer.location.web.api import InspectReportView, InspectView
from tests.helpers import ROOT
from tests.location.web.test_inspect_api import assert_matches, inspect, openapi  # noqa: F401 (fixture)

pytestmark = pytest.mark.django_db
POST = "Grabbing lunch downtown in Des Moines before the Iowa Cubs game"


def test_a_phrase_is_kept_and_an_absent_keep_word_is_warned_about(location_models, openapi):  # noqa: F811
    body = inspect(APIClient(), text=POST, model="us-midwest-en", keep=["LUNCH  downtown", "Ames"]).json()
    assert_matches(openapi, "InspectResponse", body)
    assert "lunch downtown" in body["text_after"] and body["verdict"]["releasable"]
    assert body["warnings"] == [{"field": "keep", "message": "“Ames” is not in the post."}]
    kept = inspect(APIClient(), text=POST, model="us-midwest-en", keep=["iowa cubs"]).json()
    assert "Iowa Cubs" in kept["text_after"]  # a phrase over two units keeps both (here: too much to get under)
    assert not kept["verdict"]["releasable"] and kept["warnings"][0]["field"] == "keep"
    assert [c["name"] for c in body["verdict"]["checks"]] == ["location", "places", "human"]


def test_an_impossible_keep_list_is_flagged_and_not_releasable(location_models, openapi):  # noqa: F811
    body = inspect(APIClient(), text=POST, model="us-midwest-en", keep=["Des Moines"]).json()
    assert_matches(openapi, "InspectResponse", body)
    assert "Des Moines" in body["text_after"] and not body["after"]["under_threshold"]
    assert body["verdict"]["releasable"] is False and body["verdict"]["status"] == "fail"
    assert any(w["field"] == "keep" and "makes the goal impossible" in w["message"] for w in body["warnings"])
    classifier, places, _ = body["verdict"]["checks"]
    assert classifier["passed"] is False and places["passed"] is False and places["left"] == ["Des Moines"]


def report(client: APIClient, **body):
    return client.post(reverse("api-inspect-report"), body, format="json")


def test_the_html_report_downloads_offline_with_the_deidentified_text(location_models, caplog):
    caplog.set_level(logging.DEBUG)
    inspected = inspect(APIClient(), text=POST, model="us-midwest-en").json()
    response = report(APIClient(), text=POST, model="us-midwest-en")  # anonymous, like inspect
    assert response.status_code == 200
    assert response["Content-Type"] == "text/html; charset=utf-8"
    assert re.fullmatch(r'attachment; filename="kakurega-map-us-midwest-en-\d{8}-\d{4}\.html"',
                        response["Content-Disposition"]), response["Content-Disposition"]
    document = response.content.decode()
    assert external_urls(document) == []
    # The only URLs are inside the inlined, vendored Leaflet (its attribution link, never shown: no attribution
    # control) and the SVG namespace; none outside it.
    rest = document
    for vendored in ("vendor/leaflet/leaflet.js", "vendor/leaflet.sync/L.Map.Sync.js"):
        rest = rest.replace((ROOT / "static" / vendored).read_text().replace("</script", "<\\/script"), "")
    assert not re.search(r"https?://", rest), re.findall(r".{40}https?://.{40}", rest)
    assert inspected["text_after"] in document and POST not in document
    assert POST not in caplog.text  # the post's text is not logged
    assert len(response.content) < 1_500_000
    print(f"HTML report: {len(response.content):,} bytes")


def test_the_svg_report_and_bad_input(location_models, tokyo):
    text = tokyo.inferable_text()
    response = report(APIClient(), text=text, format="svg")
    assert response.status_code == 200 and response["Content-Type"] == "image/svg+xml; charset=utf-8"
    root = ET.fromstring(response.content)
    svg = "{http://www.w3.org/2000/svg}"
    # By default the after map only; the before map is an explicit option.
    assert len(root.findall(f".//{svg}g[@id='after']/{svg}rect[@class='cell']")) == 200
    assert root.find(f".//{svg}g[@id='before']") is None
    with_before = ET.fromstring(report(APIClient(), text=text, format="svg", include_before=True).content)
    for which in ("before", "after"):
        assert len(with_before.findall(f".//{svg}g[@id='{which}']/{svg}rect[@class='cell']")) == 200
    assert text not in response.content.decode()
    bad = report(APIClient(), text="hello", format="pdf")
    assert bad.status_code == 400 and "format" in bad.json()
    assert report(APIClient(), text="").status_code == 400


def test_the_report_is_throttled_like_inspect():
    assert InspectReportView.throttle_classes == InspectView.throttle_classes


@pytest.mark.parametrize("model, text, name", [
    ("us-midwest-en", "Dinner at Zubrowka's Diner tonight, so good", "Zubrowka's Diner"),
    ("tokyo-ja", "ほげほげ商店街で友達と待ち合わせ", "ほげほげ商店街"),
])
def test_a_name_no_list_holds_is_listed_for_review_and_never_passes(location_models, openapi,  # noqa: F811
                                                                    model, text, name):
    body = inspect(APIClient(), text=text, model=model).json()
    assert_matches(openapi, "InspectResponse", body)
    verdict = body["verdict"]
    [item] = [i for i in verdict["review"] if i["text"] == name]
    assert body["text_after"][item["start"]:item["end"]] == name and item["why"].endswith("not in the gazetteer")
    assert verdict["status"] != "pass" and "Kakurega reads only the text" in verdict["cannot_know"]
    places = verdict["checks"][1]
    if verdict["status"] == "review":  # under every threshold: Copy stays, with the names to check beside it
        assert verdict["releasable"] is True and places["status"] == "review" and places["review"] == [name]
        assert places["text"] == f"Places: review: “{name}” ◐"
