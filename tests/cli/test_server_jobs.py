"""Every file command sent to a Kakurega server with ``--server`` and run there by a real Celery worker, against
the test server (pytest-django's live_server, one for the session): the file downloaded is the one the command
writes here (or the job's own), byte for byte, and a job that fails or input the server refuses gives the exit
code and message of issue 48, with no output file left behind.

These tests share one worker (started once for the module, not once a test: it took 4–5 s each time, eight
times): each test points this process's media, scratch and model folders at the worker's, and starts with an
empty database as before (transactional tests). The module holds only tests that need the worker: a job left
queued on purpose (test_remote's cancel and Ctrl-C tests) must find none listening."""

from __future__ import annotations

import csv
import io
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from rest_framework.authtoken.models import Token

from anonymizer.kanon.web.selectors import KIND
from anonymizer.models import Job
from anonymizer.platform.uploads import create_csv_upload
from kakurega.cli.common import EXIT_BAD_INPUT, EXIT_FAILED, EXIT_SERVER
from tests.cli.conftest import run_kakurega
from tests.cli.test_byte_identity_kanon import command, yaml_with
from tests.cli.test_byte_identity_time import CLI_OPTIONS, EDGES, _same_work
from tests.cli.test_deidentify_cli import us_rows, write
from tests.cli.test_kanon_cli import PAPER
from tests.cli.test_remote import NOT_ENGLISH, OUTPUTS, ROWS, assert_nothing_written, run
from tests.conftest import WorkerProcess
from tests.helpers import ROOT, csv_bytes, run_in_process

pytestmark = [pytest.mark.django_db(transaction=True)]

#: The worker's heartbeat and staleness, as the start_worker fixture sets them.
HEARTBEAT, STALE_AFTER = 0.5, 3.0


@pytest.fixture(scope="module")
def shared_worker(django_db_setup, tmp_path_factory):
    """One real Celery worker for the module, on the session's queue and test database, with media, scratch and
    model folders of its own (each test points this process's settings at them)."""
    base = tmp_path_factory.mktemp("server-jobs")
    folders = {name: base / name.lower() for name in ("MEDIA_ROOT", "JOB_SCRATCH_DIR", "MODEL_DIR")}
    worker = WorkerProcess(HEARTBEAT, STALE_AFTER, {name: str(path) for name, path in folders.items()})
    try:
        worker.wait_ready()
        yield worker, folders
    finally:
        worker.stop()


@pytest.fixture
def worker(shared_worker, settings) -> WorkerProcess:
    """The module's worker, still running, and this test's settings sharing its folders."""
    process, folders = shared_worker
    assert process.process.poll() is None, f"the module's worker exited with status {process.process.returncode}"
    settings.JOB_HEARTBEAT_SECONDS, settings.JOB_STALE_AFTER_SECONDS = HEARTBEAT, STALE_AFTER
    for name, path in folders.items():
        setattr(settings, name, path)
    return process


@pytest.fixture
def server_models(worker, tokyo, midwest):
    """Both default models registered on the server (rows + artifacts in the worker's MODEL_DIR), as bootstrap
    does: the location_models fixture, in the folder the worker reads."""
    from anonymizer.location.web.services import register_location_model

    return {trained.spec.name: register_location_model(trained.model, title=trained.spec.title)
            for trained in (tokyo, midwest)}


@pytest.fixture
def token(user) -> str:
    return Token.objects.create(user=user).key


@pytest.fixture
def posts(tmp_path) -> Path:
    path = tmp_path / "posts.csv"
    path.write_bytes(csv_bytes(ROWS))
    return path


@pytest.fixture
def folder(kakurega_cache, tmp_path) -> Path:
    """A folder of the test's files alone (the default models' cache is beside it)."""
    (tmp_path / "files").mkdir()
    return tmp_path / "files"


# -- kakurega.remote and run_on_server (tests/cli/test_remote.py has the cases that need no worker) --------------
@pytest.mark.worker
def test_the_job_on_the_server_gives_the_jobs_own_bytes(live_server, worker, user, token, posts, capsys):
    code, printed, summary = run(live_server.url, token, posts, {"text_columns": ["text"]}, capsys)
    assert code == 0, printed
    direct = run_in_process(owner=user, kind="remove_time", params={"text_columns": ["text"]},
                            inputs=[create_csv_upload(owner=user, uploaded=SimpleUploadedFile("posts.csv",
                                                                                              posts.read_bytes()))])
    assert direct.status == Job.Status.SUCCEEDED, direct.error
    expected = {ending: direct.results.get(name__endswith=ending).file.read() for ending in OUTPUTS}
    released = posts.parent / "out" / "out.csv"
    assert released.read_bytes() == expected[".time-removed.csv"]
    assert b"9AM" not in released.read_bytes() and b"sushi" in released.read_bytes()
    report, direct_report = (json.loads(body) for body in ((posts.parent / "out" / "report.json").read_bytes(),
                                                            expected["report.json"]))
    assert report.pop("seconds") > 0 and direct_report.pop("seconds") > 0  # the only field the two runs differ in
    assert report == direct_report
    assert summary == Job.objects.exclude(id=direct.id).get().result and summary["rows"] == 4
    assert sorted(path.name for path in (posts.parent / "out").iterdir()) == ["out.csv", "report.json"]
    assert token not in printed


