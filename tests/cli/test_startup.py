"""A refused command is refused before the heavy modules load: each command's common refusal (a missing file or
column, an empty post, a closed or taken port, a bad choice) and ``--help`` run in a new process whose modules
are listed when it exits, and none of spaCy, pandas, scikit-learn, SciPy, NumPy or the location model's code may
be among them (they cost seconds of CPU a process: bench/bench_cli_startup.py measures it). The exit code and
message are asserted too: the early checks say what the full ones said."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
HEAVY = ("spacy", "pandas", "sklearn", "scipy", "numpy", "anonymizer.location.model")

# `python -m kakurega ARGS`, then the heavy modules it imported, on stderr's last line.
WRAPPER = f"""
import runpy, sys
sys.argv = ["kakurega", *sys.argv[1:]]
try:
    runpy.run_module("kakurega", run_name="__main__", alter_sys=True)
finally:
    sys.stderr.write("\\nheavy: " + ",".join(m for m in {HEAVY!r} if m in sys.modules) + "\\n")
"""


def kakurega_modules(*args: str, cwd: Path) -> tuple[int, str, list[str]]:
    """(exit code, stderr without the last line, the heavy modules imported) of ``kakurega ARGS``."""
    done = subprocess.run([sys.executable, "-c", WRAPPER, *args], cwd=cwd, capture_output=True, text=True,
                          env={**os.environ, "PYTHONPATH": str(ROOT)}, timeout=600)
    shown, _, last = done.stderr.rstrip("\n").rpartition("\n")
    assert last.startswith("heavy: "), done.stderr
    return done.returncode, shown, [name for name in last.removeprefix("heavy: ").split(",") if name]


@pytest.fixture(scope="module")
def ports():
    """A port where connections are refused (bound, not listening) and one that is taken (listening)."""
    with socket.socket() as closed, socket.socket() as taken:
        closed.bind(("127.0.0.1", 0))
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        yield closed.getsockname()[1], taken.getsockname()[1]


@pytest.fixture
def posts(tmp_path) -> Path:
    path = tmp_path / "posts.csv"
    path.write_text("id,body\n1,Chicago tomorrow at 5pm\n", encoding="utf-8")
    return path


BOX = ("--south", "35", "--west", "139", "--north", "36", "--east", "140")


@pytest.mark.parametrize(("args", "code", "expected"), [
    (["--help"], 0, ""),
    (["deidentify", "--help"], 0, ""),
    (["deidentify", "missing.csv", "--column", "text", "-o", "out.csv"], 2,
     "kakurega: error: missing.csv: No such file or directory; expected a readable CSV file"),
    (["deidentify", "posts.csv", "--column", "text", "-o", "out.csv"], 2,
     "kakurega: error: posts.csv has no column 'text'; its columns are: id, body"),
    (["deidentify", "posts.csv", "--column", "body", "-o", "out.csv", "--server", "CLOSED", "--token", "t"], 3,
     "kakurega: error: cannot reach http://127.0.0.1:"),
    (["deidentify", "posts.csv", "--column", "body", "-o", "out.csv", "--server", "CLOSED"], 2,
     "kakurega: error: --server needs an API token"),
    (["kanon", "missing.csv", "-c", "c.yaml", "-o", "out.csv"], 2, "kakurega: error: missing.csv: no such file"),
    (["inspect", "   "], 2, "kakurega: error: text: the post is empty"),
    (["train-location", "missing.csv", "--name", "x", *BOX, "-o", "model"], 2,
     "kakurega: error: missing.csv: no such file; expected a CSV or JSON Lines corpus"),
    (["evaluate-protection", "--model", "kyoto-ja"], 2, "kyoto-ja"),
    (["serve", "--port", "TAKEN"], 2, "kakurega: error: cannot listen on 127.0.0.1:"),
])
def test_a_refused_command_imports_no_heavy_module(tmp_path, posts, ports, args, code, expected) -> None:
    closed, taken = ports
    args = [arg.replace("CLOSED", f"http://127.0.0.1:{closed}").replace("TAKEN", str(taken)) for arg in args]
    returned, stderr, heavy = kakurega_modules(*args, cwd=tmp_path)
    assert returned == code, stderr
    assert expected in stderr
    assert "Traceback" not in stderr
    assert heavy == [], f"kakurega {' '.join(args)} imported {heavy}"
    assert sorted(path.name for path in tmp_path.iterdir()) == ["posts.csv"]  # nothing written


def test_the_wrapper_sees_the_heavy_modules_a_command_imports(tmp_path, posts) -> None:
    """The control: past the early checks (the file and its column are right) the model is looked up, with the
    location model's code, and the wrapper lists it."""
    returned, stderr, heavy = kakurega_modules("deidentify", "posts.csv", "--column", "body", "-o", "out.csv",
                                               "--model", str(tmp_path / "no-such-model"), cwd=tmp_path)
    assert returned == 2 and "no-such-model" in stderr, stderr
    assert "anonymizer.location.model" in heavy and "pandas" in heavy
