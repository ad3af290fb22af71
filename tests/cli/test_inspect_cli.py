"""``kakurega inspect`` and ``kakurega.inspect``: the inspect page's result for one post, without a server — the
same released text and verdict the inspect API gives for the same post, model and options."""

from __future__ import annotations

import json

import pytest

from tests.cli.conftest import run_kakurega
from tests.helpers import token_client

POST = "Grabbing lunch downtown in Des Moines before the Iowa Cubs game"
JAPANESE = "渋谷駅で友達とランチ、そのあと代々木公園を散歩"


def test_json_names_the_deleted_places_and_the_released_text(kakurega_cache) -> None:
    shown = run_kakurega("inspect", POST, "--json")
    assert shown.returncode == 0, shown.stderr
    result = json.loads(shown.stdout)
    assert result["model"]["name"] == "us-midwest-en"  # an English post: the English default model
    deleted = " ".join(span["text"] for span in result["deleted"])
    assert "Des Moines" in deleted
    assert "Des Moines" not in result["text_after"] and "Grabbing lunch" in result["text_after"]
    assert result["verdict"]["status"] in {"pass", "review", "places", "fail"}
    assert result["before"]["top"][0]["probability"] > result["after"]["top"][0]["probability"]


def test_the_text_from_standard_input_and_a_short_report(kakurega_cache) -> None:
    shown = run_kakurega("inspect", "-", stdin=JAPANESE)
    assert shown.returncode == 0, shown.stderr
    lines = dict(line.split(": ", 1) for line in shown.stdout.splitlines() if ": " in line)
    assert lines["model"].startswith("tokyo-ja")  # a Japanese post: the Tokyo model
    assert lines["verdict"].split(".")[0] in {"pass", "review", "places", "fail"}
    assert "渋谷" not in lines["released"] and "友達" in lines["released"]


@pytest.mark.django_db
def test_the_same_result_as_the_inspect_api(kakurega_cache, location_models, django_user_model) -> None:
    """One post, three options changed from their defaults: the command and the API release the same text with
    the same verdict, deletions and top cells."""
    from kakurega import inspect

    user = django_user_model.objects.create_user("cli-inspect", password="x" * 12)
    options = {"replacement": "mask", "places": "needed", "keep": ["Iowa Cubs"]}
    response = token_client(user).post("/api/v1/inspect", {"text": POST, "model": "us-midwest-en", **options},
                                       format="json")
    assert response.status_code == 200, response.content
    api = response.json()
    here = inspect(POST, model="us-midwest-en", replacement="mask", places="needed", keep_words=["Iowa Cubs"])
    assert here["text_after"] == api["text_after"]
    assert here["verdict"]["status"] == api["verdict"]["status"]
    assert [d["text"] for d in here["deleted"]] == [d["text"] for d in api["deleted"]]
    assert [c["cell"] for c in here["after"]["top"]] == [c["cell"] for c in api["after"]["top"]]


@pytest.mark.parametrize(("args", "stdin", "expected"), [
    (["   "], None, "text: the post is empty"),
    (["-"], "", "text: the post is empty"),
    ([JAPANESE, "--remove-time"], None, "remove_time: time expressions are found in English posts only"),
    ([POST, "--model", "/no/such/model"], None, "model '/no/such/model': expected one of tokyo-ja, us-midwest-en"),
])
def test_bad_input_exits_2_saying_what_was_expected(kakurega_cache, args, stdin, expected) -> None:
    shown = run_kakurega("inspect", *args, stdin=stdin)
    assert shown.returncode == 2, (shown.stdout, shown.stderr)
    assert expected in shown.stderr
    assert shown.stdout == ""
