"""One result, three doors (issue 48): the web's k-anonymization job (run as tests/kanon/web run it), ``kakurega
kanon`` (a subprocess) and ``kakurega.kanon_csv`` release byte for byte the same file and review list for the
same input, configuration and options: rx-anon's YAML as the API takes it, and run parameters set on top as the
configure page and the command's options set them."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile

from anonymizer.kanon.config import load_config
from anonymizer.kanon.web.selectors import KIND
from anonymizer.models import Job
from anonymizer.platform.uploads import create_csv_upload
from kakurega.kanon import JOB_KIND, kanon_csv
from tests.cli.test_kanon_cli import PAPER, RX_ANON_YAML, blog_slice

pytestmark = pytest.mark.django_db(transaction=True)
ROOT = Path(__file__).resolve().parents[2]


def web_job(user, source: Path, params: dict) -> dict[str, bytes]:
    """The released files of the web job on ``source``, by what they are (``anonymized.csv``, ...)."""
    from tests.helpers import run_in_process

    upload = create_csv_upload(owner=user, uploaded=SimpleUploadedFile(source.name, source.read_bytes()))
    job = run_in_process(owner=user, kind=KIND, params=params, inputs=[upload])
    assert job.status == Job.Status.SUCCEEDED, job.error
    files = {}
    for result in job.results.all():
        with result.file.open("rb") as handle:
            files[result.name.rsplit(".", 2)[-2] + "." + result.name.rsplit(".", 1)[-1]] = handle.read()
    return files


def command(source: Path, config: Path, folder: Path, cache: Path, *options: str) -> dict[str, bytes]:
    out, review = folder / "cli.csv", folder / "cli.review.csv"
    done = subprocess.run([sys.executable, "-m", "kakurega", "kanon", str(source), "-c", str(config), "-o", str(out),
                           "--review", str(review), "-q", *options], cwd=ROOT, capture_output=True, text=True,
                          timeout=600, env={**os.environ, "PYTHONPATH": str(ROOT), "KAKUREGA_CACHE_DIR": str(cache)})
    assert done.returncode == 0, done.stderr
    return {"anonymized.csv": out.read_bytes(), "left_for_review.csv": review.read_bytes()}


def api(source: Path, config: Path, folder: Path, **options) -> dict[str, bytes]:
    out, review = folder / "api.csv", folder / "api.review.csv"
    kanon_csv(source, out, config=config, review=review, **options)
    return {"anonymized.csv": out.read_bytes(), "left_for_review.csv": review.read_bytes()}


def assert_same(web: dict[str, bytes], *others: dict[str, bytes]) -> None:
    assert web["anonymized.csv"].count(b"\n") > 1
    for other in others:
        for what in ("anonymized.csv", "left_for_review.csv"):
            assert other[what] == web[what], what


def yaml_with(parameters: str) -> str:
    return f"parameters: {{{parameters}}}\n{RX_ANON_YAML.read_text(encoding='utf-8')}"


@pytest.mark.parametrize("dataset", ["paper_example", "blogs_1k_slice"])
def test_the_job_the_command_and_the_api_release_the_same_bytes(user, tmp_path, monkeypatch, dataset):
    source = PAPER if dataset == "paper_example" else blog_slice(tmp_path, 120)
    text = yaml_with("k: 2, relational_weight: 0.5")
    config = tmp_path / "config.yaml"
    config.write_text(text, encoding="utf-8")
    monkeypatch.setenv("KAKUREGA_CACHE_DIR", str(tmp_path / "cache"))  # the API's; the command is given its own
    web = web_job(user, source, {"config_yaml": text})
    # The command into an empty cache (its NER its own), the API reading it back: both are the job's file.
    assert_same(web, command(source, config, tmp_path, tmp_path / "cache"), api(source, config, tmp_path))


def test_run_parameters_set_on_top_release_the_same_bytes(user, tmp_path, monkeypatch):
    """The configure page's k, λ and options over a configuration against the command's and the API's."""
    text = yaml_with("k: 2")
    config = tmp_path / "config.yaml"
    config.write_text(text, encoding="utf-8")
    monkeypatch.setenv("KAKUREGA_CACHE_DIR", str(tmp_path / "cache"))
    columns = ["id", "gender", "age", "topic", "sign", "date", "text"]
    configured = load_config(text, columns=columns).with_parameters(k=3, relational_weight=1.0,
                                                                    numbered_pseudonyms=True, generalize_terms=False)
    web = web_job(user, PAPER, {"config": configured.to_dict()})
    assert_same(web, command(PAPER, config, tmp_path, tmp_path / "cache", "-k", "3", "--lambda", "1",
                             "--numbered-pseudonyms", "--no-generalize-terms"),
                api(PAPER, config, tmp_path, k=3, lambda_=1.0, numbered_pseudonyms=True, generalize_terms=False))


def test_the_commands_job_kind_is_the_webs():
    assert JOB_KIND == KIND
