"""One k-anonymization job's NER spread over Celery workers (issue 21), against the strongest single-worker set-ups,
side by side in one run, each on an empty term cache, with real workers, a real broker and a real database.

Usage: .venv/bin/python bench/bench_fan_out.py [--rows N]   (default: all of blogs_20k.csv)
       .venv/bin/python bench/bench_fan_out.py --spread FILE --terms CACHE

Set-ups (one job each: rx-anon's blog configuration, k = 2, λ = 0.5):
- one worker process, the file in one piece (no fan-out): how every job ran before;
- one worker process whose spaCy runs 2 processes (``--pool solo``, KANON_NER_PROCESSES=2): the way to use two
  cores for one job before fan-out;
- two worker processes (two ``celery worker --concurrency 1``, as on two machines), the file in parts.
Printed: the recognition stage's time and posts per second, the whole job's time, the speed-up against one
process, and whether each released file is byte for byte the one-process file. Goal: two processes ≥ 1.8×.

With ``--spread``: string-level recoding's adding pass in parts (issue 21), on FILE (a dataset of the blog
corpus's columns, e.g. one ``bench_kanon.py million`` resampled) with its NER already in the database's term cache
(copied from CACHE, the SQLite term cache ``bench_kanon.py`` fills), each job with string-level recoding not
cached: one worker process and the file in one piece, against two worker processes and the file in parts.
Printed: string-level recoding's time and its steps, the whole job, and whether the released files are the same.

The database is a fresh SQLite file (or DATABASE_URL's, whose tables must exist: the benchmark migrates it),
the broker an embedded redis-server (or REDIS_URL). The data lives in ../shared/data/kanon (not shipped).
"""

from __future__ import annotations

import argparse
import csv
import io
import os
import subprocess
import sys
import tempfile
import time
import uuid
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))
DATA = REPO.parent / "shared" / "data" / "kanon"
csv.field_size_limit(1 << 30)


def sample(rows: int | None) -> bytes:
    data = (DATA / "blogs_20k.csv").read_bytes()
    if rows is None:
        return data
    records = list(csv.reader(io.StringIO(data.decode("utf-8"), newline="")))[:rows + 1]
    out = io.StringIO()
    csv.writer(out, lineterminator="\n").writerows(records)
    return out.getvalue().encode("utf-8")


class Workers:
    """`celery worker` processes on the benchmark's queue, stopped on exit."""

    def __init__(self, env: dict[str, str]) -> None:
        self.env = env
        self.processes: list[subprocess.Popen] = []

    def start(self, *args: str, **extra_env: str) -> None:
        name = f"bench-{uuid.uuid4().hex[:6]}@localhost"
        self.processes.append(subprocess.Popen(
            [sys.executable, "-m", "celery", "-A", "webapp", "worker", "--loglevel", "WARNING", "--hostname", name,
             "--without-gossip", "--without-mingle", *args],
            cwd=REPO, env={**self.env, **extra_env}, start_new_session=True, stdout=subprocess.DEVNULL))

    def stop(self) -> None:
        for process in self.processes:
            process.terminate()
        for process in self.processes:
            process.wait(60)
        self.processes = []


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--rows", type=int, default=None, help="the first N posts of blogs_20k.csv")
    parser.add_argument("--spread", type=Path, help="a dataset to run string-level recoding on, its NER cached")
    parser.add_argument("--terms", type=Path, help="with --spread: the SQLite term cache holding its NER")
    options = parser.parse_args()
    if options.spread is not None:
        with tempfile.TemporaryDirectory() as directory:
            run_spread(Path(directory), options.spread, options.terms)
        return
    if not (DATA / "blogs_20k.csv").exists():
        print(f"skipped: {DATA / 'blogs_20k.csv'} is absent (the Blog Authorship Corpus samples are not shipped)")
        return
    with tempfile.TemporaryDirectory() as directory:
        run(Path(directory), options.rows)


