"""Issue 42's goals for inspect, measured against a live stack: the worst single requests, automatic mode on
held-out posts, and /healthz while 4 worst-case batches run at once.

Usage: .venv/bin/python bench/bench_abuse.py [--repo PATH] [--random 120] [--batches 4]

It starts what `make run` starts — an embedded Redis, a Celery worker and gunicorn as Procfile.local starts it
(`--workers 2`, the settings file gunicorn.conf.py) — on free ports with state under <repo>/var/bench (the
default models are trained there once, like `manage.py bootstrap`), rate limits lifted. `--repo` runs the same
requests against another checkout (e.g. a worktree of the code before issue 42) for a side-by-side figure.

Printed:
1. every crafted worst case (place-dense, emoji, digits, punctuation runs with time removal, 2,000 characters,
   mixed scripts, every replacement, fixed m = 8) and `--random` concatenations of real posts (Japanese 3/11
   and US Midwest tweets from ../shared/data, skipped when absent) with random options: status and seconds;
   the goal is every request <= 1 s;
2. automatic mode on held-out posts (in this process, the checkout's own code): p95 per post, goal <= 20 ms;
3. `--batches` concurrent batch requests of 100 worst-case 2,000-character posts while /healthz is asked every
   0.25 s: the slowest /healthz answer and any non-200, the batches' statuses, and whether a gunicorn worker was
   killed (its pid changed). Goal: /healthz 200 within 1 s throughout, no worker killed.
The campaign-flood and schemathesis goals have their own scripts: bench_campaign_flood.py, bench_schemathesis.py.
"""

from __future__ import annotations

import argparse
import csv
import gzip
import http.client
import json
import os
import random
import subprocess
import sys
import threading
import time
from pathlib import Path

import numpy as np
import psutil

HERE = Path(__file__).resolve().parents[1]
SHARED = HERE.parent / "shared" / "data" / "geo"
TOKYO_PLACES = ("渋谷 新宿 池袋 上野 浅草 品川 目黒 秋葉原 銀座 六本木 表参道 原宿 恵比寿 中目黒 吉祥寺 "
                "下北沢 自由が丘 二子玉川 代官山 神楽坂 日本橋 有楽町 丸の内 "
                "大手町 神田 御茶ノ水 巣鴨 高円寺 中野 荻窪").split()
MIDWEST = "Chicago Detroit Milwaukee Minneapolis St. Louis Omaha Des Moines "


def worst_cases() -> list[tuple[str, dict]]:
    ja, en = "tokyo-ja", "us-midwest-en"
    mixed = ("渋谷駅でabc123😀、新宿。" * 120)[:2000]
    return [
        ("ja 東京 x 1000", {"text": "東京" * 1000, "model": ja}),
        ("ja 東京 x 1000, places needed", {"text": "東京" * 1000, "model": ja, "places": "needed"}),
        ("ja digits 2000", {"text": "1234567890" * 200, "model": ja}),
        ("ja emoji 2000", {"text": "😀🎉🗼" * 666, "model": ja}),
        ("ja hiragana 2000", {"text": "あいうえおかきくけこ" * 200, "model": ja}),
        ("ja mixed 2000", {"text": mixed, "model": ja}),
        ("ja mixed 2000 generalize", {"text": mixed, "model": ja, "replacement": "generalize"}),
        ("ja mixed 2000 mask", {"text": mixed, "model": ja, "replacement": "mask"}),
        ("ja mixed 2000 fixed m=8", {"text": mixed, "model": ja, "mode": "fixed", "m": 8}),
        ("ja 30 places fixed m=8", {"text": "、".join(TOKYO_PLACES), "model": ja, "mode": "fixed", "m": 8}),
        ("ja place names 2000", {"text": ("".join(TOKYO_PLACES) * 20)[:2000], "model": ja}),
        ("en punctuation 2000", {"text": "!?.,;:" * 333, "model": en}),
        ("en punctuation 2000 remove_time", {"text": "!?.,;:" * 333, "model": en, "remove_time": True}),
        ("en places 2000", {"text": (MIDWEST * 40)[:2000], "model": en}),
        ("en places 2000 generalize", {"text": (MIDWEST * 40)[:2000], "model": en, "replacement": "generalize"}),
        ("en places+times 2000 remove_time",
         {"text": ("Chicago at 5pm on Monday Detroit tomorrow Omaha " * 50)[:2000], "model": en,
          "remove_time": True}),
        ("en 300 distinct words", {"text": "Chicago " + " ".join(f"w{i}x" for i in range(300)), "model": en}),
    ]


