"""Hostile input refused where it enters, by field, and nothing stored (issue 15, findings A–G).

Each finding is replayed through the real API or page: the status, a message naming the field, and no job,
upload or campaign row, no file and no directory left behind.

- A: a user's regex runs on RE2, in time linear in the text (``(a+)+$`` on 40 "a" and a "!" held a worker for
  good); a pattern only a backtracking engine runs is refused when the configuration is validated.
- B: a k-anonymization configuration of any shape is a field error, never a 500.
- C: a configuration over KANON_CONFIG_MAX_BYTES is refused before it is parsed (parsed with libyaml); a file
  over the upload limit is an error of its field on every page with a file field.
- D: every number of a campaign has its range, texts their length; a campaign saved before still reports.
- E: parameters a kind's serializer turns into UUIDs, dates or Decimals are stored as JSON.
- F: an upload's stored name is bounded in bytes (its name as sent is kept for display); a refused upload
  leaves nothing behind.
- G: a CSV value over the field limit is a 400 naming its row and column, on every CSV upload path.
"""

from __future__ import annotations

import datetime
import decimal
import importlib
import json
import time
import uuid
from pathlib import Path

import pytest
import yaml
from django.apps import apps as django_apps
from django.core.files.uploadedfile import SimpleUploadedFile
from django.db import DatabaseError
from django.urls import reverse
from rest_framework import serializers
from rest_framework.test import APIClient

from anonymizer.crowd.web import services as crowd
from anonymizer.kanon import config as kanon_config
from anonymizer.kanon.config import ConfigError, KanonConfig, load_config
from anonymizer.models import Campaign, Job, JobResult, Upload
from anonymizer.platform.jobs.registry import JobKind
from anonymizer.platform.uploads import create_csv_upload
from tests.helpers import PAPER_EXAMPLE_ROWS, csv_bytes, csv_upload, replaced_at, run_in_process, wait_for

pytestmark = pytest.mark.django_db(transaction=True)

COLUMNS = PAPER_EXAMPLE_ROWS[0]  # id, gender, age, topic, sign, date, text
HUGE_FIELD = "x" * (17 * 2**20)  # over csv's field limit of 16 MiB characters


# -- helpers ----------------------------------------------------------------------------------------------------
def stored_files(media_root: Path) -> set[str]:
    """Every file and directory under MEDIA_ROOT, relative."""
    return {str(p.relative_to(media_root)) for p in media_root.rglob("*")} if media_root.exists() else set()


@pytest.fixture
def paper_upload(user) -> Upload:
    return create_csv_upload(owner=user, uploaded=csv_upload())



@pytest.fixture
def staff_api(staff) -> APIClient:
    client = APIClient()
    client.force_authenticate(staff)
    return client


def kanon_job(api, upload: Upload, **params):
    return api.post(reverse("api-job-list"), {"kind": "kanon", "params": params, "inputs": [str(upload.id)]},
                    format="json")


def rx_config(extra: str = "") -> str:
    """An rx-anon configuration of the paper's example, k = 2, with `extra` YAML appended."""
    return ("parameters: {k: 2}\n"
            "attributes:\n"
            "  id: {anonymization_type: direct_identifier}\n"
            "  gender: {anonymization_type: quasi_identifier, type: nominal}\n"
            "  text: {anonymization_type: text, type: text}\n" + extra)


def config_errors(response) -> list[str]:
    assert response.status_code == 400, response.content
    return response.json()["params"]["config"]


