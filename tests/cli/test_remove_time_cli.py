"""``kakurega remove-time`` run as a user runs it (a subprocess, real files): the time expressions of the text
columns go, every other cell and the row order stay, the report counts what happened; bad input exits 2 naming the
file, the row and the column and leaves no file behind. On the SynTime tweets (../shared/data, skipped when
absent), every post is what the time anonymizer writes for it. ``remove_time_frame`` gives the same cells."""

from __future__ import annotations

import csv
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.helpers import ROOT, shared_data

HEADER = ["id", "created_at", "text", "bio"]
# (id, created_at, text as posted, bio, text expected with the default options); the web job's test posts.
POSTS = [
    ("101", "2017-06-03 09:12", "I go to Tokyo with friends at 9AM.", "Up at 6am every day",
     "I go to Tokyo with friends."),
    ("102", "2017-06-03 10:40", "Tomorrow is my birthday", "Cat person, coffee addict", "It is my birthday"),
    ("103", "2017-06-03 11:05", "Last night was wild,\nsee you tonight at the show", "Night owl\nsince 2009",
     "It was wild,\nsee you at the show"),
    ("104", "2017-06-03 11:30", "", "no posts yet", ""),
    ("105", "2017-06-03 12:00", "No time in this one, just sushi", "", "No time in this one, just sushi"),
    ("106", "2017-06-03 13:15", "We met in the morning and left on Monday", "Weekend hiker", "We met and left"),
    ("108", "2017-06-03 15:45", 'Coffee, bagels and "jazz" on Sunday mornings', 'Says "hi" on Mondays',
     'Coffee, bagels and "jazz"'),
]


def kakurega(*args: str | Path, cwd: Path) -> subprocess.CompletedProcess:
    env = {**os.environ, "PYTHONPATH": str(ROOT), "COLUMNS": "200"}
    return subprocess.run([sys.executable, "-m", "kakurega", *map(str, args)], capture_output=True, text=True,
                          cwd=cwd, env=env, timeout=600)


def error_of(done: subprocess.CompletedProcess) -> str:
    """The command's error line (progress lines may come before it on stderr)."""
    errors = [line for line in done.stderr.splitlines() if line.startswith("kakurega: error: ")]
    assert len(errors) == 1, done.stderr
    return errors[0]


def write_csv(path: Path, rows: list[list[str]]) -> Path:
    with path.open("w", encoding="utf-8", newline="") as handle:
        csv.writer(handle).writerows(rows)
    return path


def read_csv(path: Path) -> list[list[str]]:
    with path.open(encoding="utf-8", newline="") as handle:
        return list(csv.reader(handle))


@pytest.fixture
def posts(tmp_path: Path) -> Path:
    return write_csv(tmp_path / "posts.csv", [HEADER, *[list(post[:4]) for post in POSTS]])


def test_the_text_column_loses_its_times_and_everything_else_stays(posts: Path) -> None:
    done = kakurega("remove-time", posts.name, "--column", "text", "-o", "out.csv", "--report", "report.json",
                    cwd=posts.parent)
    assert done.returncode == 0, done.stderr
    rows = read_csv(posts.parent / "out.csv")
    assert rows[0] == HEADER
    assert rows[1:] == [[post_id, created, expected, bio] for post_id, created, _, bio, expected in POSTS]
    report = json.loads((posts.parent / "report.json").read_text(encoding="utf-8"))
    assert report["input"] == "posts.csv" and report["rows"] == len(POSTS) and report["text_columns"] == ["text"]
    (counts,) = report["columns"]
    assert (counts["posts"], counts["empty"], counts["changed"]) == (6, 1, 5)
    assert report["options"] == {"time_mode": "both", "keep_time": ["now"], "keep_how_long": True,
                                 "time_patterns": None, "location_model": None}
    assert "sample" not in report  # counts only, no post text, as the job's report


