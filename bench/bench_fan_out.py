"""One k-anonymization job's NER spread over Celery workers (issue 21), against the strongest single-worker set-ups,
side by side in one run, each on an empty term cache, with real workers, a real broker and a real database.

Usage: .venv/bin/python bench/bench_fan_out.py [--rows N]   (default: all of blogs_20k.csv)

Set-ups (one job each: rx-anon's blog configuration, k = 2, λ = 0.5):
- one worker process, the file in one piece (no fan-out): how every job ran before;
- one worker process whose spaCy runs 2 processes (``--pool solo``, KANON_NER_PROCESSES=2): the way to use two
  cores for one job before fan-out;
- two worker processes (two ``celery worker --concurrency 1``, as on two machines), the file in parts.
Printed: the recognition stage's time and posts per second, the whole job's time, the speed-up against one
process, and whether each released file is byte for byte the one-process file. Goal: two processes ≥ 1.8×.

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
    options = parser.parse_args()
    if not (DATA / "blogs_20k.csv").exists():
        print(f"skipped: {DATA / 'blogs_20k.csv'} is absent (the Blog Authorship Corpus samples are not shipped)")
        return
    with tempfile.TemporaryDirectory() as directory:
        run(Path(directory), options.rows)


def run(tmp: Path, rows: int | None) -> None:
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
    from django.contrib.auth import get_user_model
    from django.core.files.uploadedfile import SimpleUploadedFile

    from anonymizer.models import CachedSpread, CachedTerms, Job
    from anonymizer.platform.jobs.services import create_job
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
                continue
            released = next(r for r in job.results.all() if r.name.endswith(".anonymized.csv"))
            with released.file.open("rb") as handle:
                content = handle.read()
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
