"""``kakurega kanon`` against the web's k-anonymization job on the same file, NER cached, side by side in one run
(issue 48: the command within 10% of the job's time on blogs_20k).

Usage: .venv/bin/python bench/bench_cli_kanon.py [--file blogs_20k.csv] [--rows N] [--repeat 2] [--processes 2]
       [--terms DIR]

Both run rx-anon's blog configuration with k = 2, λ = 0.5 on the same file, each with its own term cache warm
(the NER and string-level recoding of the file in it):
- the web job as tests/kanon/web run it (``runner.run_job`` in this process, which is the worker: an embedded
  redis-server as the broker, a fresh SQLite database), its ``DatabaseTermCache`` warm, the process warm (the
  gazetteer and the models it loads once per process are loaded by the warm-up run, as in a worker that ran a
  job before); timed from ``run_job``'s call to its return;
- ``kakurega kanon`` as a user runs it: a new process (``python -m kakurega``; its start, imports and the
  gazetteer are in its time), its SQLite term cache in ``--terms`` warm; timed from start to exit.
The NER is done once, by a first ``kakurega kanon`` run into ``--terms`` (with ``--processes`` spaCy processes;
kept between runs of the benchmark: var/bench/kakurega-cache by default), and copied into the web's database.
Each timed run is repeated ``--repeat`` times, alternating, and the best of each is compared. Printed: seconds
each, whole and the pipeline's alone (the report's ``seconds.total``: what is left of the whole is the command's
process start, imports and per-process loads, or the job's bookkeeping), the ratio command / job, and whether the
released files are byte for byte the same.
The data sets live in ../shared/data/kanon (research use only, not shipped); the benchmark is skipped without it.
Figures are only worth reading on a quiet machine (other work on the cores slows both unevenly).
"""

from __future__ import annotations

import argparse
import csv
import io
import json
import os
import sqlite3
import subprocess
import sys
import tempfile
import time
import uuid
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))
DATA = REPO.parent / "shared" / "data" / "kanon"
CONFIG = "parameters: {k: 2, relational_weight: 0.5}\n" + (REPO / "data" / "kanon" / "e_blog_authorship_corpus.yaml"
                                                             ).read_text(encoding="utf-8")
csv.field_size_limit(1 << 30)


def dataset(tmp: Path, name: str, rows: int | None) -> Path:
    """The file both run on: ``name`` of ../shared/data/kanon, or its first ``rows`` posts."""
    source = DATA / name
    if rows is None:
        return source
    records = list(csv.reader(io.StringIO(source.read_text(encoding="utf-8"), newline="")))[:rows + 1]
    path = tmp / f"{source.stem}.first{rows}.csv"
    with path.open("w", encoding="utf-8", newline="") as handle:
        csv.writer(handle, lineterminator="\n").writerows(records)
    return path


def command(source: Path, config: Path, output: Path, terms: Path, processes: int) -> tuple[float, dict]:
    """Seconds of one ``kakurega kanon`` process, start to exit, and its report."""
    report = output.with_suffix(".json")
    started = time.perf_counter()
    subprocess.run([sys.executable, "-m", "kakurega", "kanon", str(source), "-c", str(config), "-o", str(output),
                    "--report", str(report), "-p", str(processes), "-q"], cwd=REPO, check=True,
                   env={**os.environ, "PYTHONPATH": str(REPO), "KAKUREGA_CACHE_DIR": str(terms)})
    return time.perf_counter() - started, json.loads(report.read_text(encoding="utf-8"))


def set_up_web(tmp: Path):
    """An embedded redis-server (the broker the job's parts are published to), a fresh migrated SQLite database
    and Django, as bench_fan_out.py sets them up; returns the redis-server's process."""
    from webapp import embedded_redis

    port = embedded_redis.free_port()
    redis = embedded_redis.start(tmp / "redis", port)
    os.environ.update(REDIS_URL=f"redis://127.0.0.1:{port}/0", DATABASE_URL=f"sqlite:///{tmp / 'bench.sqlite3'}",
                      VAR_DIR=str(tmp / "var"), MEDIA_ROOT=str(tmp / "media"),
                      CELERY_QUEUE=f"bench-{uuid.uuid4().hex[:8]}", DJANGO_SETTINGS_MODULE="webapp.settings",
                      UPLOAD_MAX_MB="1024")
    subprocess.run([sys.executable, "manage.py", "migrate", "--verbosity", "0"], cwd=REPO, check=True)
    import django

    django.setup()
    return redis


def copy_terms(terms_file: Path) -> int:
    """The command's cached NER copied into the web's term cache (the same keys); how many texts."""
    from anonymizer.models import CachedTerms

    source = sqlite3.connect(f"file:{terms_file}?mode=ro", uri=True)
    rows = source.execute("SELECT fingerprint, text_sha256, terms FROM terms_v1")
    while batch := rows.fetchmany(5000):
        CachedTerms.objects.bulk_create([CachedTerms(fingerprint=f, text_sha256=d, terms=t) for f, d, t in batch],
                                        ignore_conflicts=True)
    source.close()
    return CachedTerms.objects.count()


