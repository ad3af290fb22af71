"""The dashboard's strike-words report and map answers, read from answers stored through the crowd services (as
the participant API stores them): counts equal the stored answers, flagged participants are left out, a click on
a post without a true point counts, and the two partial templates show the numbers."""

from __future__ import annotations

import json
import re

import krippendorff
import numpy as np
import pytest
from django.template.loader import render_to_string

from anonymizer.crowd.web import services as crowd
from anonymizer.crowd.web.strike_report import map_answers, strike_report
from anonymizer.location.model import LocationModel
from anonymizer.models import Campaign, Judgment, Participant
from anonymizer.platform import artifacts
from anonymizer.platform.grid import haversine_km

pytestmark = pytest.mark.django_db

LAKE = "Lunch by the lake in Chicago today, windy as ever"  # has a true point
ROAD = "Stuck in traffic on the highway again"  # uploaded without one
# Per participant and post: the words struck, and an optional map click (lat, lon).
VALID = [
    {LAKE: (["Chicago"], None), ROAD: (["highway"], (41.0, -90.0))},
    {LAKE: (["Chicago", "lake"], (42.0, -88.0)), ROAD: ([], None)},
    {LAKE: (["Chicago"], None), ROAD: (["traffic", "highway"], None)},
]
FLAGGED = {LAKE: (["Lunch"], (30.0, -100.0)), ROAD: (["again"], (35.0, -95.0))}
CHICAGO = (41.88, -87.63)


def take_part(campaign: Campaign, plan: dict, tokens_of) -> Participant:
    """A participant who joins, consents and answers every post served, striking the words of ``plan``."""
    participant = crowd.join(campaign)
    crowd.consent(participant)
    while (assignment := crowd.next_assignment(participant)) is not None:
        words, click = plan[assignment.post.text]
        tokens = tokens_of(assignment.post.text)
        struck = sorted(i for i, t in enumerate(tokens) if t.text in words)
        assert len(struck) == len(words)
        lat, lon = click or (None, None)
        crowd.answer(participant, assignment.post_id, deleted_tokens=struck, latitude=lat, longitude=lon)
    return participant


@pytest.fixture
def campaign(staff, location_models) -> Campaign:
    record = location_models["us-midwest-en"]
    posts = [crowd.PostSpec(LAKE, external_id="lake-1", latitude=CHICAGO[0], longitude=CHICAGO[1]),
             crowd.PostSpec(ROAD, external_id="road-2")]
    campaign = crowd.create_campaign(owner=staff, name="strike", instructions="Strike.", consent_text="OK.",
                                     posts=posts, task=Campaign.Task.DEIDENTIFY, ask_location=True,
                                     judgments_per_post=4, location_model=record)
    model = artifacts.load(record, LocationModel.load)
    for plan in VALID:
        take_part(campaign, plan, model.tokenize)
    flagged = take_part(campaign, FLAGGED, model.tokenize)
    Participant.objects.filter(id=flagged.id).update(flagged_reason="failed an attention check")
    campaign.tokenize = model.tokenize  # for the tests' own expectations
    return campaign


def test_strike_report_counts_the_stored_answers_and_leaves_out_the_flagged(campaign):
    assert Judgment.objects.filter(post__campaign=campaign).count() == 8
    report = strike_report(campaign)
    assert (report["posts"], report["answers"], report["excluded"], report["shown"]) == (2, 6, 2, 2)
    lake, road = report["rows"]  # the dashboard's order: post id
    assert (lake["external_id"], road["external_id"]) == ("lake-1", "road-2")
    assert lake["post"] < road["post"] and lake["snippet"] == LAKE
    for row, text in ((lake, LAKE), (road, ROAD)):
        stored = list(Judgment.objects.filter(post_id=row["post"], participant__flagged_reason="")
                      .values_list("deleted_tokens", flat=True))
        assert row["answers"] == len(stored) == 3 and row["excluded"] == 1
        tokens = campaign.tokenize(text)
        assert row["tokens"] == len(tokens) == len(row["words"])
        # Each word's count is how many stored valid answers struck it.
        assert [w["count"] for w in row["words"]] == [sum(i in s for s in stored) for i in range(len(tokens))]
        # The words and the text between them rebuild the post.
        assert "".join(w["before"] + w["text"] for w in row["words"]) + row["after"] == text
    counts = {row["post"]: {w["text"]: w["count"] for w in row["words"] if w["count"]} for row in (lake, road)}
    # The flagged participant's "Lunch" and "again" count nowhere.
    assert counts == {lake["post"]: {"Chicago": 3, "lake": 1}, road["post"]: {"highway": 2, "traffic": 1}}
    assert [lake["words"][i]["text"] for i in lake["consensus"]] == ["Chicago"]
    assert [road["words"][i]["text"] for i in road["consensus"]] == ["highway"]  # 2 of 3; traffic's 1 of 3 is not
    assert "Chicago" not in lake["consensus_text"] and "lake" in lake["consensus_text"]
    assert "highway" not in road["consensus_text"] and "traffic" in road["consensus_text"]

    # Alpha: the krippendorff package on participants x strikeable words (punctuation is no decision).
    valid = list(Participant.objects.filter(campaign=campaign, flagged_reason="").order_by("created_at"))
    columns = []
    for row in (lake, road):
        struck = {str(p): set(Judgment.objects.get(participant=p, post_id=row["post"]).deleted_tokens) for p in valid}
        columns += [[float(w["index"] in struck[str(p)]) for p in valid] for w in row["words"] if w["deletable"]]
    expected = krippendorff.alpha(reliability_data=np.array(columns).T, level_of_measurement="nominal")
    assert report["alpha"] == pytest.approx(expected, abs=1e-12)
    assert report["units"] == len(columns)