# -- A: users' regexes on RE2 -----------------------------------------------------------------------------------
def test_redos_pattern_runs_in_linear_time_on_a_worker(user, api, start_worker, media_root):
    """(a+)+$ on 40 "a" and a "!" backtracks 2^40 times in Python's re; RE2 runs it in time linear in the cell."""
    rows = [["id", "gender", "text"]] + [[str(i), "f", "a" * 40 + "!"] for i in range(4)]
    upload = create_csv_upload(owner=user, uploaded=SimpleUploadedFile("runs.csv", csv_bytes(rows)))
    config = {"k": 2, "entity_types": [], "custom_entities": [{"label": "RUN", "patterns": ["(a+)+$", "a{3}!"]}],
              "attributes": [{"name": "id", "role": "direct_identifier"},
                             {"name": "gender", "role": "quasi_identifier", "type": "nominal"},
                             {"name": "text", "role": "text", "type": "text"}]}
    start_worker()
    started = time.monotonic()
    response = kanon_job(api, upload, config=config)
    assert response.status_code == 201, response.content
    job = Job.objects.get(id=response.json()["id"])
    wait_for(lambda: Job.objects.get(id=job.id).status not in Job.ACTIVE_STATUSES, timeout=60, interval=0.2)
    job.refresh_from_db()
    assert job.status == Job.Status.SUCCEEDED, job.error
    assert time.monotonic() - started < 60
    assert job.result["recognized_terms"] == {"RUN": 4}  # "aaa!", the end of each cell, by the second pattern


def test_redos_pattern_is_matched_in_linear_time():
    from anonymizer.recognize.patterns import compile_pattern

    regex = compile_pattern("(a+)+$")
    started = time.perf_counter()
    assert regex.search("a" * 100_000 + "!") is None
    assert time.perf_counter() - started < 1.0
    # Ordinary patterns keep their meaning: case-insensitive, Unicode \w and \d, \Z, {,n}.
    assert [m.group() for m in compile_pattern(r"[a-z]{2}\d{3}").finditer("ab123 XY456 ab１２３")] == [
        "ab123", "XY456", "ab１２３"]
    assert [m.span() for m in compile_pattern(r"\w+").finditer("Müller 名前")] == [(0, 6), (7, 9)]
    assert compile_pattern(r"end\Z").search("the end") and compile_pattern(r"x{,2}y").fullmatch("xxy")


@pytest.mark.parametrize("pattern,why,instead", [
    (r"(ab)\1", "backreference", "(ab)(ab)"),
    (r"(?P<w>a)(?P=w)", "named backreference", "repeated text"),
    (r"\d+(?=kg)", "lookahead", "following text"),
    (r"(?<!\d)\d{6}", "lookbehind", "preceding text"),
    (r"(?>a+)b", "atomic group", "(?:"),
    (r"a*+b", "possessive quantifier", "plain quantifier"),
    (r"(a{50}){50}", "repeats more than 1,000 times", "smaller count"),
])
def test_redos_pattern_is_refused_at_validation(api, paper_upload, pattern, why, instead):
    text = rx_config("entities:\n  native: []\n  custom:\n    STUDENT_ID: " + json.dumps(pattern) + "\n")
    errors = config_errors(kanon_job(api, paper_upload, config_yaml=text))
    message = next(error for error in errors if error.startswith("entities.custom.STUDENT_ID:"))
    assert repr(pattern) in message and why in message and instead in message, message
    # Our own schema names the custom entity the same way.
    config = {"entity_types": [], "custom_entities": [{"label": "STUDENT_ID", "patterns": [pattern]}],
              "attributes": [{"name": "id", "role": "direct_identifier"},
                             {"name": "gender", "role": "quasi_identifier"}, {"name": "text", "role": "text"}]}
    errors = config_errors(kanon_job(api, paper_upload, config=config))
    assert any(e.startswith("custom_entities.STUDENT_ID.patterns:") and why in e for e in errors), errors
    assert not Job.objects.exists()


def test_redos_pattern_is_refused_on_the_configure_page(alice_client, paper_upload):
    text = rx_config("entities:\n  native: []\n  custom:\n    CODE: '(?<=#)\\d+'\n")
    page = alice_client.post(reverse("kanon-configure", args=[paper_upload.id]),
                             {"k": "2", "lambdas": "0.5", "yaml": text})
    assert page.status_code == 200
    content = page.content.decode()
    assert "entities.custom.CODE:" in content and "lookbehind" in content
    assert not Job.objects.exists()