def test_the_options_reach_the_anonymizer(posts: Path) -> None:
    done = kakurega("remove-time", posts, "-c", "text", "-c", "bio", "-o", "out.csv", "--time-mode", "prune",
                    "--keep-time", "part_of_day", "--remove-how-long", "--report", "r.json", "-q", cwd=posts.parent)
    assert done.returncode == 0, done.stderr
    rows = read_csv(posts.parent / "out.csv")
    assert rows[2][2] == "Tomorrow is my birthday"  # prune alone keeps an argument
    assert rows[6][2] == "We met in the morning and left"  # the part of the day is kept, the day goes
    assert rows[1][3] == "Up"  # the clock time goes in the second column too
    report = json.loads((posts.parent / "r.json").read_text(encoding="utf-8"))
    assert [c["name"] for c in report["columns"]] == ["text", "bio"]
    assert report["options"]["time_mode"] == "prune" and report["options"]["keep_time"] == ["part_of_day"]
    assert report["options"]["keep_how_long"] is False


def _no_output(folder: Path, *inputs: str) -> None:
    """Nothing written: no output, no report, no temporary file."""
    assert sorted(p.name for p in folder.iterdir()) == sorted(inputs)


def test_a_missing_column_exits_2_naming_the_file_and_its_columns(posts: Path) -> None:
    done = kakurega("remove-time", posts.name, "-c", "text", "-c", "body", "-o", "out.csv", cwd=posts.parent)
    assert done.returncode == 2
    assert error_of(done) == ("kakurega: error: posts.csv has no column 'body'; its columns are: "
                                   "id, created_at, text, bio")
    _no_output(posts.parent, "posts.csv")


def test_a_broken_row_exits_2_naming_the_row(tmp_path: Path) -> None:
    bad = tmp_path / "bad.csv"
    bad.write_bytes(b'id,text\n1,at 9AM\n2,"never closed\n3,ok\n')
    done = kakurega("remove-time", bad.name, "-o", "out.csv", "--report", "r.json", cwd=tmp_path)
    assert done.returncode == 2
    assert error_of(done).startswith("kakurega: error: bad.csv: Row 3: a quoted value is never closed")
    _no_output(tmp_path, "bad.csv")


def test_posts_that_are_not_english_exit_2_naming_their_rows_as_the_job_does(tmp_path: Path) -> None:
    rows = [HEADER, ["201", "2017-06-05 09:00", "Heading to the gym at 3 PM", ""],
            ["202", "2017-06-05 10:00", "Férias de 3 meses amo EUA por isso kkk", ""],
            ["203", "2017-06-05 11:00", "Back home by 5", ""],
            ["204", "2017-06-05 12:00", "明日の朝9時に渋谷で", ""]]
    write_csv(tmp_path / "mixed.csv", rows)
    done = kakurega("remove-time", "mixed.csv", "-o", "out.csv", "--report", "r.json", cwd=tmp_path)
    assert done.returncode == 2
    message = error_of(done)
    assert message.startswith("kakurega: error: mixed.csv: 2 post(s) are not English (rows 3, 5; row 3, "
                              "column 'text': "), message
    assert message.endswith("Time expressions are removed from English posts only: remove or translate those rows "
                            "and run it again.")
    _no_output(tmp_path, "mixed.csv")


@pytest.mark.parametrize(("args", "expected"), [
    (["--keep-time", "hour"], "'hour' is not one of 'clock'"),
    (["--time-mode", "erase"], "'erase' is not one of"),
    (["--time-patterns", "posts.csv"], "time_patterns: posts.csv: expected the JSON result of a 'learn temporal "
                                       "patterns' job"),
    (["--processes", "0"], "Invalid value for '--processes'"),
])
def test_a_bad_option_exits_2_saying_what_was_expected(posts: Path, args: list[str], expected: str) -> None:
    done = kakurega("remove-time", posts.name, "-o", "out.csv", *args, cwd=posts.parent)
    assert done.returncode == 2
    assert expected in " ".join(done.stderr.replace("│", " ").split()), done.stderr
    _no_output(posts.parent, "posts.csv")


