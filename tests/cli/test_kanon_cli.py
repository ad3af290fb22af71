"""``kakurega kanon`` as a user runs it: a subprocess on real files (rx-anon's paper example, a slice of the Blog
Authorship Corpus), the term cache in a folder of the test's own; bad input exits 2 naming the file, the row or
the configuration's key and line, and leaves no output behind."""

from __future__ import annotations

import csv
import io
import json
import os
import subprocess
import sys
from collections import defaultdict
from pathlib import Path

from tests.helpers import shared_data

ROOT = Path(__file__).resolve().parents[2]
PAPER = ROOT / "data" / "kanon" / "paper_example.csv"
RX_ANON_YAML = ROOT / "data" / "kanon" / "e_blog_authorship_corpus.yaml"  # rx-anon's, without parameters
BLOG_YAML = ROOT / "data" / "kanon" / "blog_authorship_corpus.yaml"  # k 2, GDF
QIS = ["gender", "age", "topic", "sign", "date"]


def kakurega(*args: object, cache: Path, **env: str) -> subprocess.CompletedProcess:
    """``kakurega`` run as a user runs it, its term cache in ``cache``."""
    return subprocess.run([sys.executable, "-m", "kakurega", *map(str, args)], cwd=ROOT, capture_output=True,
                          text=True, timeout=600,
                          env={**os.environ, "PYTHONPATH": str(ROOT), "KAKUREGA_CACHE_DIR": str(cache), **env})


def rx_anon_config(folder: Path, parameters: str = "k: 2, relational_weight: 0.5") -> Path:
    """rx-anon's blog configuration with a ``parameters:`` block in front, as a file."""
    path = folder / "config.yaml"
    path.write_text(f"parameters: {{{parameters}}}\n{RX_ANON_YAML.read_text(encoding='utf-8')}", encoding="utf-8")
    return path


def rows(path: Path) -> list[dict]:
    return list(csv.DictReader(io.StringIO(path.read_text(encoding="utf-8"))))


def smallest_group(original: list[dict], released: list[dict]) -> int:
    groups: dict[tuple, set] = defaultdict(set)
    for before, after in zip(original, released, strict=True):
        groups[tuple(after[name] for name in QIS)].add(before["id"])
    return min(len(persons) for persons in groups.values())


def blog_slice(folder: Path, posts: int) -> Path:
    """The first ``posts`` posts of blogs_1k.csv (skipped, saying so, without ../shared)."""
    source = shared_data("kanon/blogs_1k.csv")
    records = list(csv.reader(io.StringIO(source.read_text(encoding="utf-8"), newline="")))[:posts + 1]
    path = folder / f"blogs_{posts}.csv"
    with path.open("w", encoding="utf-8", newline="") as handle:
        csv.writer(handle, lineterminator="\n").writerows(records)
    return path


def test_help_names_every_option_with_its_default(tmp_path):
    done = kakurega("kanon", "--help", cache=tmp_path, COLUMNS="200")
    assert done.returncode == 0, done.stderr
    for option in ("--config", "--output", "--report", "--review", "-k", "--lambda", "--strategy", "--seed",
                   "--generalize-terms", "--recode-everywhere", "--numbered-pseudonyms", "--neutralize-formulas",
                   "--processes", "--term-cache", "--quiet", "--server", "--token"):
        assert option in done.stdout, option
    text = " ".join(done.stdout.split())  # wrapped at any width
    assert "the configuration's, else 2" in text and "[default: 1; x>=1]" in text


def test_the_paper_example_is_released_k_anonymous_with_its_report_and_review_list(tmp_path):
    out, report, review = tmp_path / "out.csv", tmp_path / "report.json", tmp_path / "review.csv"
    done = kakurega("kanon", PAPER, "--config", BLOG_YAML, "-k", "2", "--lambda", "0.5", "--strategy", "mondrian",
                    "-o", out, "--report", report, "--review", review, cache=tmp_path / "cache")
    assert done.returncode == 0, done.stderr
    original, released = rows(PAPER), rows(out)
    assert list(released[0]) == ["gender", "age", "topic", "sign", "date", "text"]  # the identifier dropped
    assert len(released) == len(original) == 9
    assert smallest_group(original, released) >= 2
    assert "Pedro" in original[0]["text"] and "Pedro" not in out.read_text(encoding="utf-8")
    summary = json.loads(report.read_text(encoding="utf-8"))
    assert summary["k"] == 2 and summary["strategy"] == "mondrian" and summary["relational_weight"] == 0.5
    assert summary["k_reached"] and summary["persons"] == 6 and summary["input"] == "paper_example.csv"
    assert summary["recognition"] == {"cached": 0, "recognized": 9}  # the cache folder was empty
    assert review.read_text(encoding="utf-8").startswith("row,column,left_for_review")
    assert "6 persons in" in done.stderr and not list(tmp_path.glob(".*partial"))


def test_the_configurations_own_parameters_run_when_none_is_given(tmp_path):
    report = tmp_path / "report.json"
    done = kakurega("kanon", PAPER, "-c", BLOG_YAML, "-o", tmp_path / "out.csv", "--report", report,
                    "--no-term-cache", cache=tmp_path / "cache")
    assert done.returncode == 0, done.stderr
    assert json.loads(report.read_text(encoding="utf-8"))["strategy"] == "gdf"  # the file's, not a default's
    assert not (tmp_path / "cache").exists()