# -- B: a configuration of any shape ----------------------------------------------------------------------------
def test_entities_native_with_a_mapping_is_a_field_error(api, alice_client, paper_upload):
    text = rx_config("entities: {native: [{a: 1}]}\n")
    errors = config_errors(kanon_job(api, paper_upload, config_yaml=text))
    assert any(e.startswith("entities.native: item 1, {'a': 1}, is a mapping; expected an entity type") for e in
               errors), errors
    page = alice_client.post(reverse("kanon-configure", args=[paper_upload.id]),
                             {"k": "2", "lambdas": "0.5", "yaml": text})
    # The page names the field as it labels it.
    assert page.status_code == 200 and "sensitive entity types: item 1, {&#x27;a&#x27;: 1}, is a mapping" in (
        page.content.decode())
    assert not Job.objects.exists()


@pytest.mark.parametrize("extra,field", [
    ("entities: {native: [[PERSON]]}\n", "entities.native"),
    ("entities: {native: {PERSON: 1}}\n", "entities.native"),
    ("entities: {native: PERSON}\n", "entities.native"),
    ("nlp: {model: [en_core_web_sm]}\n", "nlp.model"),
    ("entities: {custom: {SID: {a: 1}}}\n", "entities.custom.SID"),
    ("entities: {custom: {SID: [[a]]}}\n", "entities.custom.SID"),
    ("entities: {custom: [a, b]}\n", "entities.custom"),
])
def test_rx_anon_configuration_of_a_wrong_shape_is_a_field_error(api, paper_upload, extra, field):
    errors = config_errors(kanon_job(api, paper_upload, config_yaml=rx_config(extra)))
    assert any(e.startswith(field + ":") for e in errors), errors
    assert not Job.objects.exists()


OURS = {"k": 2, "strategy": "mondrian", "relational_weight": 0.5, "l_diversity": {"column": "sign", "l": 2},
        "seed": 0, "nlp_model": "en_core_web_sm", "entity_types": ["PERSON", "GPE"],
        "custom_entities": [{"label": "SID", "patterns": [r"[a-z]{2}\d+"], "terms": ["biology"]}],
        "attributes": [{"name": "id", "role": "direct_identifier", "type": "nominal"},
                       {"name": "gender", "role": "quasi_identifier", "type": "nominal", "bias": 0.1},
                       {"name": "age", "role": "quasi_identifier", "type": "numerical",
                        "hierarchy": {"name": "0-100", "children": [{"name": "0-50"}]}},
                       {"name": "topic", "role": "quasi_identifier", "type": "ordinal", "order": ["a", "b"]},
                       {"name": "sign", "role": "sensitive", "type": "nominal"},
                       {"name": "date", "role": "quasi_identifier", "type": "date", "date_format": "%d,%B,%Y"},
                       {"name": "text", "role": "text", "type": "text", "entities": ["PERSON"]}],
        "warnings": []}
RX = {"parameters": {"k": 2, "strategy": "mondrian", "relational_weight": 0.5}, "nlp": {"model": "en_core_web_sm"},
      "entities": {"native": ["PERSON"], "custom": {"SID": r"[a-z]+\d", "X": [r"a\d"]}},
      "attributes": {"id": {"anonymization_type": "direct_identifier"},
                     "gender": {"anonymization_type": "quasi_identifier", "type": "nominal", "bias": 0.2},
                     "age": {"anonymization_type": "quasi_identifier", "type": "numerical",
                             "hierarchy": {"name": "0-100"}},
                     "topic": {"anonymization_type": "quasi_identifier", "type": "ordinal", "order": ["a", "b"]},
                     "date": {"anonymization_type": "quasi_identifier", "type": "date", "format": "%d,%B,%Y"},
                     "text": {"anonymization_type": "text", "type": "text", "entities": ["PERSON"]}}}


def _aliased_billion() -> list:
    """Ten levels of ten references to one list: 10^9 leaves in a few hundred bytes of YAML (aliases)."""
    value: list = ["x"] * 10
    for _ in range(8):
        value = [value] * 10
    return value


# A list where a string is expected, a mapping where a list is, numbers out of range, booleans as strings,
# YAML's dates, nesting and aliases that would expand to a billion values.
BILLION = _aliased_billion()
HOSTILE = [None, True, "true", "no", 0, -1, 2**70, 10**5000, 1e300, float("nan"), float("inf"), "", "x" * 5000, [],
           [{"a": 1}], [[1]], {"a": 1}, {"a": [1]}, datetime.date(2020, 1, 1), [None], ["PERSON", {"b": 2}],
           BILLION]