@pytest.mark.worker
def test_a_job_that_fails_exits_1_with_its_error(live_server, worker, token, tmp_path, capsys):
    mixed = tmp_path / "mixed.csv"
    mixed.write_bytes(csv_bytes(NOT_ENGLISH))
    code, printed, _ = run(live_server.url, token, mixed, {"text_columns": ["text"]}, capsys)
    assert code == EXIT_FAILED
    assert printed.startswith("kakurega: error: the job failed: mixed.csv: 1 post(s) are not English (rows 3; "), \
        printed
    assert f"{live_server.url}/jobs/" in printed
    assert_nothing_written(mixed)


# -- each file command with --server gives the file it gives here (a subprocess, as a user runs it) -------------
@pytest.mark.worker
def test_kanon_with_server_gives_the_file_it_gives_here(live_server, worker, token, tmp_path, monkeypatch):
    monkeypatch.setenv("KAKUREGA_CACHE_DIR", str(tmp_path / "cache"))  # the term cache of this run only
    paper, config = (ROOT / "data" / "kanon" / name for name in ("paper_example.csv", "blog_authorship_corpus.yaml"))
    common = ["kanon", str(paper), "--config", str(config), "-k", "2", "--lambda", "0.5", "--strategy", "mondrian",
              "--quiet"]
    here = run_kakurega(*common, "-o", str(tmp_path / "here.csv"), "--review", str(tmp_path / "here-review.csv"))
    assert here.returncode == 0, here.stderr
    there = run_kakurega(*common, "-o", str(tmp_path / "there.csv"), "--review", str(tmp_path / "there-review.csv"),
                         "--report", str(tmp_path / "there.json"), "--server", live_server.url, "--token", token)
    assert there.returncode == 0, there.stderr
    assert (tmp_path / "there.csv").read_bytes() == (tmp_path / "here.csv").read_bytes()
    assert (tmp_path / "there-review.csv").read_bytes() == (tmp_path / "here-review.csv").read_bytes()
    assert json.loads((tmp_path / "there.json").read_bytes())["k_reached"]
    assert b"Pedro" not in (tmp_path / "there.csv").read_bytes()
    assert token not in there.stdout + there.stderr

    monkeypatch.setenv("KAKUREGA_TOKEN", token[::-1])
    refused = run_kakurega(*common, "-o", str(tmp_path / "refused.csv"), "--server", live_server.url)
    assert refused.returncode == EXIT_SERVER and "the server refused the token" in refused.stderr, refused.stderr
    assert not (tmp_path / "refused.csv").exists()


@pytest.mark.worker
def test_deidentify_with_server_gives_the_file_it_gives_here(live_server, worker, token, posts,
                                                             kakurega_cache, server_models):
    folder = posts.parent
    common = ["deidentify", str(posts), "--column", "text", "--model", "us-midwest-en"]
    here = run_kakurega(*common, "-o", str(folder / "here.csv"))
    assert here.returncode == 0, here.stderr
    there = run_kakurega(*common, "-o", str(folder / "there.csv"), "--report", str(folder / "there.json"),
                         "--server", live_server.url, "--token", token)
    assert there.returncode == 0, there.stderr
    assert (folder / "there.csv").read_bytes() == (folder / "here.csv").read_bytes()
    assert json.loads((folder / "there.json").read_bytes())["rows"] == 4
    assert token not in there.stdout + there.stderr

    unknown = run_kakurega("deidentify", str(posts), "--model", "no-such-model", "-o", str(folder / "unknown.csv"),
                           "--server", live_server.url, "--token", token)
    assert unknown.returncode == EXIT_BAD_INPUT and "params.model: " in unknown.stderr, unknown.stderr
    assert not (folder / "unknown.csv").exists()


@pytest.mark.worker
def test_remove_time_with_server_gives_the_file_it_gives_here(live_server, worker, token, posts):
    folder, common = posts.parent, ["remove-time", str(posts), "--column", "text", "--quiet"]
    here = run_kakurega(*common, "-o", str(folder / "here.csv"), "--report", str(folder / "here.json"))
    assert here.returncode == 0, here.stderr
    there = run_kakurega(*common, "-o", str(folder / "there.csv"), "--report", str(folder / "there.json"),
                         "--server", live_server.url, "--token", token)
    assert there.returncode == 0, there.stderr
    assert (folder / "there.csv").read_bytes() == (folder / "here.csv").read_bytes()
    assert b"9AM" not in (folder / "there.csv").read_bytes()
    assert json.loads((folder / "there.json").read_bytes())["rows"] == 4
    assert token not in there.stdout + there.stderr

    missing = run_kakurega("remove-time", str(posts), "--column", "body", "-o", str(folder / "missing.csv"),
                           "--server", live_server.url, "--token", token)
    assert missing.returncode == EXIT_BAD_INPUT
    assert "params.text_columns: posts.csv has no column 'body'; its columns are: id, created_at, text" in \
        missing.stderr, missing.stderr
    assert not (folder / "missing.csv").exists()