def test_map_answers_counts_a_click_on_a_post_without_a_true_point(campaign):
    answers = map_answers(campaign)
    assert (answers["count"], answers["excluded"], answers["with_true_point"]) == (2, 2, 1)
    road, lake = answers["clicks"]  # in answer order: the first participant clicked on the road post
    assert (road["external_id"], road["lat"], road["lon"], road["true"], road["error_km"]) == (
        "road-2", 41.0, -90.0, None, None)
    assert lake["true"] == list(CHICAGO) and lake["snippet"] == LAKE
    error = haversine_km(42.0, -88.0, *CHICAGO)
    assert lake["error_km"] == pytest.approx(error) and answers["median_error_km"] == pytest.approx(error)
    grid = campaign.location_model.metadata["grid"]
    assert answers["grid"] == grid
    assert answers["geography"]["layers"] and all(layer["url"].startswith("/static/vendor/")
                                                  for layer in answers["geography"]["layers"])


def test_map_answers_without_a_location_model(staff):
    campaign = crowd.create_campaign(owner=staff, name="where", instructions="Judge.", consent_text="OK.",
                                     posts=[crowd.PostSpec("Rain again")], ask_location=True, judgments_per_post=1)
    participant = crowd.join(campaign)
    crowd.consent(participant)
    assignment = crowd.next_assignment(participant)
    crowd.answer(participant, assignment.post_id, answer=True, latitude=35.0, longitude=139.0)
    answers = map_answers(campaign)
    assert answers["count"] == 1 and answers["median_error_km"] is None
    assert answers["grid"] is None and answers["geography"] is None


def scripts_are_files_or_data(html: str) -> None:
    """No inline script: the Content-Security-Policy allows the site's own script files only."""
    for tag in re.findall(r"<script\b[^>]*>", html):
        assert " src=" in tag or 'type="application/json"' in tag, tag


def test_the_strikes_partial_shows_the_numbers(campaign):
    report = strike_report(campaign)
    html = render_to_string("crowd/_strikes.html", {"strikes": report})
    assert re.search(r'id="strikes-answers">6 on 2 posts; 2 of flagged participants left out', html)
    assert f'id="strikes-alpha">{report["alpha"]:.3f} over {report["units"]} words' in html
    lake, road = report["rows"]
    assert "CSV id lake-1" in html and "CSV id road-2" in html
    assert html.count('<td class="strikes-answers">3</td>') == 2
    assert html.count('<td class="strikes-excluded">1</td>') == 2
    # Each struck word carries its count as text (not only a shade), the consensus word is crossed out.
    assert re.search(r'title="struck by 3 of 3"><del>Chicago</del></mark><sup class="strike-count">3</sup>', html)
    assert re.search(r'title="struck by 1 of 3">lake</mark><sup class="strike-count">1</sup>', html)
    assert re.search(r'title="struck by 2 of 3"><del>highway</del></mark><sup class="strike-count">2</sup>', html)
    assert "Lunch</mark>" not in html and "again</mark>" not in html  # the flagged participant's strikes
    assert lake["consensus_text"] in html and road["consensus_text"] in html
    assert '<div class="scroll">' in html
    scripts_are_files_or_data(html)


def test_the_map_partial_shows_the_numbers_and_passes_its_config_as_json(campaign):
    answers = map_answers(campaign)
    html = render_to_string("crowd/_map_answers.html", {"map_answers": answers})
    assert 'id="map-answers-count">2 (2 of flagged participants left out)' in html
    assert f'id="map-answers-median">{answers["median_error_km"]:.1f} km' in html
    config = json.loads(re.search(r'<script id="map-answers-config" type="application/json">(.*?)</script>',
                                  html, re.S).group(1))
    assert config["count"] == 2 and len(config["clicks"]) == 2 and config["grid"] == answers["grid"]
    for script in ("vendor/leaflet/leaflet.js", "vendor/topojson-client/topojson-client.min.js", "js/geography.js",
                   "js/crowd-map-answers.js"):
        assert f'src="/static/{script}"' in html
    assert 'href="/static/vendor/leaflet/leaflet.css"' in html and "unpkg" not in html and "cdn" not in html
    assert html.index('id="map-answers-map"') < html.index("map-answers-config") < html.index("crowd-map-answers.js")
    scripts_are_files_or_data(html)


def test_the_map_partial_without_clicks_loads_no_map(staff):
    campaign = crowd.create_campaign(owner=staff, name="where", instructions="Judge.", consent_text="OK.",
                                     posts=[crowd.PostSpec("Rain again")], ask_location=True)
    html = render_to_string("crowd/_map_answers.html", {"map_answers": map_answers(campaign)})
    assert 'id="map-answers-count">0<' in html and "Nobody has clicked the map yet." in html
    assert "<script" not in html and 'id="map-answers-map"' not in html
