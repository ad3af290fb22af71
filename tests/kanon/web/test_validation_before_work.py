"""What a k-anonymization job cannot do is refused when it is started, by field, before any work is queued;
what it produces is named after the run.

- A configuration of a wrong shape at any level is a field error naming its path (400 in the API, a form
  error on the configure page), never a 500.
- k above the number of persons in the file (distinct values of the direct identifier) is refused in seconds,
  from the upload's profile or by reading the column, not after minutes of NER.
- The results of one upload's runs carry k, the strategy and λ in their names, so no two runs share one.
"""

from __future__ import annotations

import html
import time

import pytest
import yaml
from django.core.files.uploadedfile import SimpleUploadedFile
from django.urls import reverse

from anonymizer.kanon import run as kanon_run
from anonymizer.kanon.config import KanonConfig
from anonymizer.kanon.web import jobs as kanon_jobs
from anonymizer.models import Job, Upload
from anonymizer.platform.jobs import runner
from anonymizer.platform.uploads import create_csv_upload
from tests.helpers import csv_bytes, kanon_file, replaced_at, run_in_process, write_large_csv

pytestmark = pytest.mark.django_db(transaction=True)

#: The paper's example (rx-anon/paper_example.csv): 9 posts by 6 persons.
PERSONS = 6


@pytest.fixture
def paper_upload(user) -> Upload:
    source = kanon_file("rx-anon/paper_example.csv")
    return create_csv_upload(owner=user, uploaded=SimpleUploadedFile("paper_example.csv", source.read_bytes()))


def rx(k: int = 2, **parameters) -> dict:
    """An rx-anon configuration of the paper's example using every section."""
    return {
        "parameters": {"k": k, "strategy": "mondrian", "relational_weight": 0.5, **parameters},
        "nlp": {"model": "en_core_web_sm", "cache": "data/cached_docs/paper"},
        "attributes": {
            "id": {"anonymization_type": "direct_identifier"},
            "gender": {"type": "nominal", "anonymization_type": "quasi_identifier", "entities": ["NORP"]},
            "age": {"type": "numerical", "anonymization_type": "quasi_identifier",
                    "hierarchy": {"name": "1-100", "children": [{"name": "1-50"}, {"name": "51-100"}]}},
            "date": {"type": "date", "anonymization_type": "quasi_identifier", "format": "%d,%B,%Y"},
            "text": {"type": "text", "anonymization_type": "text"},
        },
        "entities": {"native": ["PERSON", "GPE"], "custom": {"SID": "[a-z]{2}[0-9]+"}},
    }



def start_by_api(api, upload: Upload, **params):
    return api.post(reverse("api-job-list"), {"kind": "kanon", "params": params, "inputs": [str(upload.id)]},
                    format="json")


def page_errors(response) -> str:
    assert response.status_code == 200, response.status_code
    return html.unescape(response.content.decode())


def kanon_jobs_queued() -> int:
    return Job.objects.filter(kind="kanon").count()


# -- a configuration of the wrong shape ------------------------------------------------------------------------
# (path in rx(), a value of the wrong shape, the field named in the API, as the page names it, what is said)
WRONG_SHAPES = [
    ((), [1, 2], "config", "config", "expected a mapping with attributes, got a list"),
    (("parameters",), [2], "parameters", "parameters", "got a list"),
    (("parameters", "k"), [5], "parameters.k", "k", "expected an integer >= 2, got a list"),
    (("parameters", "k"), None, "parameters.k", "k", "got null"),
    (("parameters", "relational_weight"), {"a": 1}, "parameters.relational_weight", "λ", "got a mapping"),
    (("nlp",), 3, "nlp", "nlp", "got an integer"),
    (("nlp", "cache"), {"a": [1]}, "nlp.cache", "nlp.cache", "got a mapping"),
    (("attributes",), ["id", "text"], "attributes", "columns", "got a list"),
    (("attributes", "gender"), [1], "attributes.gender", "column gender", "got a list"),
    (("attributes", "gender", "anonymization_type"), {"a": 1}, "attributes.gender.anonymization_type",
     "role of gender", "got a mapping"),
    (("attributes", "gender", "entities"), [{"a": 1}], "attributes.gender.entities", "entity types of gender",
     "item 1, {'a': 1}, is a mapping"),
    (("attributes", "age", "hierarchy"), [1], "attributes.age.hierarchy", "hierarchy of age",
     "the root node: expected a node"),
    (("attributes", "age", "hierarchy", "children", 0), {"name": {"a": 1}}, "attributes.age.hierarchy",
     "hierarchy of age", "child 1 of '1-100': its name {'a': 1} is a mapping"),
    (("attributes", "date", "format"), 5, "attributes.date.format", "date format of date", "5 is not a string"),
    (("entities",), None, None, None, None),  # null: no entities section, which is fine
    (("entities",), "PERSON", "entities", "entities", "got a string"),
    (("entities", "native"), [{"a": 1}], "entities.native", "sensitive entity types",
     "item 1, {'a': 1}, is a mapping; expected an entity type name (a string)"),
    (("entities", "native"), {"PERSON": 1}, "entities.native", "sensitive entity types", "got a mapping"),
    (("entities", "native", 1), [["GPE"]], "entities.native", "sensitive entity types", "item 2, [['GPE']], is a list"),
    (("entities", "custom"), [1], "entities.custom", "entities.custom", "got a list"),
    (("entities", "custom", "SID"), {"a": 1}, "entities.custom.SID", "entities.custom.SID", "got a mapping"),
    (("entities", "custom", "SID"), [None], "entities.custom.SID", "entities.custom.SID", "item 1, None, is null"),
]


