"""A file command's job on a Kakurega server (``kakurega.remote.Server``, ``cli.common.run_on_server``), against the
test server (pytest-django's live_server): every way it can go wrong gives the exit code and the message the brief
of issue 48 names (2 for a field at fault, 3 for a server refused or not there, 1 for a job that failed), leaving
no output file behind. The jobs run by a real Celery worker (the downloaded file is the job's file byte for byte,
a job that fails exits 1) are in test_server_jobs.py, which shares one worker; none listens here."""

from __future__ import annotations

import socket
from pathlib import Path

import pytest
import typer
from rest_framework.authtoken.models import Token

from anonymizer.models import Job, Upload
from kakurega import remote
from kakurega.cli.common import EXIT_BAD_INPUT, EXIT_FAILED, EXIT_SERVER, run_on_server
from tests.helpers import csv_bytes

pytestmark = [pytest.mark.django_db(transaction=True)]

ROWS = [["id", "created_at", "text"],
        ["1", "2017-06-03 09:12", "I go to Tokyo with friends at 9AM."],
        ["2", "2017-06-03 10:40", "Tomorrow is my birthday"],
        ["3", "2017-06-03 11:05", "Last night was wild,\nsee you tonight at the show"],
        ["4", "2017-06-03 11:30", "No time in this one, just sushi"]]
NOT_ENGLISH = [["id", "created_at", "text"], ["1", "2017-06-05 09:00", "Heading to the gym at 3 PM"],
               ["2", "2017-06-05 10:00", "Férias de 3 meses amo EUA por isso kkk"]]
OUTPUTS = {".time-removed.csv": "out.csv", "report.json": "report.json"}


@pytest.fixture
def token(user) -> str:
    return Token.objects.create(user=user).key


@pytest.fixture
def posts(tmp_path) -> Path:
    path = tmp_path / "posts.csv"
    path.write_bytes(csv_bytes(ROWS))
    return path


def outputs_in(folder: Path) -> dict[str, Path]:
    folder.mkdir(exist_ok=True)
    return {ending: folder / name for ending, name in OUTPUTS.items()}


def run(server: str, token: str | None, file: Path, params: dict, capsys) -> tuple[int, str, dict | None]:
    """run_on_server as a command calls it: (exit code, what it printed, the summary when it succeeded)."""
    try:
        summary = run_on_server(server, token, kind="remove_time", file=file, params=params,
                                outputs=outputs_in(file.parent / "out"), quiet=True)
        code = 0
    except typer.Exit as exc:
        summary, code = None, exc.exit_code
    printed = capsys.readouterr()
    assert not printed.out
    return code, printed.err, summary


def assert_nothing_written(file: Path) -> None:
    folder = file.parent / "out"
    assert not folder.exists() or not list(folder.iterdir()), list(folder.iterdir())


def test_a_parameter_at_fault_exits_2_naming_the_field_as_the_web_does(live_server, token, posts, capsys):
    code, printed, _ = run(live_server.url, token, posts, {"text_columns": ["text", "body"]}, capsys)
    assert code == EXIT_BAD_INPUT
    assert printed == ("kakurega: error: the server refused the input: params.text_columns: posts.csv has no column "
                       "'body'; its columns are: id, created_at, text\n")
    assert not Job.objects.exists()
    assert_nothing_written(posts)


def test_a_bad_file_exits_2_naming_its_row(live_server, token, tmp_path, capsys):
    broken = tmp_path / "broken.csv"
    broken.write_bytes(csv_bytes(ROWS) + b'5,2017-06-04 08:00,"never closed\n')
    code, printed, _ = run(live_server.url, token, broken, {"text_columns": ["text"]}, capsys)
    assert code == EXIT_BAD_INPUT
    assert printed.startswith("kakurega: error: the server refused the input: file: Row 6"), printed
    assert "never closed" in printed
    assert_nothing_written(broken)


def test_a_wrong_token_exits_3_and_is_never_printed(live_server, token, posts, capsys):
    wrong = token[::-1]
    code, printed, _ = run(live_server.url, wrong, posts, {"text_columns": ["text"]}, capsys)
    assert code == EXIT_SERVER
    assert printed.startswith("kakurega: error: the server refused the token"), printed
    assert wrong not in printed and token not in printed
    assert_nothing_written(posts)