def _paths(value, prefix=()):
    yield prefix
    items = value.items() if isinstance(value, dict) else enumerate(value) if isinstance(value, list) else ()
    for key, child in items:
        yield from _paths(child, (*prefix, key))



def _as_texts(document, value) -> list[str]:
    """The document as JSON and as YAML (aliases kept), where it can be written so (JSON has no aliases: a
    billion values are YAML's alone)."""
    texts = []
    # libyaml's dumper where PyYAML has it: the pure-Python one took 8 of the test's 13 s (profiled)
    dumper = getattr(yaml, "CSafeDumper", yaml.SafeDumper)
    dumps = [lambda d: yaml.dump(d, Dumper=dumper, allow_unicode=True)] + ([json.dumps] if value is not BILLION
                                                                             else [])
    for dump in dumps:
        try:
            texts.append(dump(document))
        except (TypeError, ValueError, yaml.YAMLError):  # a date in JSON, a 5,000-digit integer
            pass
    return texts


@pytest.mark.parametrize("base", [OURS, RX], ids=["ours", "rx-anon"])
def test_every_shape_of_a_configuration_is_refused_by_field(base):
    """Every key of both formats, each set to every hostile value: a ConfigError naming fields, quickly."""
    load_config(json.dumps(base), columns=COLUMNS)  # the base is valid
    for value in HOSTILE:  # the aliased billion last: before the fix its repr alone took all the memory
        for path in _paths(base):
            document = replaced_at(base, path, value)
            for text in _as_texts(document, value):
                started = time.perf_counter()
                try:
                    load_config(text, columns=COLUMNS)
                except ConfigError as exc:
                    assert all(error.field and error.message for error in exc.errors)
                    assert len(str(exc)) < 20_000
                assert time.perf_counter() - started < 2, (path, value)
            if base is OURS:
                try:
                    KanonConfig.from_dict(document)
                except ConfigError:
                    pass


@pytest.mark.parametrize("config_yaml", [
    "k: " + "9" * 5000 + "\nattributes: []\n",  # an integer Python will not convert
    "[" * 5000 + "]" * 5000,  # deeper than any parser recurses
    "attributes: &a [*a]\n",
    "\t{attributes: [}",
])
def test_unparseable_yaml_is_a_field_error(api, paper_upload, config_yaml):
    errors = config_errors(kanon_job(api, paper_upload, config_yaml=config_yaml))
    assert errors and all(e.startswith(("config:", "attributes")) for e in errors), errors


def test_configure_form_values_of_the_wrong_kind_are_field_errors(alice_client, paper_upload):
    page = alice_client.post(reverse("kanon-configure", args=[paper_upload.id]), {
        "k": "2", "lambdas": "0.5", "role-0": "direct_identifier", "role-1": "quasi_identifier",
        "role-4": "sensitive", "role-6": "text", "type-6": "text", "l_column": "sign", "l_value": "lots"})
    assert page.status_code == 200 and "l-diversity: &#x27;lots&#x27; is not an integer" in page.content.decode()
    assert not Job.objects.exists()


# -- C: the size of a configuration, and files over the upload limit --------------------------------------------
def test_oversized_configuration_is_refused_before_it_is_parsed(api, alice_client, paper_upload, settings,
                                                                monkeypatch):
    def no_parsing(*args, **kwargs):
        raise AssertionError("the configuration was parsed")

    monkeypatch.setattr(kanon_config, "_load_document", no_parsing)  # YAML, then JSON
    big = rx_config() + "# padding\n" * 30_000  # 300 KB, over the default 256 KB
    assert settings.KANON_CONFIG_MAX_BYTES == 256 * 1024
    response = kanon_job(api, paper_upload, config_yaml=big)
    assert response.status_code == 400
    message = response.json()["params"]["config_yaml"][0]
    assert "larger than the limit of 256 KB" in message, message

    url = reverse("kanon-configure", args=[paper_upload.id])
    started = time.perf_counter()
    page = alice_client.post(url, {"k": "2", "lambdas": "0.5", "yaml_file": SimpleUploadedFile(
        "blog.yaml", b"attributes:\n" + b"  - {name: x}\n" * 250_000)})  # 3.5 MB
    assert time.perf_counter() - started < 3
    assert "YAML file: the configuration is 3,418 KB, larger than the limit of 256 KB" in page.content.decode()
    page = alice_client.post(url, {"k": "2", "lambdas": "0.5", "yaml": big})
    assert "YAML: the configuration is" in page.content.decode()
    settings.KANON_CONFIG_MAX_BYTES = 2048  # the setting is what counts
    response = kanon_job(api, paper_upload, config_yaml=rx_config("# x\n" * 600))
    assert "larger than the limit of 2,048 bytes" in response.json()["params"]["config_yaml"][0]
    assert "larger than the limit" in kanon_job(api, paper_upload, config={
        "attributes": [{"name": "x" * 3000}]}).json()["params"]["config"][0]
    assert not Job.objects.exists()