@pytest.mark.worker
def test_with_server_the_job_runs_on_the_server_and_its_files_are_the_commands(live_server, worker, user, tmp_path):
    """``kakurega kanon --server URL --token T``: the run parameters put in here, the job run by a real worker, its
    files downloaded; the same bytes as the command run here."""
    from rest_framework.authtoken.models import Token

    config = tmp_path / "config.yaml"
    config.write_text(yaml_with("k: 2"), encoding="utf-8")
    remote = tmp_path / "remote"
    remote.mkdir()
    done = subprocess.run(
        [sys.executable, "-m", "kakurega", "kanon", str(PAPER), "-c", str(config), "-k", "3", "--lambda", "1",
         "-o", str(remote / "out.csv"), "--review", str(remote / "review.csv"), "--report", str(remote / "report.json"),
         "-q", "--server", live_server.url, "--token", Token.objects.create(user=user).key],
        cwd=ROOT, capture_output=True, text=True, timeout=600,
        env={**os.environ, "PYTHONPATH": str(ROOT), "KAKUREGA_CACHE_DIR": str(tmp_path / "unused")})
    assert done.returncode == 0, done.stderr
    assert not (tmp_path / "unused").exists()  # nothing ran here
    job = Job.objects.get(kind=KIND, owner=user)
    assert job.params["config"]["k"] == 3 and job.params["config"]["relational_weight"] == 1.0
    here = command(PAPER, config, tmp_path, tmp_path / "cache", "-k", "3", "--lambda", "1")
    assert (remote / "out.csv").read_bytes() == here["anonymized.csv"]
    assert (remote / "review.csv").read_bytes() == here["left_for_review.csv"]
    assert b'"k_reached": true' in (remote / "report.json").read_bytes()


@pytest.mark.worker
def test_the_command_on_a_server_gives_the_file_it_gives_here(live_server, worker, user, tmp_path: Path):
    from rest_framework.authtoken.models import Token

    token = Token.objects.create(user=user).key
    rows = [["id", "dct", "text", "note"], ["1", "2017-06-03", "I go to Tokyo with friends at 9AM.", ""],
            ["2", "2017-06-03", "Tomorrow is my birthday", "We met in the morning"], *EDGES]
    out = io.StringIO(newline="")
    csv.writer(out).writerows(rows)
    (tmp_path / "posts.csv").write_text(out.getvalue(), encoding="utf-8", newline="")
    options = [*CLI_OPTIONS, "--time-mode", "prune", "--remove-how-long"]
    written = {}
    for where, extra in [("here", []), ("server", ["--server", live_server.url, "--token", token])]:
        done = subprocess.run([sys.executable, "-m", "kakurega", "remove-time", "posts.csv", *options, *extra,
                               "-o", f"{where}.csv", "--report", f"{where}.json"], capture_output=True, text=True,
                              cwd=tmp_path, env={**os.environ, "PYTHONPATH": str(ROOT)}, timeout=600)
        assert done.returncode == 0, done.stderr
        written[where] = ((tmp_path / f"{where}.csv").read_bytes(),
                          json.loads((tmp_path / f"{where}.json").read_text(encoding="utf-8")))
    assert written["server"][0] == written["here"][0]
    assert b"Tomorrow is my birthday" in written["here"][0]  # prune keeps an argument: the options went along
    assert _same_work(written["server"][1]) == _same_work(written["here"][1])
    assert written["here"][1]["options"]["keep_how_long"] is False


@pytest.mark.worker
def test_with_server_the_file_is_the_one_written_here(folder, live_server, worker, user, server_models):
    from rest_framework.authtoken.models import Token

    token = Token.objects.create(user=user).key
    source = write(folder / "posts.csv", us_rows(30))
    here = run_kakurega("deidentify", str(source), "-o", str(folder / "here.csv"), "--model", "us-midwest-en")
    assert here.returncode == 0, here.stderr
    there = run_kakurega("deidentify", str(source), "-o", str(folder / "there.csv"), "--report",
                         str(folder / "there.json"), "--server", live_server.url, "--token", token)
    assert there.returncode == 0, there.stderr
    assert (folder / "there.csv").read_bytes() == (folder / "here.csv").read_bytes()
    report = json.loads((folder / "there.json").read_text(encoding="utf-8"))
    assert report["model"]["name"] == "us-midwest-en" and report["rows"] == 30  # the server's report: the model's id
    assert token not in there.stdout + there.stderr
    refused = run_kakurega("deidentify", str(source), "-o", str(folder / "refused.csv"), "--column", "body",
                           "--server", live_server.url, "--token", token)
    assert refused.returncode == 2 and "has no column 'body'" in refused.stderr, refused.stderr
    assert not (folder / "refused.csv").exists()
