"""A campaign link flooded from one address: how long real participants from other addresses wait to be served.

Usage: .venv/bin/python bench/bench_campaign_flood.py [--joins 200] [--participants 5] [--patience 60]
                                                      [--source DIR]

It starts what `make run` starts for the web — an embedded Redis (the rate-limit cache) and gunicorn with the
repository's settings file — on free ports, with a fresh SQLite database under var/bench_flood, and makes a
campaign like issue 42's (2 posts x 20 answers, reservations of 300 s). Then one address (127.0.0.1) joins the
link --joins times as fresh browsers (8 at a time), each asking for its first post, as a script would; then
--participants real participants, each from an address of its own (127.0.0.2, 127.0.0.3, ...; the client
address is the connection's, X-Forwarded-For is not trusted), join and ask for a post, waiting as the server
says (409/429 with "wait") for at most --patience seconds. It prints what the flood got and each participant's
time to be served. --source runs the server from another checkout (e.g. a worktree of the code before the fix)
with the same client, for before/after figures.
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import subprocess
import sys
import time
from collections import Counter
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import requests
from requests.adapters import HTTPAdapter

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from webapp import embedded_redis  # noqa: E402

CAMPAIGN = """
from django.contrib.auth.models import User
from anonymizer.crowd.web import services as crowd
staff = User.objects.create_user("bench", password="bench passphrase for the flood", is_staff=True)
posts = [crowd.PostSpec(f"post number {i}", external_id=f"r{i}") for i in range(2)]
campaign = crowd.create_campaign(owner=staff, name="flood", instructions="Judge.", consent_text="I agree.",
                                 posts=posts, judgments_per_post=20, reservation_seconds=300, gold_share=0.0,
                                 min_answers_for_code=1)
print(campaign.join_token)
"""


class FromAddress(HTTPAdapter):
    """Connects from a given loopback address, which the server sees as the client's address."""

    def __init__(self, address: str) -> None:
        self.address = address
        super().__init__()

    def init_poolmanager(self, *args, **kwargs) -> None:
        super().init_poolmanager(*args, source_address=(self.address, 0), **kwargs)


class Browser:
    """A fresh browser (its own cookies) on the campaign link, from one client address."""

    def __init__(self, base: str, address: str) -> None:
        self.base = base
        self.http = requests.Session()
        self.http.mount("http://", FromAddress(address))

    def join(self) -> int:
        page = self.http.get(self.base + "/", timeout=30)
        token = re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', page.text)
        if token is None:
            return page.status_code
        joined = self.http.post(self.base + "/", data={"consent": "yes", "csrfmiddlewaretoken": token.group(1)},
                                headers={"Referer": self.base + "/"}, allow_redirects=False, timeout=30)
        return joined.status_code

    def next(self) -> requests.Response:
        return self.http.get(self.base + "/api/next", timeout=30)

    def close(self) -> None:
        self.http.close()


def flood_one(base: str) -> tuple[int, int | None]:
    bot = Browser(base, "127.0.0.1")
    try:
        joined = bot.join()
        return joined, bot.next().status_code if joined == 302 else None
    finally:
        bot.close()


def participant(base: str, address: str, patience: float) -> tuple[float | None, list[str]]:
    """Seconds from joining to being served a post (None: not within ``patience``), and what was answered."""
    person = Browser(base, address)
    started = time.monotonic()
    answers = [f"join {person.join()}"]
    try:
        while True:
            response = person.next()
            body = response.json()
            if response.status_code == 200 and body.get("post"):
                return time.monotonic() - started, [*answers, "200 post"]
            wait = body.get("wait")
            answers.append(f"{response.status_code} wait {wait}")
            if not wait or time.monotonic() - started + wait > patience:
                return None, answers
            time.sleep(wait)
    finally:
        person.close()


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--joins", type=int, default=200, help="joins from the flooding address")
    parser.add_argument("--participants", type=int, default=5, help="real participants, one address each")
    parser.add_argument("--patience", type=float, default=60.0, help="longest a participant waits, seconds")
    parser.add_argument("--source", type=Path, default=REPO, help="checkout to run the server from")
    args = parser.parse_args()
    source = args.source.resolve()
    var = REPO / "var" / "bench_flood"
    shutil.rmtree(var, ignore_errors=True)
    redis_port, web_port = embedded_redis.free_port(), embedded_redis.free_port()
    env = {**os.environ, "VAR_DIR": str(var), "REDIS_URL": f"redis://127.0.0.1:{redis_port}/0",
           "LOG_LEVEL": "ERROR"}
    env.pop("DATABASE_URL", None)
    redis = embedded_redis.start(var / "redis", redis_port)
    try:
        for command in (["migrate"], ["collectstatic", "--no-input"]):  # what bootstrap does, bar the models
            subprocess.run([sys.executable, "manage.py", *command, "--verbosity", "0"], cwd=source, env=env,
                           check=True)
        token = subprocess.run([sys.executable, "manage.py", "shell", "-c", CAMPAIGN], cwd=source, env=env,
                               check=True, capture_output=True, text=True).stdout.strip().splitlines()[-1]
        web = subprocess.Popen([str(Path(sys.executable).parent / "gunicorn"), "webapp.wsgi", "--bind",
                                f"127.0.0.1:{web_port}", "--workers", "2"], cwd=source, env=env)
        try:
            base = f"http://127.0.0.1:{web_port}/p/{token}"
            deadline = time.monotonic() + 60
            while True:
                try:  # the join page: /healthz would also wait for a worker, which this bench does not start
                    requests.get(base + "/", timeout=10)
                    break
                except requests.ConnectionError:
                    if time.monotonic() > deadline:
                        raise
                    time.sleep(0.2)
            started = time.monotonic()
            with ThreadPoolExecutor(8) as pool:
                flood = list(pool.map(lambda _: flood_one(base), range(args.joins)))
            took = time.monotonic() - started
            joins = Counter(joined for joined, _ in flood)
            nexts = Counter(served for _, served in flood if served is not None)
            print(f"server from {source}")
            print(f"flood from 127.0.0.1: {args.joins} joins in {took:.1f} s -> join answers "
                  f"{dict(sorted(joins.items()))}, first-post answers {dict(sorted(nexts.items()))} "
                  f"(200 = a reservation held for 300 s)")
            waits = []
            for number in range(args.participants):
                address = f"127.0.0.{number + 2}"
                seconds, answers = participant(base, address, args.patience)
                waits.append(seconds)
                shown = f"served after {seconds:.2f} s" if seconds is not None else \
                    f"NOT served within {args.patience:.0f} s"
                print(f"participant from {address}: {shown} ({', '.join(answers)})")
            served = [w for w in waits if w is not None]
            print(f"participants served: {len(served)} of {len(waits)}; longest wait "
                  f"{max(served):.2f} s" if served else f"participants served: 0 of {len(waits)}")
        finally:
            web.terminate()
            web.wait(20)
    finally:
        redis.terminate()
        redis.wait(10)
    return 0


if __name__ == "__main__":
    sys.exit(main())