def test_configurations_are_parsed_with_libyaml_when_it_is_there(api, paper_upload, monkeypatch):
    loaders = []
    real_load = yaml.load

    def spy(stream, Loader):
        loaders.append(Loader)
        return real_load(stream, Loader=Loader)

    monkeypatch.setattr(kanon_config.yaml, "load", spy)
    assert kanon_job(api, paper_upload, config_yaml=rx_config()).status_code == 201
    expected = yaml.CSafeLoader if yaml.__with_libyaml__ else yaml.SafeLoader
    assert loaders == [expected]


@pytest.fixture
def low_upload_limit(settings):
    settings.UPLOAD_MAX_BYTES = 4096
    return SimpleUploadedFile("big.csv", csv_bytes(PAPER_EXAMPLE_ROWS * 40))  # about 11 KB


def _page_with_a_file_field(name: str, paper_upload: Upload, upload_file) -> tuple[str, dict]:
    campaign = {"name": "x", "instructions": "x", "consent_text": "x", "task": "inferable", "text_column": "text",
                "sample_size": 10, "attention_checks": 0, "judgments_per_post": 5, "cutoff": 0.1, "gold_share": 0.1,
                "min_gold_accuracy": 0.7, "per_participant_cap": 10, "reservation_seconds": 60}
    return {
        "profile": (reverse("profile-new"), {"file": upload_file, "sample_rows": 10}),
        "campaign": (reverse("campaign-new"), {**campaign, "posts_file": upload_file}),
        "kanon": (reverse("kanon-configure", args=[paper_upload.id]),
                  {"k": "2", "lambdas": "0.5", "yaml_file": upload_file}),
        "preferences": (reverse("preference-jobs"), {"action": "upload", "file": upload_file}),
    }[name]


@pytest.mark.parametrize("page", ["profile", "campaign", "kanon", "preferences"])
def test_a_file_over_the_upload_limit_is_a_field_error_on_every_page(client, staff, paper_upload, page,
                                                                     low_upload_limit, media_root):
    staff_uploads = Upload.objects.filter(owner=staff)
    if page == "kanon":
        paper_upload.owner = staff
        paper_upload.save()
    client.force_login(staff)
    before = stored_files(media_root)
    url, data = _page_with_a_file_field(page, paper_upload, low_upload_limit)
    response = client.post(url, data)
    assert response.status_code in (200, 400)
    content = response.content.decode()
    assert "The file big.csv is larger than the upload limit of 0.00390625 MB." in content, content[:3000]
    assert "Upload a CSV of posts, or choose" not in content  # the refusal, not "no file"
    assert staff_uploads.count() == (1 if page == "kanon" else 0)
    assert not Job.objects.exists() and not Campaign.objects.exists()
    assert stored_files(media_root) == before


# -- D: campaign ranges -----------------------------------------------------------------------------------------
CAMPAIGN = {"name": "x", "instructions": "Judge.", "consent_text": "OK.", "attention_checks": 0,
            "posts": [{"text": "hello", "id": "p1"}]}


