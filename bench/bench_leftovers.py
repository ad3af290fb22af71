"""Issue 42's goal "after deleting any job, upload or account: no file or directory of it under var/", measured
against a live stack.

Usage: .venv/bin/python bench/bench_leftovers.py [--repo PATH] [--posts 3000]

It starts what `make run` starts — an embedded Redis, a Celery worker and gunicorn — on free ports with state
under <repo>/var/bench-leftovers (the default models are trained there once, like `manage.py bootstrap`), signs up
a user as a person does, and then, through the API and the account pages:
1. starts a `deidentify_posts` job on `--posts` US Midwest tweets (text, lat, lon, user), SIGKILLs the worker (its
   whole process group, as a crash or the OOM killer does) once the job's scratch file is on disk, waits for the
   job to be declared lost, and deletes it (`DELETE /api/v1/jobs/<id>/`);
2. does the same again without deleting, starts a new worker, and times how long the job's scratch files
   outlive it (the sweep at start and every JOB_SWEEP_SECONDS);
3. profiles the upload to the end (a result file) and deletes the upload (`DELETE /api/v1/uploads/<id>/`);
4. uploads and profiles again, then deletes the account (the account page's form).
After each deletion it prints the files and directories under var/ (media, models, scratch) named after what was
deleted (its id, or the account's number), and the empty directories it left. Goal: 0 and 0 each time.
`--repo` runs the same against another checkout (e.g. a worktree of the code before issue 42).
"""

from __future__ import annotations

import argparse
import csv
import gzip
import io
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import httpx

HERE = Path(__file__).resolve().parent.parent
PASSWORD = "a long bench passphrase 42"


def posts_csv(repo: Path, count: int) -> bytes:
    """The first ``count`` English tweets of the shipped US Midwest corpus, with their coordinates and user."""
    out = io.StringIO()
    writer = csv.writer(out)
    writer.writerow(["text", "lat", "lon", "user"])
    with gzip.open(repo / "data" / "geo" / "us_midwest_2017" / "tweets.csv.gz", "rt", encoding="utf-8") as handle:
        rows = (row for row in csv.DictReader(handle) if row["lang"] == "en")
        for _, row in zip(range(count), rows, strict=False):
            writer.writerow([row["text"], row["lat"], row["lon"], row["user"]])
    return out.getvalue().encode()


def wait(predicate, timeout: float, what: str, interval: float = 0.1):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = predicate()
        if value:
            return value
        time.sleep(interval)
    raise SystemExit(f"gave up after {timeout:g} s waiting for {what}")


