"""What a refused ``kakurega`` command costs: each command's most common refusal (a missing file, a missing
column, an empty post, a closed port, a taken port, a bad choice) and ``--help``, run as a user runs them
(``python -m kakurega ...``, a new process each time).

Usage: .venv/bin/python bench/bench_cli_startup.py [--root PATH] [--repeat 5]

Printed per case: its exit code, the median wall and CPU (user + system) seconds of ``--repeat`` runs, the
modules imported (``python -X importtime``, one more run) and which heavy ones among them (spaCy, pandas,
scikit-learn, SciPy, NumPy, the location model's code). ``--root`` runs another checkout (e.g. ``git archive``
of main before a change) for a before/after figure; the machine is shared, so compare CPU rather than wall.
"""

from __future__ import annotations

import argparse
import os
import resource
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
HEAVY = ("spacy", "pandas", "sklearn", "scipy", "numpy", "anonymizer.location.model")


def cases(folder: Path, closed_port: int, taken_port: int) -> dict[str, tuple[list[str], int]]:
    """name -> (arguments, the exit code expected)."""
    posts = folder / "posts.csv"
    posts.write_text("id,body\n1,Chicago tomorrow at 5pm\n2,地震です\n", encoding="utf-8")
    missing, out = str(folder / "missing.csv"), str(folder / "out.csv")
    server = ["--server", f"http://127.0.0.1:{closed_port}", "--token", "t"]
    return {
        "--help": (["--help"], 0),
        "deidentify --help": (["deidentify", "--help"], 0),
        "deidentify: no such file": (["deidentify", missing, "--column", "text", "-o", out], 2),
        "deidentify: no such column": (["deidentify", str(posts), "--column", "text", "-o", out], 2),
        "deidentify --server: closed port": (["deidentify", str(posts), "--column", "body", "-o", out, *server], 3),
        "remove-time: no such column": (["remove-time", str(posts), "--column", "text", "-o", out], 2),
        "kanon: no such file": (["kanon", missing, "-c", str(folder / "c.yaml"), "-o", out], 2),
        "inspect: empty post": (["inspect", "   "], 2),
        "train-location: no such file": (["train-location", missing, "--name", "x", "--south", "35",
                                          "--west", "139", "--north", "36", "--east", "140", "-o",
                                          str(folder / "model")], 2),
        "evaluate-protection: unknown model": (["evaluate-protection", "--model", "kyoto-ja"], 2),
        "serve: taken port": (["serve", "--port", str(taken_port)], 2),
    }


def run(root: Path, args: list[str], *, importtime: bool = False) -> tuple[int, float, float, str]:
    """(exit code, wall seconds, CPU seconds, stderr) of one ``python -m kakurega ARGS``."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    done = subprocess.run([sys.executable, *(["-X", "importtime"] if importtime else []), "-m", "kakurega", *args],
                          cwd=root, env={**os.environ, "PYTHONPATH": str(root)}, capture_output=True, text=True,
                          timeout=600)
    wall = time.perf_counter() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return done.returncode, wall, cpu, done.stderr


def imported(stderr: str) -> list[str]:
    """The modules ``-X importtime`` reported."""
    return [line.rsplit("|", 1)[1].strip() for line in stderr.splitlines() if line.startswith("import time:")
            and not line.rstrip().endswith("| imported package")]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--root", type=Path, default=ROOT, help="The checkout to run (default: this one).")
    parser.add_argument("--repeat", type=int, default=5, help="Runs per case (the median is printed).")
    options = parser.parse_args()
    closed = socket.socket()
    closed.bind(("127.0.0.1", 0))  # bound, never listening: connections to it are refused
    taken = socket.socket()
    taken.bind(("127.0.0.1", 0))
    taken.listen()
    with tempfile.TemporaryDirectory(prefix="bench-cli-") as folder:
        table = cases(Path(folder), closed.getsockname()[1], taken.getsockname()[1])
        print(f"{options.root} ({options.repeat} runs a case; median)")
        print(f"{'case':38} {'exit':>4} {'wall s':>7} {'CPU s':>6} {'modules':>7}  heavy")
        totals = [0.0, 0.0]
        for name, (args, expected) in table.items():
            runs = [run(options.root, args) for _ in range(options.repeat)]
            code = runs[0][0]
            wall, cpu = statistics.median(r[1] for r in runs), statistics.median(r[2] for r in runs)
            totals[0] += wall
            totals[1] += cpu
            modules = imported(run(options.root, args, importtime=True)[3])
            heavy = [m for m in HEAVY if m in modules]
            flag = "" if code == expected else f" (expected {expected}: {runs[0][3].strip()[-200:]})"
            print(f"{name:38} {code:>4} {wall:7.2f} {cpu:6.2f} {len(modules):7}  {', '.join(heavy) or '-'}{flag}")
        print(f"{'sum of the medians':38} {'':>4} {totals[0]:7.2f} {totals[1]:6.2f}")
    closed.close()
    taken.close()


if __name__ == "__main__":
    main()