def test_a_location_model_for_another_language_exits_2_as_the_job_refuses_it(posts: Path, tokyo) -> None:
    from tests.model_cache import cache_dir

    model = cache_dir(tokyo.spec)  # the Japanese default model, trained (or read) by the fixture
    assert (model / "model.json").exists()
    done = kakurega("remove-time", posts.name, "-o", "out.csv", "--location-model", model, cwd=posts.parent)
    assert done.returncode == 2
    assert error_of(done) == (f"kakurega: error: location_model: Time expressions are found in English posts only; "
                              f"the model '{model}' is for 'ja' posts. Choose an English model (language 'en').")
    _no_output(posts.parent, "posts.csv")


def test_a_missing_file_exits_2(tmp_path: Path) -> None:
    done = kakurega("remove-time", "nowhere.csv", "-o", "out.csv", cwd=tmp_path)
    assert done.returncode == 2
    assert error_of(done) == "kakurega: error: nowhere.csv: no such file; expected a CSV file of posts"


@pytest.fixture(scope="module")
def syntime(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, list[dict]]:
    """The first 150 SynTime training tweets (each with gold time expressions) as a CSV: id, dct, text."""
    tweets = [json.loads(line) for line in
              shared_data("temporal/syntime_tweets/train.jsonl").read_text(encoding="utf-8").splitlines()[:150]]
    path = tmp_path_factory.mktemp("syntime") / "tweets.csv"
    write_csv(path, [["id", "dct", "text"], *[[t["id"], t["dct"], t["text"]] for t in tweets]])
    return path, tweets


def test_on_real_tweets_every_post_is_what_the_anonymizer_writes(syntime) -> None:
    path, tweets = syntime
    done = kakurega("remove-time", path, "-o", "out.csv", "--report", "r.json", "-p", "2", cwd=path.parent)
    assert done.returncode == 0, done.stderr
    rows = read_csv(path.parent / "out.csv")
    assert [row[:2] for row in rows[1:]] == [[t["id"], t["dct"]] for t in tweets]
    from anonymizer.tabular.export import neutralize_cell
    from anonymizer.temporal.removal import DEFAULTS, time_anonymizer

    expected = time_anonymizer(DEFAULTS, use_ner=True).transform([t["text"] for t in tweets])
    # As written to a CSV: a cell a spreadsheet would run as a formula ("@lorenzo99 ...") starts with "'".
    assert [row[2] for row in rows[1:]] == [neutralize_cell(r.text if r.changed else t["text"])
                                            for r, t in zip(expected, tweets, strict=True)]
    gone = sum(all(surface not in row[2] for surface in t["surface"]) for row, t in zip(rows[1:], tweets,
                                                                                          strict=True))
    assert gone >= 0.6 * len(tweets), gone  # most gold time expressions are gone whole
    (counts,) = json.loads((path.parent / "r.json").read_text(encoding="utf-8"))["columns"]
    assert counts["posts"] == len(tweets) and counts["posts_time_changed"] >= gone


def test_the_frame_api_gives_the_files_cells(posts: Path) -> None:
    import pandas as pd

    import kakurega

    frame = pd.read_csv(posts, dtype=str, keep_default_na=False).set_index("id")
    frame.loc["104", "bio"] = None
    released = kakurega.remove_time_frame(frame, column=["text", "bio"], time_mode="prune")
    kakurega.remove_time_csv(posts, posts.parent / "out.csv", column=["text", "bio"], time_mode="prune")
    rows = read_csv(posts.parent / "out.csv")
    assert released["text"].tolist() == [row[2] for row in rows[1:]]
    assert released.index.tolist() == frame.index.tolist() and released["created_at"].equals(frame["created_at"])
    assert pd.isna(released.loc["104", "bio"])  # a missing value stays missing
    assert frame.loc["101", "text"] == POSTS[0][2]  # the frame given is not changed
    assert released.attrs["report"]["columns"][0]["changed"] == 4