class Stack:
    """Redis, one Celery worker (restartable, killable) and gunicorn, as `make run` starts them."""

    def __init__(self, repo: Path, var: Path) -> None:
        sys.path.insert(0, str(repo))
        from webapp import embedded_redis

        self.repo, self.var = repo, var
        self.redis_port, self.web_port = embedded_redis.free_port(), embedded_redis.free_port()
        self.env = {**os.environ, "VAR_DIR": str(var), "REDIS_URL": f"redis://127.0.0.1:{self.redis_port}/0",
                    "LOG_LEVEL": "WARNING", "AUTH_RATE": "1000/hour", "JOB_HEARTBEAT_SECONDS": "1",
                    "JOB_STALE_AFTER_SECONDS": "3", "JOB_SWEEP_SECONDS": "1"}
        for name in ("DATABASE_URL", "MEDIA_ROOT", "MODEL_DIR", "JOB_SCRATCH_DIR"):
            self.env.pop(name, None)
        self.bin = Path(sys.executable).parent
        self.redis = embedded_redis.start(var / "redis", self.redis_port)
        self.worker: subprocess.Popen | None = None
        self.web: subprocess.Popen | None = None

    def start(self) -> None:
        subprocess.run([sys.executable, "manage.py", "bootstrap"], cwd=self.repo, env=self.env, check=True,
                       stdout=subprocess.DEVNULL)
        self.start_worker()
        self.web = subprocess.Popen([str(self.bin / "gunicorn"), "webapp.wsgi", "--bind",
                                     f"127.0.0.1:{self.web_port}", "--workers", "2"], cwd=self.repo, env=self.env,
                                    stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        wait(lambda: self.healthy(), 120, "/healthz", 0.5)

    def healthy(self) -> bool:
        try:
            return httpx.get(f"http://127.0.0.1:{self.web_port}/healthz", timeout=5).status_code == 200
        except httpx.HTTPError:
            return False

    def start_worker(self) -> None:
        self.worker = subprocess.Popen([str(self.bin / "celery"), "-A", "webapp", "worker", "--loglevel", "WARNING",
                                        "--concurrency", "1", "--without-mingle", "--without-gossip"],
                                       cwd=self.repo, env=self.env, stdout=subprocess.DEVNULL,
                                       stderr=subprocess.DEVNULL, start_new_session=True)

    def kill_worker(self) -> None:
        """SIGKILL the worker and its pool process: no shutdown handler, no ``finally`` runs."""
        os.killpg(self.worker.pid, signal.SIGKILL)
        self.worker.wait(10)

    def stop(self) -> None:
        for process in (self.web, self.worker):
            if process is not None and process.poll() is None:
                process.terminate()
                try:
                    process.wait(30)
                except subprocess.TimeoutExpired:
                    process.kill()
        self.redis.terminate()
        self.redis.wait(10)


def roots(var: Path) -> list[Path]:
    return [var / "media", var / "models", var / "scratch"]


def left_on_disk(var: Path, *names: object) -> tuple[list[str], list[str]]:
    """The paths under var/'s media, models and scratch with one of ``names`` as a part, and the empty
    directories below those roots."""
    wanted = {str(name) for name in names}
    named, empty = [], []
    for root in roots(var):
        if not root.exists():
            continue
        for path in root.rglob("*"):
            relative = path.relative_to(var)
            if wanted & set(path.relative_to(root).parts):
                named.append(str(relative))
            elif path.is_dir() and not any(path.iterdir()):
                empty.append(str(relative))
    return sorted(named), sorted(empty)


def report(var: Path, what: str, *names: object) -> None:
    named, empty = left_on_disk(var, *names)
    print(f"  after {what}: {len(named)} file(s)/dir(s) of it under var/, {len(empty)} empty dir(s) left "
          f"(goal: 0, 0){''.join(f'{chr(10)}    {path}' for path in (named + empty)[:8])}")


class User:
    """A person's browser (session, CSRF) and a script with their API token."""

    def __init__(self, base: str, username: str) -> None:
        self.browser = httpx.Client(base_url=base, timeout=60, follow_redirects=False)
        self.username = username
        self.browser.get("/accounts/signup/")
        signed_up = self.post_form("/accounts/signup/", {"username": username, "password1": PASSWORD,
                                                         "password2": PASSWORD})
        assert signed_up.status_code == 302, signed_up.text[:500]
        token = httpx.post(f"{base}/api/v1/auth/token/", json={"username": username, "password": PASSWORD})
        self.api = httpx.Client(base_url=base, timeout=60, headers={"Authorization": f"Token {token.json()['token']}"})
        self.pk = None  # the account's number, as var/ names directories after it: learnt from its first upload

    def post_form(self, path: str, data: dict):
        return self.browser.post(path, data={**data, "csrfmiddlewaretoken": self.browser.cookies["csrftoken"]})

    def upload(self, content: bytes) -> dict:
        created = self.api.post("/api/v1/uploads/", files={"file": ("tweets.csv", content, "text/csv")})
        assert created.status_code == 201, created.text[:500]
        return created.json()

    def start(self, kind: str, upload: dict, params: dict | None = None) -> dict:
        created = self.api.post("/api/v1/jobs/", json={"kind": kind, "inputs": [upload["id"]], "params": params or {}})
        assert created.status_code == 201, created.text[:500]
        return created.json()

    def job(self, job: dict) -> dict:
        return self.api.get(f"/api/v1/jobs/{job['id']}/").json()


def account_number(var: Path, upload: dict) -> str:
    """The directory var/media/uploads/<number>/ that holds the upload's own directory."""
    found = list((var / "media" / "uploads").glob(f"*/{upload['id']}"))
    return found[0].parent.name


def killed_mid_job(stack: Stack, user: User, upload: dict) -> dict:
    job = user.start("deidentify_posts", upload, {"model": "us-midwest-en", "text_columns": ["text"]})
    scratch = stack.var / "scratch" / job["id"] / "deidentified.csv"
    wait(lambda: scratch.exists() and scratch.stat().st_size > 0, 300, "the job's scratch file")
    stack.kill_worker()
    rows = scratch.read_text(encoding="utf-8", errors="replace").count("\n")
    started = time.monotonic()
    failed = wait(lambda: (j := user.job(job))["status"] == "failed" and j, 60, "the job declared lost", 0.25)
    print(f"  job {job['id']}: worker SIGKILLed with {rows} row(s) in scratch/{job['id']}/deidentified.csv; "
          f"declared lost after {time.monotonic() - started:.1f} s ({failed['error'][:60]}…)")
    return job


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--repo", type=Path, default=HERE, help="the checkout to run (default: this one)")
    parser.add_argument("--posts", type=int, default=3000, help="tweets in the de-identified file")
    args = parser.parse_args()
    repo = args.repo.resolve()
    var = repo / "var" / "bench-leftovers"
    for path in roots(var):  # every run starts from an empty media and scratch; models stay (trained once)
        if path.name != "models" and path.exists():
            shutil.rmtree(path)
    commit = subprocess.run(["git", "log", "-1", "--format=%h %s"], cwd=repo, text=True, capture_output=True)
    print(f"checkout {repo} ({commit.stdout.strip()[:90]})")
    stack = Stack(repo, var)
    try:
        stack.start()
        base = f"http://127.0.0.1:{stack.web_port}"
        user = User(base, f"bench{os.getpid()}")
        upload = user.upload(posts_csv(repo, args.posts))
        user.pk = account_number(var, upload)

        print("1. a job whose worker was killed mid-run, then deleted")
        job = killed_mid_job(stack, user, upload)
        deleted = user.api.delete(f"/api/v1/jobs/{job['id']}/")
        print(f"  DELETE /api/v1/jobs/{job['id']}/ -> {deleted.status_code}")
        time.sleep(1)
        report(var, "deleting the job", job["id"])

        print("2. a job whose worker was killed mid-run, not deleted; a new worker starts")
        stack.start_worker()
        job = killed_mid_job(stack, user, upload)
        stack.start_worker()
        started = time.monotonic()
        scratch = var / "scratch" / job["id"]
        while scratch.exists() and time.monotonic() - started < 60:
            time.sleep(0.1)
        seconds = time.monotonic() - started
        outlived = f"by {seconds:.1f} s" if not scratch.exists() else "by more than 60 s (still there)"
        print(f"  its scratch directory outlived the new worker's start {outlived} (the worker starts in seconds, "
              "then sweeps every JOB_SWEEP_SECONDS=1; goal: gone at its first sweeps)")

        print("3. an upload with a finished job (a result file), deleted")
        profiled = user.start("profile_csv", upload)
        wait(lambda: user.job(profiled)["status"] == "succeeded", 300, "the profile job")
        deleted = user.api.delete(f"/api/v1/uploads/{upload['id']}/")
        print(f"  DELETE /api/v1/uploads/{upload['id']}/ -> {deleted.status_code}")
        time.sleep(1)
        report(var, "deleting the upload", upload["id"], profiled["id"], job["id"])

        print("4. an account with an upload and a finished job, deleted")
        upload = user.upload(posts_csv(repo, 200))
        profiled = user.start("profile_csv", upload)
        wait(lambda: user.job(profiled)["status"] == "succeeded", 300, "the profile job")
        user.browser.get("/accounts/delete/")
        deleted = user.post_form("/accounts/delete/", {"password": PASSWORD})
        print(f"  POST /accounts/delete/ -> {deleted.status_code}")
        time.sleep(1)
        report(var, f"deleting the account (number {user.pk})", user.pk, upload["id"], profiled["id"])
    finally:
        stack.stop()
    return 0


if __name__ == "__main__":
    sys.exit(main())
