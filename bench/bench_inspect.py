"""POST /api/v1/inspect under gunicorn with 10 concurrent clients: latency percentiles and requests per second.

Usage: .venv/bin/python bench/bench_inspect.py [--workers 3] [--clients 10] [--requests 200]

It starts what `make run` starts — an embedded Redis (the rate-limit cache), gunicorn with the Procfile's
settings file — on free ports, with state under var/bench (the default models are trained there once, like
`manage.py bootstrap`). The rate limit is lifted for the run. The posts are real held-out posts of about 140
characters, one Japanese and one English.
"""

from __future__ import annotations

import argparse
import http.client
import json
import os
import subprocess
import sys
import threading
import time
from pathlib import Path

import numpy as np

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from anonymizer.location.corpus import load_corpus  # noqa: E402
from anonymizer.location.defaults import TOKYO, US_MIDWEST  # noqa: E402
from anonymizer.location.evaluate import split_train_test  # noqa: E402
from webapp import embedded_redis  # noqa: E402


def post_of_about(spec, length: int = 140) -> str:
    posts, _ = load_corpus(REPO / "data" / spec.corpus, columns=spec.columns, grid=spec.grid,
                           where={k: set(v) for k, v in spec.where.items()} or None)
    _, test, _ = split_train_test(len(posts), users=[p.user for p in posts])
    return min((posts[i].text for i in test), key=lambda text: abs(len(text) - length))


def client(port: int, body: bytes, count: int, latencies: list[float], failures: list[int]) -> None:
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    headers = {"Content-Type": "application/json", "Host": "localhost"}
    for _ in range(count):
        started = time.perf_counter()
        connection.request("POST", "/api/v1/inspect", body=body, headers=headers)
        response = connection.getresponse()
        response.read()
        latencies.append(time.perf_counter() - started)
        if response.status != 200:
            failures.append(response.status)
    connection.close()


def run_load(port: int, text: str, clients: int, requests: int) -> dict:
    body = json.dumps({"text": text}).encode()
    client(port, body, 20, [], [])  # warm every worker's caches
    latencies: list[float] = []
    failures: list[int] = []
    threads = [threading.Thread(target=client, args=(port, body, requests, latencies, failures))
               for _ in range(clients)]
    started = time.perf_counter()
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    elapsed = time.perf_counter() - started
    ms = np.array(latencies) * 1000
    return {"requests": len(latencies), "failures": len(failures), "rps": len(latencies) / elapsed,
            "p50_ms": float(np.percentile(ms, 50)), "p95_ms": float(np.percentile(ms, 95)),
            "p99_ms": float(np.percentile(ms, 99))}


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--workers", type=int, default=3)
    parser.add_argument("--clients", type=int, default=10)
    parser.add_argument("--requests", type=int, default=200, help="per client")
    args = parser.parse_args()
    var = REPO / "var" / "bench"
    redis_port, web_port = embedded_redis.free_port(), embedded_redis.free_port()
    env = {**os.environ, "VAR_DIR": str(var), "REDIS_URL": f"redis://127.0.0.1:{redis_port}/0",
           "INSPECT_RATE_ANON": "100000000/minute", "LOG_LEVEL": "WARNING"}
    env.pop("DATABASE_URL", None)
    redis = embedded_redis.start(var / "redis", redis_port)
    try:
        subprocess.run([sys.executable, "manage.py", "bootstrap"], cwd=REPO, env=env, check=True)
        web = subprocess.Popen([str(Path(sys.executable).parent / "gunicorn"), "webapp.wsgi", "--bind",
                                f"127.0.0.1:{web_port}", "--workers", str(args.workers)], cwd=REPO, env=env)
        try:
            deadline = time.monotonic() + 60
            while time.monotonic() < deadline:
                try:
                    http.client.HTTPConnection("127.0.0.1", web_port, timeout=1).request("GET", "/healthz")
                    break
                except OSError:
                    time.sleep(0.2)
            for spec in (TOKYO, US_MIDWEST):
                text = post_of_about(spec)
                result = run_load(web_port, text, args.clients, args.requests)
                print(f"{spec.name}: one {len(text)}-character post, {args.clients} clients x {args.requests} "
                      f"requests, gunicorn {args.workers} workers: p50 {result['p50_ms']:.1f} ms, p95 "
                      f"{result['p95_ms']:.1f} ms, p99 {result['p99_ms']:.1f} ms, {result['rps']:.0f} requests/s, "
                      f"{result['failures']} failures")
        finally:
            web.terminate()
            web.wait(20)
    finally:
        redis.terminate()
        redis.wait(10)
    return 0


if __name__ == "__main__":
    sys.exit(main())
