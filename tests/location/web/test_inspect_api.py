"""POST /api/v1/inspect and /api/v1/inspect/batch: real models, schema-valid answers, clear 400s, 429."""

from __future__ import annotations

import jsonschema
import pytest
from django.urls import reverse
from rest_framework.test import APIClient

from anonymizer.location.release import remove_spans
from anonymizer.location.tokenize import Token

pytestmark = pytest.mark.django_db


@pytest.fixture(scope="module")
def openapi(django_db_blocker) -> dict:
    with django_db_blocker.unblock():
        return APIClient().get(reverse("api-schema"), HTTP_ACCEPT="application/vnd.oai.openapi+json").json()


def assert_matches(schema: dict, component: str, instance: dict) -> None:
    jsonschema.validate(instance, {"$ref": f"#/components/schemas/{component}", "components": schema["components"]})


def inspect(client: APIClient, **body):
    return client.post(reverse("api-inspect"), body, format="json")


def test_a_real_japanese_post_is_inspected_and_deidentified(location_models, tokyo, openapi):
    text = tokyo.inferable_text()
    response = inspect(APIClient(), text=text)
    assert response.status_code == 200, response.content
    body = response.json()
    assert_matches(openapi, "InspectResponse", body)
    assert body["model"]["name"] == "tokyo-ja" and body["model"]["language"] == "ja"  # chosen by language
    grid = body["model"]["grid"]
    assert len(body["before"]["probabilities"]) == len(body["after"]["probabilities"]) == grid["rows"] * grid["cols"]
    assert sum(body["before"]["probabilities"]) == pytest.approx(1.0, abs=1e-4)
    assert not body["before"]["under_threshold"] and body["after"]["under_threshold"]
    assert body["decision"]["mode"] == "auto" and body["decision"]["m"] == len(body["deleted"]) > 0
    for span in body["deleted"]:
        assert text[span["start"]: span["end"]] == span["text"]
    tokens = [Token(s["text"], s["start"], s["end"], "", True) for s in body["deleted"]]
    assert body["text_after"] == remove_spans(text, tokens)


def test_cells_are_named_by_their_places(location_models, openapi):
    text = "Grabbing lunch downtown in Des Moines before the Iowa Cubs game"
    response = inspect(APIClient(), text=text, model="us-midwest-en")
    assert response.status_code == 200, response.content
    body = response.json()
    assert_matches(openapi, "InspectResponse", body)  # the schema declares the new fields (and only them)
    model = body["model"]
    grid = model["grid"]
    assert len(model["cell_places"]) == grid["rows"] * grid["cols"]
    des_moines = 7 * grid["cols"] + 5  # a8,6
    assert model["cell_places"][des_moines] == "Des Moines, IA"
    before = body["before"]
    assert (before["top_cell"], before["top_label"], before["top_place"]) == (des_moines, "a8,6", "Des Moines, IA")
    for which in ("before", "after"):
        for cell in body[which]["top"]:
            assert cell["place"] == model["cell_places"][cell["cell"]] and cell["place"]
        assert body[which]["top_place"] == model["cell_places"][body[which]["top_cell"]]
    labels = {label["name"]: label for label in model["place_labels"]}
    assert labels["Chicago, IL"]["level"] == 0 and "Des Moines, IA" in labels
    urls = [layer["url"] for layer in model["geography"]]
    assert urls == ["/static/vendor/world-atlas/countries-50m.json", "/static/vendor/us-atlas/states-10m.json"]
    batch = APIClient().post(reverse("api-inspect-batch"), {"texts": [text], "model": "us-midwest-en"}, format="json")
    assert batch.json()["model"]["cell_places"] == model["cell_places"]


def test_fixed_m_and_words_to_keep(location_models):
    text = "Grabbing lunch downtown in Little Rock before the Razorbacks game"
    body = inspect(APIClient(), text=text, model="us-midwest-en", mode="fixed", m=3, keep=["Rock"]).json()
    assert body["decision"]["mode"] == "fixed" and len(body["deleted"]) == 3
    assert "Little Rock" not in [span["text"] for span in body["deleted"]]
    kept = [t for t in body["tokens"] if t["kept"]]
    # "Little Rock" is one unit (a place): keeping its word keeps the unit.
    assert [(t["text"], t["kind"]) for t in kept] == [("Little Rock", "place")] and not kept[0]["deleted"]
    by_name = inspect(APIClient(), text=text, model=str(location_models["us-midwest-en"].id), mode="fixed", m=3,
                      keep=["Rock"]).json()
    assert by_name["deleted"] == body["deleted"]


