"""The campaign page draws each post's yes-rate with its 95% Wilson interval against the cut-off: one dot per
answered post at the x of its yes-rate, the cut-off's line at its x, each post coloured by what its interval
decides, labelled by its text; the numbers stay in the table below. The new-campaign form says what each number
means and its range, and names location models by their display name."""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from collections import Counter

import pytest
from django.urls import reverse

from anonymizer.crowd.stats import wilson_interval
from anonymizer.crowd.web import services as crowd
from anonymizer.models import TrainedLocationModel
from tests.helpers import answer_all

pytestmark = pytest.mark.django_db

SVG = "{http://www.w3.org/2000/svg}"
# Text -> how many of the 12 participants answer yes. Cut-off 0.5: 12 of 12 is decided inferable (interval
# 0.76-1), 0 of 12 decided not (0-0.24), 6 of 12 straddles it; the last post nobody answers.
YES = {"Lunch at the Shibuya Scramble crossing again, the crowd is unreal": 12,
       "Coffee first, then the long meeting about budgets": 0,
       "Rain all afternoon near the river, the trains are late": 6}
UNANSWERED = "A post that waits for its first answer"
PARTICIPANTS = 12


def chart_of(html: str) -> ET.Element:
    return ET.fromstring(re.search(r'<figure class="chart-figure" id="yes-rate-chart">(<svg.*?</svg>)', html,
                                   re.S).group(1))


def test_each_post_is_a_dot_at_its_yes_rate_coloured_by_its_interval_against_the_cutoff(client, staff):
    posts = [crowd.PostSpec(text, external_id=f"r{i}") for i, text in enumerate(YES)]
    campaign = crowd.create_campaign(owner=staff, name="charts", instructions="Judge.", consent_text="OK.",
                                     posts=posts, judgments_per_post=PARTICIPANTS, cutoff=0.5)
    given = Counter()

    def decide(text: str) -> bool:
        given[text] += 1
        return given[text] <= YES[text]

    answer_all(campaign, PARTICIPANTS, decide)
    campaign.posts.create(text=UNANSWERED, kind="regular", external_id="r3")
    client.force_login(staff)
    html = client.get(reverse("campaign-detail", args=[campaign.id])).content.decode()
    svg = chart_of(html)
    width = float(svg.get("viewBox").split()[2])
    left, right = 10, 14  # the chart's margins: 0% at x = 10, 100% at width - 14

    def x_of(rate: float) -> float:
        return left + rate * (width - left - right)

    cutoff = svg.find(f".//{SVG}line[@class='cutoff']")
    assert float(cutoff.get("data-x")) == pytest.approx(x_of(0.5), abs=0.01)
    groups = svg.findall(f".//{SVG}g")
    assert len(groups) == len(YES)  # one per answered post; the unanswered one says so instead
    assert "no answers yet" in "".join(svg.itertext())
    labels = [t.text for t in svg.findall(f".//{SVG}text[@class='row-label']")]
    states = {}
    for group in groups:
        dots = [e for e in group if e.get("class") == "dot"]
        assert len(dots) == 1
        tooltip = dots[0].find(f"{SVG}title").text
        text = next(t for t in YES if t[:40] in tooltip)  # the label is the post's CSV id, then its text
        assert float(dots[0].get("data-x")) == pytest.approx(x_of(YES[text] / PARTICIPANTS), abs=0.01)
        interval = wilson_interval(YES[text], PARTICIPANTS)
        line = group.find(f"{SVG}line")
        assert float(line.get("x1")) == pytest.approx(x_of(interval.low), abs=0.06)
        assert float(line.get("x2")) == pytest.approx(x_of(interval.high), abs=0.06)
        states[text] = group.get("class").split()[1]
    assert states == {"Lunch at the Shibuya Scramble crossing again, the crowd is unreal": "inferable",
                      "Coffee first, then the long meeting about budgets": "not-inferable",
                      "Rain all afternoon near the river, the trains are late": "undecided"}
    # Labelled by text (cut at a word), highest yes-rate first, the unanswered post last.
    # Each post by its CSV id and the start of its text.
    assert labels[0].startswith("r0: Lunch at the Shibuya Scramble") and labels[0].endswith("…")
    assert labels[1].startswith("r2: Rain all afternoon") and labels[2].startswith("r1: Coffee first")
    assert labels[3] == f"r3: {UNANSWERED}"
    # The numbers are one look away: the table follows the chart, with each post's text.
    assert html.index('id="yes-rate-chart"') < html.index('id="aggregates"')
    assert "0.500 (" in html and "Coffee first" in html[html.index('id="aggregates"'):]


HELPED = {"cutoff": ("human-inferable", "More than 0 and less than 1."),
          "gold_share": ("gold post", "From 0 to less than 1."),
          "attention_checks": ("what to answer", "0, or from 2 to 20."),
          "min_gold_answers": ("gold posts", "From 0 to 1,000."),
          "judgments_per_post": ("answers each post", "From 1 to 1,000."),
          "min_gold_accuracy": ("flagged", "From 0 to 1."),
          "per_participant_cap": ("one participant", "From 1 to 10,000."),
          "reservation_seconds": ("back to the queue", "From 10 to 86,400.")}


def test_the_new_campaign_form_says_what_each_number_means_and_its_range_and_names_models_one_way(client, staff):
    common = {"language": "en", "path": "unused", "threshold": 0.37, "threshold_kind": "attacker"}
    TrainedLocationModel.objects.create(name="us-midwest-en", title="US Midwest and South (English)", version="v1",
                                        **common)
    TrainedLocationModel.objects.create(owner=staff, name="mine", title="My Midwest", version="v3", **common)
    client.force_login(staff)
    html = client.get(reverse("campaign-new")).content.decode()
    for field, (meaning, allowed) in HELPED.items():
        help_text = re.search(rf'id="id_{field}_helptext">(.*?)</div>', html, re.S).group(1)
        assert meaning in help_text and allowed in help_text, (field, help_text)
    # A model is called by its display name, as on the other pages (not "name version").
    assert ">US Midwest and South (English)</option>" in html and ">My Midwest (yours)</option>" in html
    assert "us-midwest-en v1" not in html
