"""Shared fixtures: a real Redis broker for the session, real Celery worker processes, users, files.

With REDIS_URL / DATABASE_URL in the environment the suite runs against those servers (CI does both: the
embedded default and the machine's PostgreSQL + Redis); otherwise an embedded redis-server and SQLite.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
import uuid
from pathlib import Path
from urllib.parse import urlsplit, urlunsplit

import psutil
import pytest
from django.conf import settings
from django.core.cache import cache
from django.db import connection
from django.test import override_settings

from anonymizer.location.defaults import TOKYO, US_MIDWEST, ModelSpec
from anonymizer.location.evaluate import split_train_test
from anonymizer.location.model import LocationModel
from tests.helpers import ROOT, default_corpus, token_client
from tests.model_cache import cached_training, start_warming
from webapp import embedded_redis
from webapp.celery import app as celery_app

MAX_TEST_WORKERS = 4


@pytest.hookimpl(optionalhook=True)
def pytest_xdist_auto_num_workers(config) -> int:
    """`make test` runs `-n auto`: one process per physical core, but at most MAX_TEST_WORKERS. Each process
    holds the NLP models (≈ 1.1 GB resident) and starts its own Celery workers and chromium, and the fault tests
    count on heartbeats arriving within seconds; more processes than that buy little and make those seconds
    contended. Each process is a test session of its own: its own embedded Redis (or queue and cache prefix on
    a shared one), its own test database (pytest-django adds the worker's suffix)."""
    return max(1, min(MAX_TEST_WORKERS, psutil.cpu_count(logical=False) or psutil.cpu_count() or 1))


def session_redis_url(url: str, xdist_worker: str | None) -> str:
    """On a shared Redis, each pytest-xdist process its own database number (15, 14, 13, … from the URL's):
    Celery's broadcasts (the workers' ping that /healthz counts, revokes) reach only the workers of the same
    database (kombu's fanout_prefix), so one process's workers never answer another's tests."""
    if not xdist_worker or not xdist_worker.startswith("gw"):
        return url
    parts = urlsplit(url)
    base = int(parts.path.strip("/") or 0)
    return urlunsplit(parts._replace(path=f"/{(base - int(xdist_worker[2:])) % 16}"))


@pytest.fixture(scope="session")
def redis_url(tmp_path_factory) -> str:
    url = os.environ.get("REDIS_URL")
    if url:
        yield session_redis_url(url, os.environ.get("PYTEST_XDIST_WORKER"))
        return
    port = embedded_redis.free_port()
    process = embedded_redis.start(tmp_path_factory.mktemp("redis"), port)
    yield f"redis://127.0.0.1:{port}/0"
    process.terminate()
    process.wait(10)


#: The tests' password hasher. Django's default (PBKDF2, a million rounds) took ~0.5 s a password here: the
#: `user`, `staff` and `other_user` fixtures alone spent 222 s of a 16-minute run on it (--durations, 420 users).
#: Sign-in, lock-out and change-password tests still check real hashes, with a cheap hasher; the app's own setting
#: is checked by tests/platform/test_settings.py.
FAST_PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]


@pytest.fixture(scope="session")
def isolated_runtime(redis_url, tmp_path_factory):
    """Every test session gets its own queue on the broker, so parallel sessions on a shared Redis never take
    each other's messages. Started on the first test that is not a pure-core test (see `_runtime`)."""
    queue = f"kakurega-test-{uuid.uuid4().hex[:12]}"
    overrides = override_settings(
        REDIS_URL=redis_url, CELERY_BROKER_URL=redis_url, CELERY_TASK_DEFAULT_QUEUE=queue,
        CACHES={"default": {"BACKEND": "django.core.cache.backends.redis.RedisCache", "LOCATION": redis_url,
                            "KEY_PREFIX": queue}},
        STATIC_ROOT=tmp_path_factory.mktemp("static"), PASSWORD_HASHERS=FAST_PASSWORD_HASHERS,
        # Templates resolve {% static %} without a collectstatic run; test_static covers the manifest storage.
        STORAGES={**settings.STORAGES,
                  "staticfiles": {"BACKEND": "django.contrib.staticfiles.storage.StaticFilesStorage"}},
    )
    overrides.enable()
    celery_app.conf.broker_url = redis_url
    celery_app.conf.task_default_queue = queue
    yield
    overrides.disable()


def pure_core(node: pytest.Item) -> bool:
    """A test of a capability's pure core (in a `core/` folder) or of the source tree: no Django request, no
    cache, no broker."""
    parts = Path(str(node.path)).relative_to(ROOT).parts
    return "core" in parts[:-1] or parts == ("tests", "test_house.py")


