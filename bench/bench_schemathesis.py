"""schemathesis --checks all against a live server, signed in and anonymous: server errors and schema violations.

Usage: .venv/bin/python bench/bench_schemathesis.py [--max-examples 30] [--seed 42] [--max-time 900]

It starts what `make run` starts — an embedded Redis, gunicorn with gunicorn.conf.py (its request-line limit and
JSON refusals) — on free loopback ports, with state under var/bench (the default models are trained there once,
like `manage.py bootstrap`). The rate limits are lifted for the run, so an answer is the operation's own, not a
429. A staff user with an API token owns an upload, a finished job and a campaign.

schemathesis (the CLI, `schemathesis run`) reads /api/v1/schema/ and sends every operation valid and invalid
requests (its examples, coverage and fuzzing phases), once with the staff user's token and once with no
credentials, and runs every check it has (`--checks all`). The script prints, per run, the requests sent, the
answers of 500 and above, and the failures of each check by operation, then the totals. A failure of
positive_data_acceptance where the API refused a value no schema can rule out (a model name that does not exist,
reports not numbered 0 … R-1) is listed with the server's reason, so a reader can tell ours from those.
"""

from __future__ import annotations

import argparse
import http.client
import json
import os
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from webapp import embedded_redis  # noqa: E402

LIFTED_RATES = {"INSPECT_RATE_ANON": "100000000/minute", "INSPECT_RATE_USER": "100000000/minute",
                "AUTH_RATE": "100000000/hour", "PREFERENCE_REPORT_RATE": "100000000/hour"}

# A staff user with a token, an upload, an ended job and a campaign: what a signed-in run can reach.
_WORLD = """
from django.contrib.auth.models import User
from rest_framework.authtoken.models import Token
from anonymizer.crowd.web import services as crowd
from anonymizer.platform import uploads
from anonymizer.platform.jobs import runner, services as jobs
from django.core.files.uploadedfile import SimpleUploadedFile
user, _ = User.objects.get_or_create(username="fuzz", defaults={"is_staff": True})
user.is_staff = True
user.set_password("a long fuzzing passphrase")
user.save()
if not user.uploads.exists():
    upload = uploads.create_csv_upload(owner=user, uploaded=SimpleUploadedFile(
        "posts.csv", b"id,text,lat,lon\\n1,Lunch in Little Rock,34.7,-92.3\\n2,Game day in Des Moines,41.6,-93.6\\n",
        content_type="text/csv"))
    job = jobs.create_job(owner=user, kind="profile_csv", params={}, inputs=[upload])
    runner.run_job(job.id)
    crowd.create_campaign(owner=user, name="Fuzz", instructions="Judge the post.", consent_text="I agree.",
                          posts=[crowd.PostSpec("Lunch in Little Rock")])
print(Token.objects.get_or_create(user=user)[0].key)
"""


def wait_listening(port: int, timeout: float = 90) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            connection = http.client.HTTPConnection("127.0.0.1", port, timeout=5)
            connection.request("GET", "/healthz")
            connection.getresponse().read()
            return
        except OSError:
            time.sleep(0.3)
    raise RuntimeError(f"gunicorn did not answer on port {port} within {timeout} s")


def run_schemathesis(port: int, label: str, headers: list[str], args: argparse.Namespace, out: Path) -> dict:
    report = out / f"{label}.json"
    events = out / f"{label}.ndjson"
    command = [str(Path(sys.executable).parent / "schemathesis"), "run", f"http://127.0.0.1:{port}/api/v1/schema/",
               "--checks", "all", "--max-examples", str(args.max_examples), "--seed", str(args.seed),
               "--max-time", str(args.max_time), "--workers", "2", "--suppress-health-check", "all",
               "--phases", "examples,coverage,fuzzing", "--no-color", "--report", "json,ndjson",
               "--report-json-path", str(report), "--report-ndjson-path", str(events), "--request-timeout", "30"]
    for header in headers:
        command += ["-H", header]
    started = time.perf_counter()
    completed = subprocess.run(command, cwd=out, capture_output=True, text=True)  # its cache goes there too
    elapsed = time.perf_counter() - started
    (out / f"{label}.txt").write_text(completed.stdout + completed.stderr)
    return summarize(label, report, events, elapsed, out / f"{label}.txt")