def test_an_output_that_cannot_be_written_exits_1_before_anything_is_sent(live_server, token, posts, capsys):
    code = None
    try:
        run_on_server(live_server.url, token, kind="remove_time", file=posts, params={"text_columns": ["text"]},
                      outputs={".time-removed.csv": posts.parent / "no-such-folder" / "out.csv"}, quiet=True)
    except typer.Exit as exc:
        code = exc.exit_code
    assert code == EXIT_FAILED
    assert capsys.readouterr().err == (f"kakurega: error: {posts.parent / 'no-such-folder' / 'out.csv'}: "
                                       "No such file or directory\n")
    assert not Upload.objects.exists() and not Job.objects.exists()


def test_no_token_exits_2_before_anything_is_sent(posts, capsys, monkeypatch):
    monkeypatch.delenv("KAKUREGA_TOKEN", raising=False)
    code, printed, _ = run("http://127.0.0.1:9", None, posts, {}, capsys)
    assert code == EXIT_BAD_INPUT and "--token T or set KAKUREGA_TOKEN" in printed


def test_a_server_that_is_not_listening_exits_3(posts, capsys):
    with socket.socket() as sock:  # a loopback port that was free a moment ago: nothing listens there
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    code, printed, _ = run(f"http://127.0.0.1:{port}", "some-token", posts, {}, capsys)
    assert code == EXIT_SERVER
    assert printed == f"kakurega: error: cannot reach http://127.0.0.1:{port}: connection refused\n"
    assert_nothing_written(posts)


def test_an_address_that_is_no_kakurega_server_exits_3(live_server, token, posts, capsys):
    code, printed, _ = run(f"{live_server.url}/nothing-here", token, posts, {}, capsys)
    assert code == EXIT_SERVER and "no Kakurega API" in printed, printed


def test_a_job_cancelled_on_the_server_and_a_wait_that_times_out_say_so(live_server, token, posts, tmp_path):
    """No worker: the job stays queued until cancelled, and a bounded wait gives up saying where the job is."""
    with remote.Server(live_server.url, token) as server:
        with pytest.raises(remote.WaitTimedOut, match=r"did not end within 0\.5 s; it goes on at .*/jobs/"):
            server.run("remove_time", posts, {"text_columns": ["text"]}, outputs_in(tmp_path / "out"),
                       timeout=0.5)
        assert Job.objects.get().status == Job.Status.QUEUED

        def cancel_on_the_server(done: int, total: int, message: str) -> None:  # as on the job's page
            for job in Job.objects.filter(status=Job.Status.QUEUED):
                server.cancel(str(job.id))

        with pytest.raises(remote.JobFailed, match=r"the job was cancelled on the server \(http.*/jobs/"):
            server.run("remove_time", posts, {"text_columns": ["text"]}, outputs_in(tmp_path / "out"),
                       progress=cancel_on_the_server)
    assert Job.objects.filter(status=Job.Status.CANCELLED).count() == 2
    assert not list((tmp_path / "out").iterdir())


def test_error_bodies_flatten_to_the_fields_and_rows_the_web_names():
    assert remote.field_messages({"params": {"text_columns": ["no column 'body'"], "columns": {"2": ["bad"]}},
                                  "detail": "refused"}) == {
        "params.text_columns": ["no column 'body'"], "params.columns[2]": ["bad"], "": ["refused"]}
    row = {"message": 'Row 17, column 3 ("age"): not a number', "row": 17, "column": 3, "column_name": "age"}
    assert remote.field_messages({"file": [row]}) == {"file": ['Row 17, column 3 ("age"): not a number']}
    assert str(remote.BadRequest(remote.field_messages({"file": [row]}))) == (
        'file: Row 17, column 3 ("age"): not a number')


def test_ctrl_c_while_waiting_cancels_the_job_on_the_server(live_server, token, posts, tmp_path):
    def interrupted(done: int, total: int, message: str) -> None:  # Ctrl-C at the first poll
        raise KeyboardInterrupt

    with remote.Server(live_server.url, token) as server, pytest.raises(KeyboardInterrupt):
        server.run("remove_time", posts, {"text_columns": ["text"]}, outputs_in(tmp_path / "out"),
                   progress=interrupted)
    assert Job.objects.get().status == Job.Status.CANCELLED
    assert not list((tmp_path / "out").iterdir())