def test_every_place_name_goes_unless_only_the_needed_ones_are_asked_for(location_models, openapi):
    text = "東京震度5くらい。危険はない程の余震を感じてる。"
    everything = inspect(APIClient(), text=text).json()
    assert_matches(openapi, "InspectResponse", everything)
    assert everything["decision"]["places"] == "all" and "東京" not in everything["text_after"]
    assert [(t["text"], t["kind"], t["deleted"]) for t in everything["tokens"] if t["kind"] != "word"] == [
        ("東京", "place", True)]
    needed = inspect(APIClient(), text=text, places="needed").json()
    assert needed["decision"]["places"] == "needed" and needed["text_after"] == text  # under the thresholds
    assert needed["after"]["under_threshold"] and everything["after"]["under_threshold"]


@pytest.mark.parametrize(
    ("body", "field", "message"),
    [
        ({"text": ""}, "text", "blank"),
        ({"text": "   "}, "text", "blank"),
        ({"text": "x" * 2001}, "text", "2,001 characters long; the limit is 2,000"),
        ({"text": "hello", "model": "kyoto-ja"}, "model", "available: tokyo-ja, us-midwest-en"),
        ({"text": "hello", "mode": "fixed"}, "m", "required when mode is fixed"),
        ({"text": "hello", "mode": "fixed", "m": 99}, "m", "at most 8"),
        ({"text": "hello world", "mode": "fixed", "m": 5}, "m", "has 2 deletable units"),
        ({"text": "hello", "mode": "sometimes"}, "mode", "not a valid choice"),
        ({"text": "hello", "keep": "Rock"}, "keep", "list"),
        ({"text": "hello", "places": "some"}, "places", "not a valid choice"),
    ],
)
def test_bad_input_answers_400_naming_the_field(location_models, body, field, message):
    response = inspect(APIClient(), **body)
    assert response.status_code == 400
    assert message in " ".join(response.json()[field])


def test_batch(location_models, midwest, openapi):
    texts = [p.text for p in midwest.held_out[:20]] + ["ok"]
    response = APIClient().post(reverse("api-inspect-batch"), {"texts": texts, "model": "us-midwest-en",
                                                                "mode": "fixed", "m": 2}, format="json")
    assert response.status_code == 200
    body = response.json()
    assert_matches(openapi, "InspectBatchResponse", body)
    assert [item["result"]["text"] for item in body["results"][:-1]] == texts[:-1]
    assert "deletable units" in body["results"][-1]["error"]  # "ok" has one token: m=2 is impossible
    too_many = APIClient().post(reverse("api-inspect-batch"), {"texts": ["a"] * 101}, format="json")
    assert too_many.status_code == 400 and "limit is 100" in too_many.json()["texts"][0]


def test_rate_limit_answers_429_per_client(location_models, settings):
    settings.INSPECT_RATE_ANON = "3/minute"
    client = APIClient(REMOTE_ADDR="10.9.8.7")
    codes = [inspect(client, text="hello Little Rock").status_code for _ in range(4)]
    assert codes == [200, 200, 200, 429]
    limited = inspect(client, text="hello Little Rock")
    assert int(limited["Retry-After"]) > 0
    assert inspect(APIClient(REMOTE_ADDR="10.9.8.8"), text="hello Little Rock").status_code == 200


def test_a_users_own_model_is_not_available_to_others(location_models, tokyo, user, other_user, settings):
    from anonymizer.location.web.services import register_location_model

    mine = register_location_model(tokyo.model, title="Mine", owner=user)
    owner, stranger = APIClient(), APIClient()
    owner.force_authenticate(user)
    stranger.force_authenticate(other_user)
    assert inspect(owner, text="渋谷", model=str(mine.id)).status_code == 200
    assert inspect(stranger, text="渋谷", model=str(mine.id)).status_code == 400
    listed = {m["name"]: m for m in stranger.get(reverse("api-location-models")).json()}
    assert set(listed) == {"tokyo-ja", "us-midwest-en"} and listed["tokyo-ja"]["scores"]["accuracy"] > 0
    assert len(owner.get(reverse("api-location-models")).json()) == 3


def test_the_page_lists_the_models_and_needs_no_account(location_models, client):
    page = client.get(reverse("home")).content.decode()
    assert 'id="inspect-form"' in page and "US Midwest and South (English)" in page
    assert "vendor/leaflet/leaflet.js" in page and "vendor/leaflet.sync/L.Map.Sync.js" in page