def _responses(value):
    """Every recorded response (a dict with a status_code and a body) anywhere in an NDJSON event."""
    if isinstance(value, dict):
        if isinstance(value.get("status_code"), int) and "elapsed" in value:
            yield value
        for child in value.values():
            yield from _responses(child)
    elif isinstance(value, list):
        for child in value:
            yield from _responses(child)


def summarize(label: str, report: Path, events: Path, elapsed: float, text: Path) -> dict:
    """Requests answered and answers >= 500 (from the NDJSON events), and the failures by check and operation
    (from the JSON report)."""
    statuses: Counter = Counter()
    for line in events.read_text().splitlines() if events.exists() else []:
        for response in _responses(json.loads(line)):
            statuses[response["status_code"]] += 1
    document = json.loads(report.read_text()) if report.exists() else {"failures": [], "errors": []}
    server_errors = sum(count for status, count in statuses.items() if status >= 500)
    print(f"== {label}: {sum(statuses.values())} answers in {elapsed:.0f} s, {server_errors} of them 500 or above; "
          f"by status: {dict(sorted(statuses.items()))} (full output: {text})")
    failures: Counter = Counter()
    for group in document["failures"]:
        failures[group["type"]] += group["count"]
        print(f"   {group['type']}: {group['count']} x {group['title']} in {', '.join(group['operations'])}")
    for error in document.get("errors", []):
        print(f"   error: {error['count']} x {error['title']}")
    if not document["failures"]:
        print("   no check failed")
    return {"answers": sum(statuses.values()), "server_errors": server_errors, "failures": dict(failures),
            "errors": sum(error["count"] for error in document.get("errors", []))}


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--max-examples", type=int, default=30, help="fuzzing cases per operation and run")
    parser.add_argument("--seed", type=int, default=42)
    parser.add_argument("--max-time", type=int, default=900, help="seconds per run at most")
    parser.add_argument("--workers", type=int, default=2, help="gunicorn workers")
    args = parser.parse_args()
    var = REPO / "var" / "bench"
    redis_port, web_port = embedded_redis.free_port(), embedded_redis.free_port()
    env = {**os.environ, "VAR_DIR": str(var), "REDIS_URL": f"redis://127.0.0.1:{redis_port}/0",
           "LOG_LEVEL": "WARNING", **LIFTED_RATES}
    env.pop("DATABASE_URL", None)
    redis = embedded_redis.start(var / "redis", redis_port)
    out = Path(tempfile.mkdtemp(prefix="bench-schemathesis-"))
    totals = {}
    try:
        subprocess.run([sys.executable, "manage.py", "bootstrap"], cwd=REPO, env=env, check=True,
                       stdout=subprocess.DEVNULL)
        token = subprocess.run([sys.executable, "manage.py", "shell", "-c", _WORLD], cwd=REPO, env=env, check=True,
                               capture_output=True, text=True).stdout.strip().splitlines()[-1]
        web = subprocess.Popen([str(Path(sys.executable).parent / "gunicorn"), "webapp.wsgi", "-c", "gunicorn.conf.py",
                                "--bind", f"127.0.0.1:{web_port}", "--workers", str(args.workers)], cwd=REPO, env=env,
                               stdout=subprocess.DEVNULL, stderr=open(out / "gunicorn.log", "w"))
        try:
            wait_listening(web_port)
            totals["signed in"] = run_schemathesis(web_port, "signed-in", [f"Authorization: Token {token}"], args,
                                                   out)
            totals["anonymous"] = run_schemathesis(web_port, "anonymous", [], args, out)
        finally:
            web.terminate()
            web.wait(30)
    finally:
        redis.terminate()
        redis.wait(10)
    print("== totals (schemathesis --checks all, seed "
          f"{args.seed}, {args.max_examples} examples per operation)")
    for label, result in totals.items():
        violations = sum(count for check, count in result["failures"].items() if check != "not_a_server_error")
        print(f"   {label}: {result['answers']} answers, {result['server_errors']} x 5xx, {violations} check "
              f"failure(s) besides server errors: {dict(sorted(result['failures'].items())) or 'none'}, "
              f"{result['errors']} error(s) of schemathesis")
    print(f"   worker log: {out / 'gunicorn.log'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