def test_a_second_run_reads_the_ner_from_the_cache_and_two_runs_at_once_share_it(tmp_path):
    posts = blog_slice(tmp_path, 30)  # 21 persons; the NER of 30 posts is what is cached and shared
    config, cache = rx_anon_config(tmp_path), tmp_path / "cache"
    args = ["kanon", posts, "-c", config, "-q"]
    env = {**os.environ, "PYTHONPATH": str(ROOT), "KAKUREGA_CACHE_DIR": str(cache)}
    # Two processes into one empty cache at once: both finish, with the same file.
    both = [subprocess.Popen([sys.executable, "-m", "kakurega", *map(str, args), "-o", str(tmp_path / f"{n}.csv"),
                              "--report", str(tmp_path / f"{n}.json")], cwd=ROOT, env=env,
                             stderr=subprocess.PIPE, text=True) for n in ("a", "b")]
    for process in both:
        assert process.wait(600) == 0, process.stderr.read()
        process.stderr.close()
    assert (tmp_path / "a.csv").read_bytes() == (tmp_path / "b.csv").read_bytes()
    # Then a run with another k reads every text's terms from the cache (no NER), and the same is released as
    # by a run without the cache.
    done = kakurega(*args, "-k", "3", "-o", tmp_path / "k3.csv", "--report", tmp_path / "k3.json", cache=cache)
    assert done.returncode == 0, done.stderr
    assert json.loads((tmp_path / "k3.json").read_text())["recognition"] == {"cached": 30, "recognized": 0}
    fresh = kakurega(*args, "-k", "3", "-o", tmp_path / "fresh.csv", "--no-term-cache", cache=tmp_path / "none")
    assert fresh.returncode == 0, fresh.stderr
    assert (tmp_path / "fresh.csv").read_bytes() == (tmp_path / "k3.csv").read_bytes()
    assert smallest_group(rows(posts), rows(tmp_path / "k3.csv")) >= 3


# -- bad input: exit 2, the file and where in it, no output ------------------------------------------------------
def assert_refused(done: subprocess.CompletedProcess, folder: Path, *words: str) -> None:
    assert done.returncode == 2, (done.returncode, done.stderr)
    assert "kakurega: error: " in done.stderr, done.stderr
    for word in words:
        assert word in done.stderr, (word, done.stderr)
    assert not (folder / "out.csv").exists() and not list(folder.glob(".*partial"))


def test_a_bad_configuration_names_the_file_the_key_and_its_line(tmp_path):
    config = rx_anon_config(tmp_path, "k: 0, relational_weight: 0.5")
    done = kakurega("kanon", PAPER, "-c", config, "-o", tmp_path / "out.csv", cache=tmp_path)
    assert_refused(done, tmp_path, f"{config}, line 1: parameters.k: 0 is too small; expected an integer >= 2")


def test_a_configuration_naming_a_missing_column_names_it_its_line_and_the_columns(tmp_path):
    config = rx_anon_config(tmp_path)
    text = config.read_text(encoding="utf-8")
    config.write_text(text.replace("  text:\n", "  texte:\n", 1), encoding="utf-8")
    line = text.splitlines().index("  text:") + 1
    done = kakurega("kanon", PAPER, "-c", config, "-o", tmp_path / "out.csv", cache=tmp_path)
    assert_refused(done, tmp_path, f"{config}, line {line}: attributes.texte: no such column; the columns are: id,")


def test_a_configuration_that_is_no_yaml_says_where(tmp_path):
    config = tmp_path / "config.yaml"
    config.write_text("attributes:\n  id: [direct_identifier\n  text: {type: text}\n", encoding="utf-8")
    done = kakurega("kanon", PAPER, "-c", config, "-o", tmp_path / "out.csv", cache=tmp_path)
    assert_refused(done, tmp_path, str(config), "not valid YAML or JSON", "line 3")


def test_k_above_the_persons_of_the_file_is_refused_before_any_work(tmp_path):
    done = kakurega("kanon", PAPER, "-c", BLOG_YAML, "-k", "7", "-o", tmp_path / "out.csv", cache=tmp_path / "c")
    assert_refused(done, tmp_path, f"{PAPER}: k = 7 is more than the 6 persons in this file (distinct values of "
                                   "'id'); choose k from 2 to 6")
    assert not (tmp_path / "c").exists()  # refused before the term cache was opened


def test_a_bad_cell_names_the_row_and_the_column(tmp_path):
    source = tmp_path / "dates.csv"
    source.write_text("id,gender,age,topic,sign,date,text\n1,male,36,Education,Aries,\"14,May,2004\",Hello.\n"
                      "2,female,25,Science,Leo,2004-05-20,Hello from Canada.\n", encoding="utf-8")
    done = kakurega("kanon", source, "-c", BLOG_YAML, "-o", tmp_path / "out.csv", cache=tmp_path / "c")
    assert_refused(done, tmp_path, f'{source}: Row 3, column 6 ("date"): "2004-05-20" does not match the date format')


def test_a_row_of_the_wrong_width_and_a_missing_file_are_refused(tmp_path):
    source = tmp_path / "short.csv"
    source.write_text("id,gender,age,topic,sign,date,text\n1,male,36\n", encoding="utf-8")
    done = kakurega("kanon", source, "-c", BLOG_YAML, "-o", tmp_path / "out.csv", cache=tmp_path / "c")
    assert_refused(done, tmp_path, f"{source}: Row 2")
    missing = kakurega("kanon", tmp_path / "nope.csv", "-c", BLOG_YAML, "-o", tmp_path / "out.csv", cache=tmp_path)
    assert_refused(missing, tmp_path, "nope.csv: no such file")


def test_options_out_of_range_are_refused_by_name(tmp_path):
    refused = ((["-k", "1"], "'-k'"), (["--lambda", "2"], "'--lambda'"), (["--strategy", "best"], "--strategy"))
    for args, word in refused:
        done = kakurega("kanon", PAPER, "-c", BLOG_YAML, "-o", tmp_path / "out.csv", *args, cache=tmp_path)
        assert done.returncode == 2 and word in done.stderr, done.stderr
