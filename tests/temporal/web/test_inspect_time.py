"""The inspect API's "remove time too": time expressions go first, then the location, in one request; every span
is one of the original post; the options (how, what to keep, which known patterns) change what goes."""

from __future__ import annotations

import uuid

import pytest
from django.urls import reverse
from django.utils import timezone
from rest_framework.test import APIClient

from anonymizer.models import Job
from tests.location.web.test_inspect_api import assert_matches, inspect, openapi  # noqa: F401 (a fixture)

pytestmark = pytest.mark.django_db

LITTLE_ROCK = "Grabbing lunch downtown in Little Rock at 9AM before the Razorbacks game"
DES_MOINES = "Meet me in the morning on Monday at the Capitol in Des Moines"


def remove_time(client: APIClient | None = None, **body) -> dict:
    response = inspect(client or APIClient(), model="us-midwest-en", remove_time=True, **body)
    assert response.status_code == 200, response.content
    return response.json()


def assert_spans_of_the_original(body: dict) -> None:
    text = body["text"]
    for span in body["deleted"] + body["time"]["removed"] + body["time"]["generalized"]:
        assert text[span["start"]:span["end"]] == span["text"]
    for token in body["tokens"]:
        assert text[token["start"]:token["end"]] == token["text"]


def test_time_and_location_go_in_one_pass(location_models, openapi):  # noqa: F811
    body = remove_time(text=LITTLE_ROCK)
    assert_matches(openapi, "InspectResponse", body)
    assert body["time"]["removed"] == [{"start": 39, "end": 45, "text": "at 9AM"}]  # the phrase, not just "9AM"
    assert body["time"]["text_after"] == "Grabbing lunch downtown in Little Rock before the Razorbacks game"
    # A place is one unit, and the Razorbacks (the University of Arkansas's team) place a post in Arkansas too.
    assert [span["text"] for span in body["deleted"]] == ["Little Rock", "Razorbacks"]
    assert body["text_after"] == "Grabbing lunch downtown in before the game"
    assert_spans_of_the_original(body)
    assert all(token["text"] not in ("at", "9AM") for token in body["tokens"])  # the location model never saw them
    # "before" is the post as written: the same as without time removal.
    plain = inspect(APIClient(), text=LITTLE_ROCK, model="us-midwest-en").json()
    assert body["before"] == plain["before"] and body["decision"]["scores_before"] == plain["decision"]["scores_before"]
    assert "time" not in plain


def test_an_argument_is_generalized_and_its_neutral_phrase_is_never_deleted(location_models):
    text = "83 days to my birthday!! Party at the Capitol in Little Rock"
    body = remove_time(text=text)
    # A countdown opening the post says an event is coming, not when (round 6: "Some time to" read unnaturally).
    assert body["time"]["generalized"] == [{"start": 0, "end": 2, "text": "83", "replacement": "Counting down"}]
    assert [span["text"] for span in body["time"]["removed"]] == ["days"]
    # The phrase is kept whole; which other words the location model needs gone depends on its weights.
    assert body["text_after"].startswith("Counting down to ") and "my birthday!!" in body["text_after"]
    assert_spans_of_the_original(body)
    # Only cutting: the argument stays, because cutting it would break the sentence.
    pruned = remove_time(text=text, time_mode="prune")
    assert pruned["time"] == {"text_after": text, "removed": [], "generalized": []}
    assert not {"Counting", "down"} & {token["text"] for token in body["tokens"]}


def test_the_neutral_phrase_is_never_deleted(location_models):
    text = "83 days to my birthday in Little Rock"
    tokens = remove_time(text=text)["tokens"]
    deletable = sum(token["deletable"] for token in tokens)
    every = remove_time(text=text, mode="fixed", m=deletable)
    assert every["text_after"].startswith("Counting down")
    # One more than the post's own words: the phrase's words do not count as deletable.
    response = inspect(APIClient(), text=text, model="us-midwest-en", remove_time=True, mode="fixed",
                       m=deletable + 1)
    assert response.status_code == 400 and f"has {deletable} deletable units" in response.json()["m"][0]


def test_a_granularity_can_be_kept(location_models):
    everything = remove_time(text=DES_MOINES)
    assert [span["text"] for span in everything["time"]["removed"]] == ["in the morning on Monday"]
    morning_kept = remove_time(text=DES_MOINES, keep_time=["part_of_day"])
    assert [span["text"] for span in morning_kept["time"]["removed"]] == ["on Monday"]
    assert morning_kept["time"]["text_after"] == "Meet me in the morning at the Capitol in Des Moines"


def test_how_long_stays_unless_asked_to_go(location_models):
    text = "Slept for 12 hours in Des Moines 2 days ago, every day there was worth it"
    kept = remove_time(text=text)
    assert [span["text"] for span in kept["time"]["removed"]] == ["2 days ago"]  # tied to now: it goes
    assert kept["time"]["text_after"] == "Slept for 12 hours in Des Moines, every day there was worth it"
    removed = remove_time(text=text, remove_how_long=True)
    assert "12 hours" not in removed["time"]["text_after"] and "every day" not in removed["time"]["text_after"]


