"""schemathesis --checks all against a live server, signed in and anonymous: server errors and schema violations.

Usage: .venv/bin/python bench/bench_schemathesis.py [--max-examples 30] [--seed 42] [--max-time 900]

It starts what `make run` starts — an embedded Redis, gunicorn with gunicorn.conf.py (its request-line limit and
JSON refusals) — on free loopback ports, with state under var/bench (the default models are trained there once,
like `manage.py bootstrap`). The rate limits are lifted for the run, so an answer is the operation's own, not a
429. A staff user with an API token owns an upload, a finished job and a campaign.

schemathesis (the CLI, `schemathesis run`) reads /api/v1/schema/ and sends every operation valid and invalid
requests (all its phases: examples, coverage, fuzzing, stateful), once with the staff user's token (given as the
schema's tokenAuth, so its ignored-auth check knows what to spoil) and once with no credentials, and runs every
check it has (`--checks all`). The script prints, per run, the answers by status and the failing cases of each
check by operation, then the totals: answers of 500 and above, and schema violations that are ours. A
positive_data_acceptance failure whose 400 names only fields no schema can state (a model of yours, reports
numbered 0 ... R-1: tests/hostile/schema_limits.py) is counted apart, as the API doing its job, and a 413 or
414 counts as refusing an invalid request.
"""

from __future__ import annotations

import argparse
import base64
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

from tests.hostile.schema_limits import REJECTING_STATUSES, refused_beyond_the_schema  # noqa: E402
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


def run_schemathesis(port: int, label: str, token: str | None, args: argparse.Namespace, out: Path) -> dict:
    report = out / f"{label}.json"
    events = out / f"{label}.ndjson"
    config = out / f"{label}.toml"
    rejecting = ", ".join(f'"{status}"' for status in REJECTING_STATUSES)
    config.write_text(f"[checks.negative_data_rejection]\nexpected-statuses = [{rejecting}]\n"
                      + (f'[auth.openapi.tokenAuth]\napi_key = "Token {token}"\n' if token else ""))
    command = [str(Path(sys.executable).parent / "schemathesis"), "--config-file", str(config), "run",
               f"http://127.0.0.1:{port}/api/v1/schema/", "--checks", "all", "--max-examples",
               str(args.max_examples), "--seed", str(args.seed), "--max-time", str(args.max_time), "--workers", "2",
               "--suppress-health-check", "all", "--no-color", "--report", "json,ndjson", "--report-json-path",
               str(report), "--report-ndjson-path", str(events), "--request-timeout", "30"]
    started = time.perf_counter()
    completed = subprocess.run(command, cwd=out, capture_output=True, text=True)  # its cache goes there too
    elapsed = time.perf_counter() - started
    (out / f"{label}.txt").write_text(completed.stdout + completed.stderr)
    return summarize(label, report, events, elapsed, out / f"{label}.txt")


def _body(message: dict) -> bytes:
    content = message.get("content") or message.get("body") or {}
    if isinstance(content, dict) and "$base64" in content:
        return base64.b64decode(content["$base64"])
    return (content if isinstance(content, str) else json.dumps(content)).encode() if content else b""


def summarize(label: str, report: Path, events: Path, elapsed: float, text: Path) -> dict:
    """Answers by status, and the failing cases by check and operation, from the NDJSON events (each scenario's
    cases, the checks run on each and the request and response)."""
    statuses: Counter = Counter()
    failing: dict[str, Counter] = {}
    beyond: Counter = Counter()
    titles: dict[tuple[str, str], str] = {}
    for line in events.read_text().splitlines() if events.exists() else []:
        scenario = json.loads(line).get("ScenarioFinished")
        if not scenario:
            continue
        recorder = scenario["recorder"]
        for case_id, interaction in recorder.get("interactions", {}).items():
            response = interaction.get("response") or {}
            if "status_code" in response:
                statuses[response["status_code"]] += 1
            operation = recorder["cases"].get(case_id, {}).get("value", {})
            operation = f"{operation.get('method', '?')} {operation.get('path', '?')}"
            for check in recorder.get("checks", {}).get(case_id, []):
                if check["status"] != "failure":
                    continue
                if check["name"] == "positive_data_acceptance" and refused_beyond_the_schema(
                        operation, response.get("status_code", 0), _body(response)):
                    beyond[operation] += 1
                    continue
                failing.setdefault(check["name"], Counter())[operation] += 1
                failure = (check.get("failure_info") or {}).get("failure") or {}
                titles.setdefault((check["name"], operation), f"{failure.get('title', '')}: "
                                  f"{failure.get('message', '')} -> {response.get('status_code')} "
                                  f"{_body(response)[:160].decode(errors='replace')}".replace("\n", " "))
    document = json.loads(report.read_text()) if report.exists() else {}
    server_errors = sum(count for status, count in statuses.items() if status >= 500)
    print(f"== {label}: {sum(statuses.values())} answers in {elapsed:.0f} s, {server_errors} of them 500 or above; "
          f"by status {dict(sorted(statuses.items()))}; schemathesis stopped: {document.get('stop_reason')} "
          f"(full output: {text})")
    for check, by_operation in sorted(failing.items()):
        print(f"   {check}: {sum(by_operation.values())} failing case(s)")
        for operation, count in by_operation.most_common():
            print(f"      {count:4d}  {operation}: {titles[(check, operation)]}")
    if beyond:
        print(f"   not ours: {sum(beyond.values())} schema-valid request(s) refused for what no schema can state "
              f"(tests/hostile/schema_limits.py): {dict(beyond.most_common())}")
    if not failing:
        print("   no check failed")
    errors = sum(error["count"] for error in document.get("errors", []))
    return {"answers": sum(statuses.values()), "server_errors": server_errors, "beyond": sum(beyond.values()),
            "failures": {check: sum(counts.values()) for check, counts in failing.items()}, "errors": errors}


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
            totals["signed in"] = run_schemathesis(web_port, "signed-in", token, args, out)
            totals["anonymous"] = run_schemathesis(web_port, "anonymous", None, args, out)
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
        print(f"   {label}: {result['answers']} answers, {result['server_errors']} x 5xx, {violations} schema "
              f"violation(s) that are ours {dict(sorted(result['failures'].items())) or ''}, {result['beyond']} "
              f"refusal(s) beyond the schema, {result['errors']} error(s) of schemathesis")
    print(f"   worker log: {out / 'gunicorn.log'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