def _set_up(tmp: Path):
    """A broker (embedded unless REDIS_URL), a migrated database (a fresh SQLite file unless DATABASE_URL) and
    Django; returns the embedded redis-server's process, or None."""
    redis = None
    if "REDIS_URL" not in os.environ:
        from webapp import embedded_redis

        port = embedded_redis.free_port()
        redis = embedded_redis.start(tmp / "redis", port)
        os.environ["REDIS_URL"] = f"redis://127.0.0.1:{port}/0"
    os.environ.setdefault("DATABASE_URL", f"sqlite:///{tmp / 'bench.sqlite3'}")
    os.environ.update(VAR_DIR=str(tmp / "var"), MEDIA_ROOT=str(tmp / "media"),
                      CELERY_QUEUE=f"bench-{uuid.uuid4().hex[:8]}", DJANGO_SETTINGS_MODULE="webapp.settings")
    subprocess.run([sys.executable, "manage.py", "migrate", "--verbosity", "0"], cwd=REPO, check=True)
    import django

    django.setup()
    return redis


def _run_job(workers: Workers, label: str, processes, owner, config: dict, upload):
    """Start the workers, run one job on them to its end, stop them; the job and its released file, or None
    (printed as the set-up's row) when it failed."""
    from anonymizer.models import Job
    from anonymizer.platform.jobs.services import create_job

    for args, extra in processes:
        workers.start(*args, **extra)
    time.sleep(8)  # the workers connect and load what they load before a job comes
    job = create_job(owner=owner, kind="kanon", params=config, inputs=[upload])
    while Job.objects.get(id=job.id).status in Job.ACTIVE_STATUSES:
        time.sleep(1)
    job.refresh_from_db()
    workers.stop()
    if job.status != Job.Status.SUCCEEDED:
        print(f"| {label} | failed: {job.error} |")
        return None
    released = next(r for r in job.results.all() if r.name.endswith(".anonymized.csv"))
    with released.file.open("rb") as handle:
        return job, handle.read()