def real_posts() -> dict[str, list[str]]:
    posts: dict[str, list[str]] = {}
    japan, midwest = SHARED / "japan_311" / "tweets.csv", SHARED / "us_midwest_2017" / "tweets.csv.gz"
    if japan.exists():
        with japan.open(encoding="utf-8") as handle:
            posts["tokyo-ja"] = [row["text"] for row in csv.DictReader(handle)]
    if midwest.exists():
        with gzip.open(midwest, "rt", encoding="utf-8") as handle:
            posts["us-midwest-en"] = [row["text"] for row in csv.DictReader(handle)]
    return posts


def random_cases(count: int, seed: int = 42) -> list[tuple[str, dict]]:
    posts = real_posts()
    if not posts:
        print(f"(random real-post cases skipped: {SHARED} is absent)")
        return []
    rng = random.Random(seed)
    cases = []
    for k in range(count):
        model = rng.choice(sorted(posts))
        target, text = rng.choice([140, 500, 1000, 2000]), ""
        while len(text) < target:
            text += rng.choice(posts[model]) + rng.choice([" ", "\n", "、", ""])
        body = {"text": text[:2000], "model": model, "replacement": rng.choice(["delete", "mask", "generalize"]),
                "places": rng.choice(["all", "needed"])}
        m = rng.choice([None, None, None, 1, 4, 8])
        if m is not None:
            body.update(mode="fixed", m=m)
        if model == "us-midwest-en" and rng.random() < 0.4:
            body["remove_time"] = True
        cases.append((f"random {k}", body))
    return cases


def request(port: int, method: str, path: str, body: dict | None = None, timeout: float = 60) -> tuple[int, float]:
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=timeout)
    started = time.perf_counter()
    try:
        connection.request(method, path, body=json.dumps(body).encode() if body is not None else None,
                           headers={"Content-Type": "application/json", "Host": "localhost"})
        response = connection.getresponse()
        response.read()
        return response.status, time.perf_counter() - started
    except (OSError, http.client.HTTPException):
        return 0, time.perf_counter() - started  # 0: no answer (connection reset, timeout)
    finally:
        connection.close()


def single_requests(port: int, cases: list[tuple[str, dict]], show_all: bool) -> None:
    for _, body in cases[:4]:  # warm both workers
        request(port, "POST", "/api/v1/inspect", body)
    rows = []
    for name, body in cases:
        status, seconds = request(port, "POST", "/api/v1/inspect", body)
        rows.append((seconds, status, name, len(body["text"])))
        if show_all:
            print(f"  {name:36s} {len(body['text']):5d} chars  {status}  {seconds:6.2f} s")
    times = np.array([r[0] for r in rows])
    slow = sorted(rows, reverse=True)[:3]
    statuses = {s: sum(r[1] == s for r in rows) for s in sorted({r[1] for r in rows})}
    print(f"  {len(rows)} requests: max {times.max():.2f} s, p95 {np.percentile(times, 95):.2f} s, median "
          f"{np.median(times):.2f} s, {int((times > 1).sum())} over 1 s; statuses {statuses}")
    print("  slowest: " + "; ".join(f"{name} ({chars} chars) {status} {seconds:.2f} s"
                                    for seconds, status, name, chars in slow))


def held_out_p95(repo: Path, env: dict) -> None:
    code = r"""
import json, sys, time
import django
django.setup()
import numpy as np
from anonymizer.location.corpus import load_corpus
from anonymizer.location.defaults import TOKYO, US_MIDWEST
from anonymizer.location.evaluate import split_train_test
from anonymizer.location.web import selectors
from pathlib import Path
for spec in (TOKYO, US_MIDWEST):
    posts, _ = load_corpus(Path("data") / spec.corpus, columns=spec.columns, grid=spec.grid,
                           where={k: set(v) for k, v in spec.where.items()} or None)
    _, test, _ = split_train_test(len(posts), users=[p.user for p in posts])
    record = selectors.resolve_location_model(None, spec.name)
    model, extra = selectors.load_location_model(record), selectors.human_scorers(record)
    sample = [posts[i].text for i in test][:1000]
    for text in sample[:20]:
        model.deidentify(text, extra_scorers=extra)
    times = []
    for text in sample:
        started = time.perf_counter()
        model.deidentify(text, extra_scorers=extra)
        times.append(time.perf_counter() - started)
    ms = np.array(times) * 1000
    print(f"  {spec.name}: automatic mode on {len(ms)} held-out posts: median {np.median(ms):.1f} ms, "
          f"p95 {np.percentile(ms, 95):.1f} ms, max {ms.max():.0f} ms")
"""
    subprocess.run([sys.executable, "-c", code], cwd=repo, env={**env, "DJANGO_SETTINGS_MODULE": "webapp.settings",
                                                                 "PYTHONPATH": str(repo)}, check=True)