@pytest.fixture(scope="session", autouse=True)
def _session_runtime(request):
    """The broker, cache and queue of the session, set up first as before, unless every test collected is a
    pure-core one: `pytest tests/kanon/core` then starts no Redis (107 config tests paid its start-up)."""
    if not all(pure_core(item) for item in request.session.items):
        request.getfixturevalue("isolated_runtime")


@pytest.fixture(autouse=True)
def _fresh_rate_limits(request):
    """Each test but the pure-core ones starts with nothing counted against the rate limits: one process runs
    hundreds of tests, and the anonymous inspects of a few of them in one minute (60 allowed) otherwise throttle
    whichever test comes next."""
    if pure_core(request.node):
        return
    client = cache._cache.get_client(write=True)
    for key in client.scan_iter(match=cache.make_key("throttle_*"), count=1000):
        client.delete(key)


@pytest.fixture(autouse=True)
def media_root(settings, tmp_path) -> Path:
    """Each test stores uploads and results in its own directory (workers started by the test share it)."""
    settings.MEDIA_ROOT = tmp_path / "media"
    return settings.MEDIA_ROOT


@pytest.fixture(autouse=True)
def scratch_dir(settings, tmp_path) -> Path:
    """Each test's jobs keep their scratch files in a directory of its own (workers started by the test share
    it): a worker's sweep removes the scratch of jobs its database does not know, such as another session's."""
    settings.JOB_SCRATCH_DIR = tmp_path / "scratch"
    return settings.JOB_SCRATCH_DIR


def database_url() -> str:
    """The URL of the database the tests use right now (the test database), for worker processes."""
    db = connection.settings_dict
    if connection.vendor == "sqlite":
        return f"sqlite:///{Path(db['NAME']).resolve()}"
    auth = db["USER"] + (f":{db['PASSWORD']}" if db["PASSWORD"] else "")
    return f"postgresql://{auth}@{db['HOST'] or '127.0.0.1'}:{db['PORT'] or 5432}/{db['NAME']}"


class WorkerProcess:
    """A real `celery worker` process on the session's queue and the test database."""

    def __init__(self, heartbeat: float, stale_after: float, extra_env: dict[str, str] | None = None,
                 include: str | None = None) -> None:
        self.name = f"test-{uuid.uuid4().hex[:8]}@localhost"
        env = {
            **os.environ,
            "DATABASE_URL": database_url(),
            "REDIS_URL": settings.CELERY_BROKER_URL,
            "CELERY_QUEUE": settings.CELERY_TASK_DEFAULT_QUEUE,
            "MEDIA_ROOT": str(settings.MEDIA_ROOT),
            "JOB_SCRATCH_DIR": str(settings.JOB_SCRATCH_DIR),
            "JOB_HEARTBEAT_SECONDS": str(heartbeat),
            "JOB_STALE_AFTER_SECONDS": str(stale_after),
            # The main process's sweep and the grace before it kills a pool process still on an ended job.
            "JOB_SWEEP_SECONDS": "0.5",
            "JOB_KILL_GRACE_SECONDS": "1",
            **(extra_env or {}),
        }
        self.process = subprocess.Popen(
            [sys.executable, "-m", "celery", "-A", "webapp", "worker", "--pool", "prefork", "--concurrency", "1",
             "--loglevel", "INFO", "--hostname", self.name, "--without-gossip", "--without-mingle",
             *(["--include", include] if include else [])],
            cwd=ROOT, env=env, start_new_session=True,  # its own process group, so kill() takes the children too
        )

    def wait_ready(self, timeout: float = 60.0) -> None:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError(f"celery worker exited with status {self.process.returncode}")
            if celery_app.control.ping(destination=[self.name], timeout=0.5):
                return
        raise RuntimeError(f"celery worker {self.name} did not answer a ping within {timeout} s")

    def kill(self) -> None:
        """SIGKILL the worker and its pool children: no shutdown handlers run, as in a crash."""
        if self.process.poll() is None:
            os.killpg(self.process.pid, signal.SIGKILL)
            self.process.wait(10)

    def stop(self) -> None:
        if self.process.poll() is None:
            os.killpg(self.process.pid, signal.SIGTERM)
            try:
                self.process.wait(20)
            except subprocess.TimeoutExpired:
                self.kill()