@pytest.mark.parametrize(("path", "value", "field", "on_page", "words"), WRONG_SHAPES,
                         ids=[f"{'.'.join(map(str, w[0])) or 'document'}={w[1]!r}" for w in WRONG_SHAPES])
def test_a_configuration_of_a_wrong_shape_is_a_field_error_in_the_api_and_on_the_page(
        api, alice_client, paper_upload, path, value, field, on_page, words):
    text = yaml.safe_dump(replaced_at(rx(), path, value), allow_unicode=True)
    response = start_by_api(api, paper_upload, config_yaml=text)
    if field is None:
        assert response.status_code == 201, response.content
        return
    assert response.status_code == 400, response.content
    errors = response.json()["params"]["config"]
    assert any(error.startswith(f"{field}: ") and words in error for error in errors), errors
    # The page reports it with the field as the page names it, and keeps what was typed.
    page = page_errors(alice_client.post(reverse("kanon-configure", args=[paper_upload.id]),
                                         {"k": "2", "lambdas": "0.5", "yaml": text}))
    assert "The configuration was not accepted" in page
    assert f"{on_page}: " in page and words in page, errors
    assert kanon_jobs_queued() == 0


def test_our_json_configuration_of_a_wrong_shape_is_a_field_error(api, paper_upload):
    config = KanonConfig.from_dict({"attributes": [{"name": "id", "role": "direct_identifier"}]}).to_dict()
    config["attributes"] = [{"name": "id", "role": {"a": 1}}, 5]
    config["entity_types"] = [{"a": 1}]
    response = start_by_api(api, paper_upload, config=config)
    assert response.status_code == 400, response.content
    errors = response.json()["params"]["config"]
    assert any(e.startswith("attributes.id.role: expected a role") and "got a mapping" in e for e in errors), errors
    assert any(e.startswith("attributes.1: expected a mapping with a column name") for e in errors), errors
    assert any(e.startswith("entity_types: item 1, {'a': 1}, is a mapping") for e in errors), errors
    assert kanon_jobs_queued() == 0


# -- k above the number of persons ------------------------------------------------------------------------------
REFUSAL = (f"k = 10 is more than the {PERSONS} persons in this file (distinct values of 'id'); choose k from 2 to "
           f"{PERSONS}")


def no_reading(monkeypatch) -> None:
    """Reading the file to count persons fails the test: the profile must have told."""
    def refuse(*args, **kwargs):
        raise AssertionError("the file was read although its profile tells the number of persons")
    monkeypatch.setattr(kanon_jobs, "CsvSource", refuse)


def test_k_above_the_persons_the_profile_counted_is_refused_in_the_api_in_seconds(api, user, paper_upload,
                                                                                 monkeypatch):
    assert run_in_process(owner=user, kind="profile_csv", params={}, inputs=[paper_upload]).status == "succeeded"
    no_reading(monkeypatch)
    started = time.monotonic()
    response = start_by_api(api, paper_upload, config_yaml=yaml.safe_dump(rx(k=10)))
    assert time.monotonic() - started < 5
    assert response.status_code == 400, response.content
    assert response.json()["params"] == {"k": [REFUSAL]}
    assert kanon_jobs_queued() == 0
    assert start_by_api(api, paper_upload, config_yaml=yaml.safe_dump(rx(k=PERSONS))).status_code == 201


def test_k_above_the_persons_is_refused_on_the_configure_page_and_no_run_is_queued(alice_client, user,
                                                                                  paper_upload, monkeypatch):
    run_in_process(owner=user, kind="profile_csv", params={}, inputs=[paper_upload])
    no_reading(monkeypatch)
    page = page_errors(alice_client.post(reverse("kanon-configure", args=[paper_upload.id]), {
        "k": "2, 10", "lambdas": "0.5", "yaml": yaml.safe_dump(rx())}))
    assert REFUSAL in page and "k: k = 10" not in page
    assert kanon_jobs_queued() == 0  # not even the run with k = 2: the form's runs start together or not at all


def test_without_a_profile_the_persons_are_counted_from_the_file(api, paper_upload):
    response = start_by_api(api, paper_upload, config_yaml=yaml.safe_dump(rx(k=10)))
    assert response.status_code == 400 and response.json()["params"] == {"k": [REFUSAL]}
    assert kanon_jobs_queued() == 0