def test_known_patterns_from_a_patterns_job_limit_what_is_cut(location_models, user, other_user):
    text = "I woke up this morning and drove to Little Rock at 9AM"
    owner = APIClient()
    owner.force_authenticate(user)
    every = remove_time(owner, text=text, time_mode="prune")
    assert [span["text"] for span in every["time"]["removed"]] == ["this morning", "at 9AM"]
    # A job that learned only the prepositional shape: "this morning" (npadvmod) is not a known pattern.
    learned = {"input": "posts.csv", "patterns": [{"pattern": "prep:ANY(pobj:TIME)", "count": 4}]}
    job = Job.objects.create(owner=user, kind="temporal_patterns", status=Job.Status.SUCCEEDED,
                             finished_at=timezone.now(), result=learned)
    known = remove_time(owner, text=text, time_mode="prune", time_patterns=str(job.id))
    assert [span["text"] for span in known["time"]["removed"]] == ["at 9AM"]
    # Someone else's job, an unknown id and an unfinished job are refused by field.
    stranger = APIClient()
    stranger.force_authenticate(other_user)
    for client, job_id in ((stranger, job.id), (owner, uuid.uuid4())):
        response = inspect(client, text=text, model="us-midwest-en", remove_time=True, time_patterns=str(job_id))
        assert response.status_code == 400 and "no 'learn temporal patterns' job" in response.json()["time_patterns"][0]
    Job.objects.filter(id=job.id).update(status=Job.Status.RUNNING)
    response = inspect(owner, text=text, model="us-midwest-en", remove_time=True, time_patterns=str(job.id))
    assert response.status_code == 400 and "is running, not succeeded" in response.json()["time_patterns"][0]


@pytest.mark.parametrize(
    ("body", "field", "message"),
    [
        ({"text": "今日は浅草で", "model": "tokyo-ja"}, "remove_time", "English posts only; the model 'tokyo-ja'"),
        # Another language through the English parser comes out broken, its dates intact: refused, saying why.
        ({"text": "Férias de 3 meses amo EUA por isso kkk"}, "text", "not English (only 12% of its words are English"),
        ({"text": "at 9AM", "time_mode": "sometimes"}, "time_mode", "not a valid choice"),
        ({"text": "at 9AM", "keep_time": ["weekday"]}, "keep_time", "not a valid choice"),
        ({"text": "at 9AM", "time_patterns": "job-1"}, "time_patterns", "valid UUID"),
    ],
)
def test_bad_time_options_answer_400_naming_the_field(location_models, body, field, message):
    response = inspect(APIClient(), **{"model": "us-midwest-en", **body, "remove_time": True})
    assert response.status_code == 400
    assert message in " ".join(map(str, response.json()[field] if isinstance(response.json()[field], list)
                                   else response.json()[field].values()))


def test_batch_removes_time_from_every_post(location_models, openapi):  # noqa: F811
    texts = [LITTLE_ROCK, DES_MOINES, "No time here, just Little Rock"]
    response = APIClient().post(reverse("api-inspect-batch"), {"texts": texts, "model": "us-midwest-en",
                                                                "remove_time": True}, format="json")
    assert response.status_code == 200
    body = response.json()
    assert_matches(openapi, "InspectBatchResponse", body)
    removed = [[span["text"] for span in item["result"]["time"]["removed"]] for item in body["results"]]
    assert removed == [["at 9AM"], ["in the morning on Monday"], []]
    assert body["results"][2]["result"]["time"]["text_after"] == texts[2]


def test_without_ner_the_lexicon_tags_alone(location_models, settings):
    from anonymizer.temporal.removal import TimeRemovalOptions
    from anonymizer.temporal.web.services import time_anonymizer_for as time_anonymizer

    settings.TEMPORAL_USE_NER = False  # the faster setting: no spaCy NER in the pipeline
    anonymizer = time_anonymizer(None, TimeRemovalOptions())
    assert "ner" not in anonymizer.nlp.pipe_names and not anonymizer.tagger.use_entities
    assert remove_time(text=LITTLE_ROCK)["time"]["removed"] == [{"start": 39, "end": 45, "text": "at 9AM"}]
    settings.TEMPORAL_USE_NER = True
    assert "ner" in time_anonymizer(None, TimeRemovalOptions()).nlp.pipe_names


def test_now_words_stay_unless_the_request_keeps_nothing(location_models):
    # Issue 46's decision: "now" words tell nothing beyond the post's own timestamp. The default keeps them (the
    # page's "now, soon, later" box starts ticked); an explicit empty keep_time removes them as well.
    text = "Currently in Des Moines, heading to the Capitol right now, back at 9AM"
    kept = remove_time(text=text)
    assert "9AM" not in kept["time"]["text_after"]
    assert kept["time"]["text_after"].startswith("Currently in Des Moines, heading to the Capitol right now")
    assert not any("now" in span["text"] or "Currently" in span["text"] for span in kept["time"]["removed"])
    removed = remove_time(text=text, keep_time=[])
    after = removed["time"]["text_after"]
    assert "Currently" not in after and "right now" not in after and "9AM" not in after