@pytest.fixture
def start_worker(settings):
    """Start real Celery workers; heartbeat/staleness short so a lost worker is noticed within seconds."""
    settings.JOB_HEARTBEAT_SECONDS, settings.JOB_STALE_AFTER_SECONDS = 0.5, 3.0
    workers: list[WorkerProcess] = []

    def start(include: str | None = None, **extra_env: str) -> WorkerProcess:
        """``include``: a module the worker imports too (e.g. job kinds defined by a test); ``extra_env``: its
        settings from the environment (JOB_TIME_LIMIT_SECONDS=...)."""
        worker = WorkerProcess(settings.JOB_HEARTBEAT_SECONDS, settings.JOB_STALE_AFTER_SECONDS, extra_env, include)
        workers.append(worker)
        worker.wait_ready()
        return worker

    yield start
    # The test is over: kill rather than stop. A warm shutdown took 1.5-4 s a worker (it lets the pool finish its
    # task) and hands the messages it held back to the session's queue, for the next test's worker to take;
    # killed, they stay unacknowledged for the visibility timeout (hours), past the session's end.
    for worker in workers:
        worker.kill()


@pytest.fixture
def user(django_user_model):
    return django_user_model.objects.create_user("alice", password="correct horse battery staple")


@pytest.fixture
def other_user(django_user_model):
    return django_user_model.objects.create_user("mallory", password="another long passphrase")


@pytest.fixture
def staff(django_user_model):
    """A staff user (campaigns are staff-only)."""
    return django_user_model.objects.create_user("sato", password="a long staff passphrase", is_staff=True)


@pytest.fixture
def api(user):
    """Alice's REST client, authenticated with her API token."""
    return token_client(user)


@pytest.fixture
def alice_client(client, user):
    client.force_login(user)
    return client


# -- the default location models, trained from the corpora shipped in data/ (cached across sessions) ----------
DATA = ROOT / "data"
#: Fixtures that need a default location model (an item's fixture closure names them).
MODEL_FIXTURES = frozenset({"tokyo", "midwest", "trained", "location_models"})
_warming: list[subprocess.Popen] = []


@pytest.hookimpl(tryfirst=True)   # before pytest-django's, whose stable sort by database use keeps this order
def pytest_collection_modifyitems(config, items):
    """With a model missing from the cache (a fresh clone: the CI), train it in the background while the session
    runs other tests, in one process of the run (the first pytest-xdist process, or the only one). The modules
    that need a model run last (within pytest-django's grouping; whole modules, so their module fixtures are made
    once): in the first timed run the crowd tests, collected first, waited 71 s for the US model at the start.
    The order depends only on the collected tests, so every pytest-xdist process collects the same."""
    needing = {item.nodeid.split("::")[0] for item in items if MODEL_FIXTURES & set(getattr(item, "fixturenames", ()))}
    items.sort(key=lambda item: item.nodeid.split("::")[0] in needing)
    if not needing or os.environ.get("PYTEST_XDIST_WORKER", "gw0") != "gw0" or config.option.collectonly:
        return
    process = start_warming()
    if process is not None:
        _warming.append(process)


def pytest_sessionfinish(session):
    for process in _warming:     # a run that ended before it finished (-x, Ctrl-C): the next one trains again
        if process.poll() is None:
            process.terminate()
            process.wait(30)


class Trained:
    """A default model with its corpus and the held-out posts it was evaluated on."""

    def __init__(self, spec: ModelSpec) -> None:
        self.spec = spec
        self.posts, self.report = default_corpus(spec.name)
        self.model: LocationModel = cached_training(spec, self.posts, DATA)
        _, test, _ = split_train_test(len(self.posts), users=[p.user for p in self.posts])
        self.held_out = [self.posts[i] for i in test]

    def inferable_text(self) -> str:
        """The first held-out post whose top-cell probability is at or above the threshold."""
        threshold = self.model.threshold.value
        return next(p.text for p in self.held_out if self.model.infer(p.text).probabilities.max() >= threshold)


@pytest.fixture(scope="session")
def tokyo() -> Trained:
    return Trained(TOKYO)


@pytest.fixture(scope="session")
def midwest() -> Trained:
    return Trained(US_MIDWEST)


@pytest.fixture(scope="session", params=["tokyo", "midwest"])
def trained(request) -> Trained:
    return request.getfixturevalue(request.param)


@pytest.fixture
def midwest_model(midwest, settings, tmp_path):
    """The US default model alone, registered as bootstrap does (in a fresh MODEL_DIR), for a job that needs no
    other."""
    from anonymizer.location.web.services import register_location_model

    settings.MODEL_DIR = tmp_path / "models"
    return register_location_model(midwest.model, title=midwest.spec.title)


@pytest.fixture
def location_models(tokyo, midwest, settings, tmp_path):
    """Both default models registered (database rows + artifacts in a fresh MODEL_DIR), as bootstrap does."""
    from anonymizer.location.web.services import register_location_model

    settings.MODEL_DIR = tmp_path / "models"
    return {trained.spec.name: register_location_model(trained.model, title=trained.spec.title)
            for trained in (tokyo, midwest)}