@pytest.mark.parametrize("field,value", [
    ("cutoff", 5), ("cutoff", 0), ("cutoff", 1), ("cutoff", -0.1), ("judgments_per_post", 8736003044),
    ("judgments_per_post", 0), ("gold_share", 1e300), ("gold_share", 1.0), ("gold_share", -0.5),
    ("min_gold_accuracy", 1.5), ("min_gold_answers", 10**6), ("per_participant_cap", 0),
    ("per_participant_cap", 10**7), ("reservation_seconds", 10**9), ("reservation_seconds", 1),
    ("name", "x" * 201), ("instructions", "x" * 20_001), ("consent_text", "x" * 20_001),
    ("attention_checks", 21), ("sample", 10**6), ("location_model", "x" * 201),
])
def test_campaign_numbers_out_of_range_are_refused_by_the_api(staff_api, field, value):
    response = staff_api.post(reverse("api-campaign-list"), {**CAMPAIGN, field: value}, format="json")
    assert response.status_code == 400, response.content
    assert field in response.json(), response.json()
    assert not Campaign.objects.exists()


@pytest.mark.parametrize("post,field", [
    ({"text": "x" * 20_001}, "text"), ({"text": "hello", "id": "x" * 201}, "id"),
    ({"text": "hello", "lat": 91}, "lat"), ({"text": "hello", "lon": "NaN"}, "lon"),
])
def test_campaign_posts_out_of_range_are_refused_by_the_api(staff_api, post, field):
    response = staff_api.post(reverse("api-campaign-list"), {**CAMPAIGN, "posts": [post]}, format="json")
    assert response.status_code == 400 and field in str(response.json()["posts"]), response.content
    assert not Campaign.objects.exists()


def test_campaign_in_range_is_created(staff_api):
    response = staff_api.post(reverse("api-campaign-list"), {**CAMPAIGN, "cutoff": 0.999, "gold_share": 0.0,
                                                              "judgments_per_post": 1000}, format="json")
    assert response.status_code == 201, response.content


@pytest.mark.parametrize("field,value", [("cutoff", "5"), ("cutoff", "0"), ("cutoff", "1"), ("gold_share", "1"),
                                         ("judgments_per_post", "8736003044")])
def test_campaign_form_refuses_numbers_out_of_range(client, staff, field, value):
    client.force_login(staff)
    posts = SimpleUploadedFile("posts.csv", b"text\nhello\nworld\n")
    page = client.post(reverse("campaign-new"), {
        "name": "x", "instructions": "x", "consent_text": "x", "task": "inferable", "posts_file": posts,
        "text_column": "text", "sample_size": 10, "attention_checks": 0, "judgments_per_post": 5, "cutoff": 0.1,
        "gold_share": 0.1, "min_gold_accuracy": 0.7, "per_participant_cap": 10, "reservation_seconds": 60,
        field: value})
    assert page.status_code == 200
    assert page.context["form"].errors.get(field), page.context["form"].errors
    assert not Campaign.objects.exists()


def test_campaign_posts_csv_with_a_bad_coordinate_is_refused_with_its_row(client, staff):
    client.force_login(staff)
    posts = SimpleUploadedFile("posts.csv", b"text,lat,lon\nhello,35.6,139.7\nworld,inf,139.7\n")
    page = client.post(reverse("campaign-new"), {
        "name": "x", "instructions": "x", "consent_text": "x", "task": "inferable", "posts_file": posts,
        "text_column": "text", "sample_size": 10, "attention_checks": 0, "judgments_per_post": 5, "cutoff": 0.1,
        "gold_share": 0.1, "min_gold_accuracy": 0.7, "per_participant_cap": 10, "reservation_seconds": 60})
    assert "Row 3, column 2 (&quot;lat&quot;)" in page.content.decode()
    assert not Campaign.objects.exists()