def gunicorn_workers(master: psutil.Process) -> set[int]:
    return {child.pid for child in master.children() if child.is_running()}


def concurrent_batches(port: int, master: psutil.Process, batches: int) -> None:
    ja = ("渋谷駅でabc123😀、新宿。" * 120)[:2000]
    en = "!?.,;:" * 333
    bodies = [{"texts": [ja] * 100, "model": "tokyo-ja", "replacement": "generalize"},
              {"texts": [en] * 100, "model": "us-midwest-en", "remove_time": True}]
    before = gunicorn_workers(master)
    results: list[tuple[int, float]] = []
    threads = [threading.Thread(target=lambda body=bodies[k % 2]: results.append(
        request(port, "POST", "/api/v1/inspect/batch", body, timeout=120))) for k in range(batches)]
    for thread in threads:
        thread.start()
    health: list[tuple[int, float]] = []
    while any(thread.is_alive() for thread in threads):
        health.append(request(port, "GET", "/healthz", timeout=30))
        time.sleep(0.25)
    for thread in threads:
        thread.join()
    after = gunicorn_workers(master)
    slowest = max(seconds for _, seconds in health)
    not_ok = [status for status, _ in health if status != 200]
    print(f"  {batches} concurrent batches of 100 x 2,000-character worst-case posts: statuses "
          f"{sorted(status for status, _ in results)}, "
          f"{min(s for _, s in results):.1f}-{max(s for _, s in results):.1f} s")
    print(f"  /healthz asked {len(health)} times meanwhile: slowest {slowest:.2f} s, {len(not_ok)} not 200 "
          f"{sorted(set(not_ok)) if not_ok else ''}; gunicorn workers killed: {len(before - after)} "
          f"(pids before {sorted(before)}, after {sorted(after)})")


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--repo", type=Path, default=HERE, help="the checkout to run (default: this one)")
    parser.add_argument("--random", type=int, default=120, help="random real-post requests")
    parser.add_argument("--batches", type=int, default=4)
    parser.add_argument("--all", action="store_true", help="print every single request")
    args = parser.parse_args()
    repo = args.repo.resolve()
    sys.path.insert(0, str(repo))
    from webapp import embedded_redis

    var = repo / "var" / "bench"
    redis_port, web_port = embedded_redis.free_port(), embedded_redis.free_port()
    env = {**os.environ, "VAR_DIR": str(var), "REDIS_URL": f"redis://127.0.0.1:{redis_port}/0",
           "INSPECT_RATE_ANON": "100000000/minute", "LOG_LEVEL": "WARNING"}
    env.pop("DATABASE_URL", None)
    bin_dir = Path(sys.executable).parent
    commit = subprocess.run(["git", "log", "-1", "--format=%h %s"], cwd=repo, text=True, capture_output=True)
    print(f"checkout {repo} ({commit.stdout.strip()[:90]})")
    redis = embedded_redis.start(var / "redis", redis_port)
    processes: list[subprocess.Popen] = []
    try:
        subprocess.run([sys.executable, "manage.py", "bootstrap"], cwd=repo, env=env, check=True,
                       stdout=subprocess.DEVNULL)
        processes.append(subprocess.Popen([str(bin_dir / "celery"), "-A", "webapp", "worker", "--loglevel",
                                           "WARNING", "--concurrency", "1", "--without-mingle", "--without-gossip"],
                                          cwd=repo, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL))
        web_log = (var / "gunicorn.log").open("w")
        web = subprocess.Popen([str(bin_dir / "gunicorn"), "webapp.wsgi", "--bind", f"127.0.0.1:{web_port}",
                                "--workers", "2"], cwd=repo, env=env, stderr=web_log, stdout=web_log)
        processes.append(web)
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline and request(web_port, "GET", "/healthz", timeout=5)[0] != 200:
            time.sleep(0.5)
        print("1. single inspect requests, one at a time (goal: each <= 1 s)")
        single_requests(web_port, worst_cases() + random_cases(args.random), args.all)
        print("2. automatic mode on held-out posts, in process (goal: p95 <= 20 ms)")
        held_out_p95(repo, env)
        print("3. /healthz under concurrent worst-case batches (goal: 200 within 1 s throughout, no worker killed)")
        concurrent_batches(web_port, psutil.Process(web.pid), args.batches)
    finally:
        for process in processes:
            process.terminate()
        for process in processes:
            try:
                process.wait(30)
            except subprocess.TimeoutExpired:
                process.kill()
        redis.terminate()
        redis.wait(10)
    log = (var / "gunicorn.log").read_text(errors="replace")
    print(f"  gunicorn log: {log.count('WORKER TIMEOUT')} WORKER TIMEOUT line(s)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