def web_job(upload, owner) -> tuple[float, bytes, dict]:
    """Seconds of one web job run in this process, its released file and its report."""
    from anonymizer.models import Job
    from anonymizer.platform.jobs import runner
    from anonymizer.platform.jobs.services import create_job

    job = create_job(owner=owner, kind="kanon", params={"config_yaml": CONFIG}, inputs=[upload])
    started = time.perf_counter()
    runner.run_job(job.id)
    seconds = time.perf_counter() - started
    job.refresh_from_db()
    if job.status != Job.Status.SUCCEEDED:
        raise SystemExit(f"the web job failed: {job.error}")
    released = next(r for r in job.results.all() if r.name.endswith(".anonymized.csv"))
    with released.file.open("rb") as handle:
        return seconds, handle.read(), job.result


def run(tmp: Path, source: Path, terms: Path, repeat: int, processes: int) -> None:
    config = tmp / "config.yaml"
    config.write_text(CONFIG, encoding="utf-8")
    posts = sum(1 for _ in csv.reader(io.StringIO(source.read_text(encoding="utf-8"), newline=""))) - 1
    print(f"{source.name}: {posts:,} posts, {source.stat().st_size / 2**20:.1f} MB; rx-anon's blog configuration, "
          f"k = 2, λ = 0.5; NER and string-level recoding cached for both")
    first, _ = command(source, config, tmp / "first.csv", terms, processes)
    print(f"kakurega kanon, first run (its NER into {terms}, unless there from an earlier run): {first:.1f} s",
          flush=True)
    redis = set_up_web(tmp)
    try:
        from django.contrib.auth import get_user_model
        from django.core.files import File

        from anonymizer.platform.uploads import create_csv_upload

        print(f"web term cache: {copy_terms(terms / 'recognized-terms.sqlite'):,} texts copied from the command's")
        owner, _ = get_user_model().objects.get_or_create(username=f"bench-{uuid.uuid4().hex[:6]}")
        with source.open("rb") as handle:
            upload = create_csv_upload(owner=owner, uploaded=File(handle, name=source.name))
        warm, _, _ = web_job(upload, owner)  # string-level recoding into the database; the process warmed up
        print(f"web job, warm-up run (string-level recoding into its cache): {warm:.1f} s", flush=True)
        job_times, cli_times, same = [], [], True
        for _ in range(repeat):
            cli_seconds, cli_report = command(source, config, tmp / "cli.csv", terms, processes)
            seconds, released, report = web_job(upload, owner)
            job_times.append((seconds, report["seconds"]["total"]))
            cli_times.append((cli_seconds, cli_report["seconds"]["total"]))
            same = same and released == (tmp / "cli.csv").read_bytes()
            print(f"  web job {seconds:.2f} s (its pipeline {report['seconds']['total']:.2f} s; recognition "
                  f"{report['recognition']}, string-level recoding cached: {report['spread_cached']}); "
                  f"kakurega kanon {cli_seconds:.2f} s (its pipeline {cli_report['seconds']['total']:.2f} s; "
                  f"recognition {cli_report['recognition']}, string-level recoding cached: "
                  f"{cli_report['spread_cached']})", flush=True)
    finally:
        redis.terminate()
        redis.wait(10)
    (job, job_pipeline), (cli, cli_pipeline) = min(job_times), min(cli_times)
    print(f"| door (best of {repeat}) | whole | the pipeline (report's seconds.total) |\n|---|---|---|")
    print(f"| web job (warm worker, DatabaseTermCache warm) | {job:.2f} s | {job_pipeline:.2f} s |")
    print(f"| kakurega kanon (new process, file cache warm) | {cli:.2f} s | {cli_pipeline:.2f} s |")
    print(f"ratio command / job: {cli / job:.3f} (goal <= 1.10); released files byte for byte the same: "
          f"{'yes' if same else 'NO'}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--file", default="blogs_20k.csv", help="a file of ../shared/data/kanon (blogs_1k.csv, ...)")
    parser.add_argument("--rows", type=int, default=None, help="only the first N posts of --file")
    parser.add_argument("--repeat", type=int, default=2, help="timed runs of each door (the best is compared)")
    parser.add_argument("--processes", type=int, default=2, help="spaCy processes of the first run's NER")
    parser.add_argument("--terms", type=Path, default=REPO / "var" / "bench" / "kakurega-cache",
                        help="the command's cache folder (KAKUREGA_CACHE_DIR), kept between runs")
    options = parser.parse_args()
    if not (DATA / options.file).exists():
        print(f"skipped: {DATA / options.file} is absent (the Blog Authorship Corpus samples are not shipped)")
        return
    with tempfile.TemporaryDirectory() as directory:
        tmp = Path(directory)
        run(tmp, dataset(tmp, options.file, options.rows), options.terms, options.repeat, options.processes)


if __name__ == "__main__":
    main()