def test_campaign_saved_before_the_ranges_reports_after_the_migration(staff, staff_api, client):
    campaign = crowd.create_campaign(owner=staff, name="old", instructions="x", consent_text="x",
                                     posts=[crowd.PostSpec("hello"), crowd.PostSpec("world")])
    participant = crowd.join(campaign)
    crowd.consent(participant)
    crowd.answer(participant, crowd.next_assignment(participant).post_id, answer=True)
    # What the API accepted before: kept as they were stored (2e9 fits PostgreSQL's integer column too).
    Campaign.objects.filter(id=campaign.id).update(cutoff=5, judgments_per_post=2_000_000_000, gold_share=1e300,
                                                   per_participant_cap=0)
    migration = importlib.import_module("anonymizer.migrations.0005_campaign_ranges")
    migration.clamp_campaigns(django_apps, None)
    campaign.refresh_from_db()
    assert (campaign.cutoff, campaign.judgments_per_post, campaign.gold_share, campaign.per_participant_cap) == (
        0.10, 1000, 0.10, 1)
    assert staff_api.get(reverse("api-campaign-report", args=[campaign.id])).status_code == 200
    for what in ("judgments", "aggregates"):
        for fmt in ("csv", "jsonl"):
            assert staff_api.get(reverse("api-campaign-export", args=[campaign.id, what, fmt])).status_code == 200
    client.force_login(staff)
    assert client.get(reverse("campaign-detail", args=[campaign.id])).status_code == 200


@pytest.mark.parametrize("kind,params,field", [
    ("preference_experiment", {"seed": 2**40}, "seed"),
    ("remove_time", {"text_columns": ["x" * 1001]}, "text_columns"),
    ("remove_time", {"location_model": "x" * 201}, "location_model"),
    ("train_location_model", {"name": "m", "south": 0, "west": 0, "north": 1, "east": 1, "text_column": "x" * 1001},
     "text_column"),
    ("train_preference_model", {"name": "m", "seed": -1}, "seed"),
])
def test_job_parameters_out_of_range_are_refused_by_field(api, paper_upload, kind, params, field):
    inputs = [] if kind == "preference_experiment" else [str(paper_upload.id)]
    response = api.post(reverse("api-job-list"), {"kind": kind, "params": params, "inputs": inputs}, format="json")
    assert response.status_code == 400, response.content
    assert field in response.json()["params"], response.json()
    assert not Job.objects.exists()


def test_inspect_options_and_batches_are_bounded(api, settings):
    response = api.post(reverse("api-inspect"), {"text": "hello", "model": "x" * 201}, format="json")
    assert response.status_code == 400 and "model" in response.json()
    started = time.perf_counter()
    response = api.post(reverse("api-inspect-batch"), {"texts": ["a"] * 200_000}, format="json")
    assert response.status_code == 400 and "texts" in response.json()
    assert time.perf_counter() - started < 3


# -- E: JSON parameters -----------------------------------------------------------------------------------------
@pytest.mark.parametrize("kind", ["train_human_model", "machine_human_table", "calibrate_threshold"])
def test_campaign_jobs_start_through_the_api_with_json_params(staff, staff_api, kind):
    campaign = crowd.create_campaign(owner=staff, name="c", instructions="x", consent_text="x",
                                     posts=[crowd.PostSpec("hello")])
    response = staff_api.post(reverse("api-job-list"), {"kind": kind, "params": {"campaign": str(campaign.id)}},
                              format="json")
    assert response.status_code == 201, response.content
    job = Job.objects.get(id=response.json()["id"])
    assert job.params == {"campaign": str(campaign.id)} == response.json()["params"]


class _TypedParams(serializers.Serializer):
    when = serializers.DateField()
    at = serializers.DateTimeField()
    amount = serializers.DecimalField(max_digits=6, decimal_places=2)
    ref = serializers.UUIDField()
    tags = serializers.MultipleChoiceField(choices=["a", "b"])
    nested = serializers.ListField(child=serializers.UUIDField())


def test_parameters_a_serializer_types_are_stored_as_json():
    kind = JobKind(name="typed", label="typed", run=lambda job, run: None, params_serializer=_TypedParams,
                   prepare=lambda params, inputs: {**params, "pair": (uuid.UUID(int=1), decimal.Decimal("2.5"))})
    ref = uuid.uuid4()
    params = kind.ready_params({"when": "2024-05-14", "at": "2024-05-14T13:45:30Z", "amount": "12.50",
                                "ref": str(ref), "tags": ["a"], "nested": [str(ref)]}, [])
    assert params == {"when": "2024-05-14", "at": "2024-05-14T13:45:30Z", "amount": 12.5, "ref": str(ref),
                      "tags": ["a"], "nested": [str(ref)], "pair": [str(uuid.UUID(int=1)), 2.5]}
    assert json.loads(json.dumps(params)) == params