def test_a_capped_profile_count_that_does_not_decide_is_checked_against_the_file(api, user, paper_upload):
    profile = {"rows": 9, "columns": [{"index": 0, "name": "id", "type": "integer", "distinct": 3,
                                       "distinct_capped": True}]}
    job = Job.objects.create(owner=user, kind="profile_csv", params={}, status=Job.Status.SUCCEEDED, result=profile)
    job.inputs.set([paper_upload])
    response = start_by_api(api, paper_upload, config_yaml=yaml.safe_dump(rx(k=10)))
    assert response.status_code == 400 and response.json()["params"] == {"k": [REFUSAL]}  # 6, counted in the file
    assert start_by_api(api, paper_upload, config_yaml=yaml.safe_dump(rx(k=3))).status_code == 201


def test_persons_are_counted_as_the_run_groups_rows(api, user):
    rows = [["id", "gender", "text"], ["1", "f", "a"], [" 1 ", "f", "b"], ["2", "m", "c"], ["2", "m", "d"]]
    upload = create_csv_upload(owner=user, uploaded=SimpleUploadedFile("few.csv", csv_bytes(rows)))
    config = {"parameters": {"k": 3}, "attributes": {"id": {"anonymization_type": "direct_identifier"},
                                                     "gender": {"anonymization_type": "quasi_identifier"},
                                                     "text": {"type": "text"}}}
    response = start_by_api(api, upload, config_yaml=yaml.safe_dump(config))
    assert response.status_code == 400
    assert response.json()["params"]["k"] == ["k = 3 is more than the 2 persons in this file (distinct values of "
                                              "'id'); choose k from 2 to 2"]


def test_a_file_with_enough_persons_is_read_only_until_k_of_them(api, user, tmp_path, monkeypatch):
    big = write_large_csv(tmp_path / "big.csv", rows=30_000)  # 4,286 persons, 7 posts each
    upload = create_csv_upload(owner=user, uploaded=SimpleUploadedFile("big.csv", big.read_bytes()))
    read: list[int] = []

    class CountingSource(kanon_jobs.CsvSource):
        def batches(self, *args, **kwargs):
            for batch in super().batches(*args, **kwargs):
                read.append(len(batch))
                yield batch

    monkeypatch.setattr(kanon_run, "CsvSource", CountingSource)  # the persons are counted by the shared run
    config = {"parameters": {"k": 50}, "attributes": {"id": {"anonymization_type": "direct_identifier"},
                                                      "gender": {"anonymization_type": "quasi_identifier"},
                                                      "text": {"type": "text"}}}
    response = start_by_api(api, upload, config_yaml=yaml.safe_dump(config))
    assert response.status_code == 201, response.content
    assert read and sum(read) <= 1000  # the first batch had 50 persons


# -- the names of the results -----------------------------------------------------------------------------------
def run_queued(owner) -> list[Job]:
    jobs = list(Job.objects.filter(owner=owner, kind="kanon", status=Job.Status.QUEUED).order_by("created_at"))
    for job in jobs:
        runner.run_job(job.id)
        job.refresh_from_db()
    return jobs


def test_each_runs_files_carry_k_the_strategy_and_lambda(api, alice_client, user, paper_upload):
    response = alice_client.post(reverse("kanon-configure", args=[paper_upload.id]),
                                 {"k": "2", "lambdas": "0, 0.5, 1", "yaml": yaml.safe_dump(rx())})
    assert response.status_code == 302
    gdf = start_by_api(api, paper_upload, config_yaml=yaml.safe_dump(rx(strategy="gdf")))
    assert gdf.status_code == 201, gdf.content
    jobs = run_queued(user)
    assert all(job.status == Job.Status.SUCCEEDED for job in jobs), [job.error for job in jobs]
    names = {job.params["config"]["strategy"] + str(job.params["config"]["relational_weight"]):
             sorted(result.name for result in job.results.all()) for job in jobs}
    # The released file, the words left for review in it (issue 44) and the report.
    assert names == {
        run: [f"paper_example.k2.{name}.{what}" for what in ("anonymized.csv", "left_for_review.csv", "report.json")]
        for run, name in (("mondrian0.0", "lambda0"), ("mondrian0.5", "lambda0.5"), ("mondrian1.0", "lambda1"),
                          ("gdf0.5", "gdf"))}
    # The download is named so too.
    detail = api.get(reverse("api-job-detail", args=[gdf.json()["id"]])).json()
    result = next(r for r in detail["results"] if r["name"].endswith(".anonymized.csv"))
    download = api.get(result["download_url"])
    assert 'filename="paper_example.k2.gdf.anonymized.csv"' in download["Content-Disposition"]


def test_result_names_stay_bounded_and_keep_the_run(user):
    upload = Upload(owner=user, original_name="名" * 300 + ".csv")
    config = KanonConfig.from_dict({"attributes": [], "k": 1_000_000, "relational_weight": 0.123456789})
    name = kanon_jobs.result_name(upload, config, "anonymized.csv")
    assert len(name) <= 255 and name.startswith("名" * 50)
    assert name.endswith(".k1000000.lambda0.123456789.anonymized.csv")
    assert kanon_jobs.result_name(Upload(owner=user, original_name=".csv"), config, "report.json") == (
        "dataset.k1000000.lambda0.123456789.report.json")