def run_spread(tmp: Path, dataset: Path, terms: Path) -> None:
    os.environ["UPLOAD_MAX_MB"] = str(dataset.stat().st_size // 2**20 + 1)  # a million posts are 1.1 GB
    redis = _set_up(tmp)
    try:
        _spread_setups(dataset, terms)
    finally:
        if redis is not None:
            redis.terminate()
            redis.wait(10)


def _spread_setups(dataset: Path, terms: Path) -> None:
    import sqlite3

    from django.contrib.auth import get_user_model
    from django.core.files import File

    from anonymizer.models import CachedSpread, CachedTerms
    from anonymizer.platform.uploads import create_csv_upload

    owner, _ = get_user_model().objects.get_or_create(username=f"bench-{uuid.uuid4().hex[:6]}")
    source = sqlite3.connect(f"file:{terms}?mode=ro", uri=True)
    rows = source.execute("SELECT fingerprint, text_sha256, terms FROM terms_v1")
    while batch := rows.fetchmany(5000):
        CachedTerms.objects.bulk_create([CachedTerms(fingerprint=f, text_sha256=d, terms=t) for f, d, t in batch],
                                        ignore_conflicts=True)
    with dataset.open("rb") as handle:
        upload = create_csv_upload(owner=owner, uploaded=File(handle, name=dataset.name))
    config = {"config_yaml": "parameters: {k: 2, lambda: 0.5}\n"
                             + (DATA / "rx-anon" / "e_blog_authorship_corpus.yaml").read_text(encoding="utf-8")}
    print(f"{dataset.name}: {upload.metadata.get('rows'):,} posts, {dataset.stat().st_size / 2**20:.0f} MB; NER in the "
          f"term cache ({CachedTerms.objects.count():,} texts), string-level recoding computed by each job")
    print("| set-up | string-level recoding | learning | parts | applying | whole job | parts | same file |")
    print("|---|---|---|---|---|---|---|---|")
    workers = Workers(dict(os.environ))
    setups = [("1 worker process, file in one piece", [(["--concurrency", "1"], {"JOB_CHUNK_BYTES": str(1 << 40)})]),
              ("2 worker processes, fan-out", [(["--concurrency", "1"], {}), (["--concurrency", "1"], {})])]
    reference = None
    shares: list[str] = []  # who ran string-level recoding's parts
    try:
        for label, processes in setups:
            CachedSpread.objects.all().delete()
            ran = _run_job(workers, label, processes, owner, config, upload)
            if ran is None:
                continue
            job, content = ran
            reference = content if reference is None else reference
            seconds = job.result["seconds"]
            whole = (job.finished_at - job.started_at).total_seconds()
            steps = [f"{seconds[step]:.0f} s" if step in seconds else "—"
                     for step in ("spread_learn", "spread_parts", "spread_apply")]
            print(f"| {label} | {seconds['spread']:.0f} s | {' | '.join(steps)} | {whole:.0f} s | "
                  f"{job.result['recognition'].get('parts', 0)} | {'yes' if content == reference else 'NO'} |",
                  flush=True)
            by_process: dict[str, list[float]] = {}
            for part in job.chunks.filter(step="spread"):
                by_process.setdefault(part.worker, []).append((part.finished_at - part.started_at).total_seconds())
            shares.append(f"{label}: " + "; ".join(f"{len(times)} parts in {sum(times):.0f} s" for times in
                                                   by_process.values()))
    finally:
        workers.stop()
    for share in shares:
        print(f"string-level recoding's parts per worker process, {share}")


def run(tmp: Path, rows: int | None) -> None:
    redis = _set_up(tmp)
    from django.contrib.auth import get_user_model
    from django.core.files.uploadedfile import SimpleUploadedFile

    from anonymizer.models import CachedSpread, CachedTerms
    from anonymizer.platform.uploads import create_csv_upload

    owner, _ = get_user_model().objects.get_or_create(username=f"bench-{uuid.uuid4().hex[:6]}")
    data = sample(rows)
    upload = create_csv_upload(owner=owner, uploaded=SimpleUploadedFile("blogs.csv", data))
    config = {"config_yaml": "parameters: {k: 2, lambda: 0.5}\n"
                             + (DATA / "rx-anon" / "e_blog_authorship_corpus.yaml").read_text(encoding="utf-8")}
    posts = upload.metadata.get("rows") or data.count(b"\n")
    workers = Workers(dict(os.environ))
    setups = [
        ("1 worker process, file in one piece", [(["--concurrency", "1"], {"JOB_CHUNK_BYTES": str(1 << 40)})]),
        ("1 worker, spaCy n_process=2 (--pool solo)",
         [(["--pool", "solo"], {"JOB_CHUNK_BYTES": str(1 << 40), "KANON_NER_PROCESSES": "2"})]),
        ("2 worker processes, fan-out", [(["--concurrency", "1"], {}), (["--concurrency", "1"], {})]),
    ]
    print(f"blogs_20k.csv{'' if rows is None else f' (first {rows:,} posts)'}: {posts:,} posts, "
          f"{len(data) / 2**20:.1f} MB; each job on an empty term cache")
    print("| set-up | recognition | posts/s | speed-up | whole job | parts | same file as 1 process |")
    print("|---|---|---|---|---|---|---|")
    reference = None
    baseline = None
    try:
        for label, processes in setups:
            CachedTerms.objects.all().delete()
            CachedSpread.objects.all().delete()
            ran = _run_job(workers, label, processes, owner, config, upload)
            if ran is None:
                continue
            job, content = ran
            seconds = job.result["seconds"]
            recognition = seconds["recognize"]  # the whole stage, its parts included
            reference = content if reference is None else reference
            baseline = recognition if baseline is None else baseline
            whole = (job.finished_at - job.started_at).total_seconds()
            print(f"| {label} | {recognition:.1f} s | {posts / recognition:.0f} | {baseline / recognition:.2f}× | "
                  f"{whole:.1f} s | {job.result['recognition'].get('parts', 0)} | "
                  f"{'yes' if content == reference else 'NO'} |", flush=True)
    finally:
        workers.stop()
        if redis is not None:
            redis.terminate()
            redis.wait(10)


if __name__ == "__main__":
    main()