# -- F: file names ----------------------------------------------------------------------------------------------
def test_upload_with_a_very_long_name_is_stored_under_a_bounded_name(api, user, media_root):
    name = "名" * 300 + ".csv"  # 904 bytes: file systems allow 255
    response = api.post(reverse("api-upload-list"), {"file": csv_upload(name=name)}, format="multipart")
    assert response.status_code == 201, response.content
    upload = Upload.objects.get()
    assert upload.original_name == "名" * 251 + ".csv" == response.json()["original_name"]
    stored = Path(upload.file.path)
    assert stored.is_file() and len(stored.name.encode()) <= 255 and stored.name.endswith(".csv")
    download = api.get(reverse("api-upload-download", args=[upload.id]))
    assert download.status_code == 200 and ".csv" in download["Content-Disposition"]
    # Results named after the upload are bounded too.
    job = run_in_process(owner=user, kind="profile_csv", params={"sample_rows": 2}, inputs=[upload])
    assert job.status == Job.Status.SUCCEEDED, job.error
    for result in JobResult.objects.filter(job=job):
        assert len(result.name) <= 255 and len(Path(result.file.path).name.encode()) <= 255
        assert result.name.startswith("名" * 100 + ".")


def test_a_refused_upload_leaves_no_file_and_no_directory(api, user, media_root, monkeypatch):
    bad = SimpleUploadedFile("名" * 300 + ".csv", b"a,b\n1,2,3\n")
    assert api.post(reverse("api-upload-list"), {"file": bad}, format="multipart").status_code == 400
    assert stored_files(media_root) == set()

    def refuse(self, *args, **kwargs):
        raise DatabaseError("the database went away")

    monkeypatch.setattr(Upload, "save", refuse)
    with pytest.raises(DatabaseError):
        create_csv_upload(owner=user, uploaded=csv_upload(name="posts.csv"))
    assert not any(Path(media_root, p).is_file() for p in stored_files(media_root))
    assert not any(p.startswith(f"uploads/{user.id}/") for p in stored_files(media_root))
    assert not Upload.objects.exists()


# -- G: values over the CSV field limit -------------------------------------------------------------------------
def huge_preferences() -> SimpleUploadedFile:
    text = f"user,weekday,time,place,label\np1,Mon,18:00,Home,1\np2,Tue,09:00,{HUGE_FIELD},0\n"
    return SimpleUploadedFile("prefs.csv", text.encode())


def test_preference_upload_with_a_huge_field_is_a_400_naming_row_and_column(alice_client, media_root):
    response = alice_client.post(reverse("preference-jobs"), {"action": "upload", "file": huge_preferences()})
    assert response.status_code == 400
    content = response.content.decode()
    assert "Row 3, column 4 (&quot;place&quot;)" in content and "16 MiB (16,777,216) characters" in content
    assert not Upload.objects.exists() and stored_files(media_root) == set()


def test_every_csv_upload_path_names_the_row_and_column_of_a_huge_field(api, client, staff, media_root):
    response = api.post(reverse("api-upload-list"), {"file": huge_preferences()}, format="multipart")
    assert response.status_code == 400
    problem = response.json()["file"][0]
    assert (problem["row"], problem["column"], problem["column_name"]) == (3, 4, "place")
    client.force_login(staff)
    page = client.post(reverse("profile-new"), {"file": huge_preferences(), "sample_rows": 10})
    assert "Row 3, column 4 (&quot;place&quot;)" in page.content.decode()
    posts = SimpleUploadedFile("posts.csv", f"id,text\n1,hello\n2,{HUGE_FIELD}\n".encode())
    page = client.post(reverse("campaign-new"), {
        "name": "x", "instructions": "x", "consent_text": "x", "task": "inferable", "posts_file": posts,
        "text_column": "text", "sample_size": 10, "attention_checks": 0, "judgments_per_post": 5, "cutoff": 0.1,
        "gold_share": 0.1, "min_gold_accuracy": 0.7, "per_participant_cap": 10, "reservation_seconds": 60})
    assert "Row 3, column 2 (&quot;text&quot;)" in page.content.decode()
    assert not Upload.objects.exists() and not Campaign.objects.exists() and stored_files(media_root) == set()
