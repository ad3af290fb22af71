"""Kakurega settings, read from the environment only (every variable: docs/configuration.md).

The defaults make a laptop work with nothing but Python: SQLite and files under var/, an embedded Redis on
loopback. Production sets SECRET_KEY, ALLOWED_HOSTS, HTTPS_ONLY=true and usually DATABASE_URL / REDIS_URL.
"""

from __future__ import annotations

import os
import secrets
from datetime import timedelta
from pathlib import Path

import dj_database_url
from django.core.exceptions import ImproperlyConfigured

from anonymizer.share import default_var_dir, share_dir
from webapp.env import env_bool, env_float, env_int, env_list, env_str

BASE_DIR = Path(__file__).resolve().parent.parent
# What the app only reads (templates/, static/, data/, the manual's sources): the checkout's own folders, or the
# installed package's copy of them (anonymizer/share.py).
SHARE_DIR = share_dir()

DEBUG = env_bool("DEBUG", False)
# Every file a Kakurega process creates (database, uploads, results, models, the embedded Redis's append-only
# file, which it inherits) is readable by its own user only: they hold API tokens, sessions and users' data.
os.umask(0o077)
# Runtime state (database, uploads, models, embedded Redis) lives here, never in the source tree (nor in
# site-packages: an installed copy keeps it in ~/.local/share/kakurega).
VAR_DIR = Path(env_str("VAR_DIR", str(default_var_dir()))).resolve()
# Data shipped with the product (demo corpora with their provenance).
DATA_DIR = Path(env_str("DATA_DIR", str(SHARE_DIR / "data"))).resolve()
MODEL_DIR = Path(env_str("MODEL_DIR", str(VAR_DIR / "models"))).resolve()
MEDIA_ROOT = Path(env_str("MEDIA_ROOT", str(VAR_DIR / "media"))).resolve()
STATIC_ROOT = Path(env_str("STATIC_ROOT", str(VAR_DIR / "static"))).resolve()
# The manual (docs/) as built by `manage.py bootstrap`, served at /help/ (anonymizer/platform/help.py).
HELP_DIR = VAR_DIR / "help"
MEDIA_URL = "/media/"  # never served directly: downloads go through views that check the owner
STATIC_URL = "/static/"
STATICFILES_DIRS = [SHARE_DIR / "static"]

HTTPS_ONLY = env_bool("HTTPS_ONLY", False)


def _secret_key() -> str:
    key = env_str("SECRET_KEY", "")
    if key:
        if len(key) < 50 or len(set(key)) < 5:
            raise ImproperlyConfigured(
                "Environment variable SECRET_KEY is too weak: use at least 50 random characters."
            )
        return key
    if HTTPS_ONLY:
        raise ImproperlyConfigured("SECRET_KEY must be set when HTTPS_ONLY=true (production); every web and worker "
                                   "process must share the same key.")
    # Local use: one random key per checkout, kept under var/ so sessions survive restarts.
    path = VAR_DIR / "secret_key"
    if not path.exists():
        VAR_DIR.mkdir(parents=True, exist_ok=True)
        path.touch(mode=0o600)
        path.write_text(secrets.token_urlsafe(64))
    return path.read_text().strip()


SECRET_KEY = _secret_key()
ALLOWED_HOSTS = env_list("ALLOWED_HOSTS", ["localhost", "127.0.0.1", "[::1]"])
CSRF_TRUSTED_ORIGINS = env_list("CSRF_TRUSTED_ORIGINS", [])

if HTTPS_ONLY:
    SECURE_SSL_REDIRECT = True
    SESSION_COOKIE_SECURE = True
    CSRF_COOKIE_SECURE = True
    LANGUAGE_COOKIE_SECURE = True
    SECURE_HSTS_SECONDS = env_int("SECURE_HSTS_SECONDS", 31_536_000)
    SECURE_HSTS_INCLUDE_SUBDOMAINS = env_bool("SECURE_HSTS_INCLUDE_SUBDOMAINS", True)
    SECURE_HSTS_PRELOAD = env_bool("SECURE_HSTS_PRELOAD", True)
if env_bool("TRUST_X_FORWARDED_PROTO", False):
    # Only behind a proxy that sets the header itself; otherwise clients could spoof HTTPS.
    SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")
SECURE_CONTENT_TYPE_NOSNIFF = True
SECURE_REFERRER_POLICY = "same-origin"
X_FRAME_OPTIONS = "DENY"
SESSION_COOKIE_HTTPONLY = True

INSTALLED_APPS = [
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "whitenoise.runserver_nostatic",
    "django.contrib.staticfiles",
    "rest_framework",
    "rest_framework.authtoken",
    "drf_spectacular",
    "drf_spectacular_sidecar",
    "axes",
    "anonymizer",
]

MIDDLEWARE = [
    "django.middleware.security.SecurityMiddleware",
    # Under /api/ every error is JSON {"detail": ...}; too large bodies and too long query strings stop here.
    "anonymizer.platform.api_errors.ApiErrorMiddleware",
    "whitenoise.middleware.WhiteNoiseMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    # The language: the cookie of the header's switch, else the browser's Accept-Language (then, below, a signed-in
    # user's saved choice over both: anonymizer.platform.i18n).
    "django.middleware.locale.LocaleMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "anonymizer.platform.i18n.UserLanguageMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    "csp.middleware.CSPMiddleware",
    # Sign-in, token, sign-up and admin-login POSTs: a per-address rate first, then django-axes' lockout.
    "anonymizer.platform.throttles.AuthRateLimitMiddleware",
    "axes.middleware.AxesMiddleware",
]

ROOT_URLCONF = "webapp.urls"
WSGI_APPLICATION = "webapp.wsgi.application"
ASGI_APPLICATION = "webapp.asgi.application"

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [SHARE_DIR / "templates"],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
                "django.template.context_processors.i18n",
            ],
            # {% translate %} and {% blocktranslate %} in every template without a {% load i18n %}.
            "builtins": ["django.templatetags.i18n"],
            # Each room's template tags live in its own folder.
            "libraries": {
                "jobs": "anonymizer.platform.templatetags",
                "temporal_charts": "anonymizer.temporal.web.templatetags",
                "preference_charts": "anonymizer.preferences.web.templatetags",
            },
        },
    },
]


def _database() -> dict:
    url = env_str("DATABASE_URL", f"sqlite:///{VAR_DIR / 'db.sqlite3'}")
    try:
        config = dj_database_url.parse(url, conn_max_age=env_int("DATABASE_CONN_MAX_AGE", 60))
    except Exception as exc:  # dj-database-url raises several types for a malformed URL
        raise ImproperlyConfigured(
            f"Environment variable DATABASE_URL is invalid ({exc}); expected e.g. "
            "postgresql://user:password@host:5432/name or sqlite:////absolute/path.sqlite3."
        ) from exc
    if config["ENGINE"] == "django.db.backends.sqlite3":
        # The web server, the worker and its heartbeat thread write concurrently: WAL lets readers go on
        # while one writes, IMMEDIATE takes the write lock up front instead of failing on lock upgrade.
        config["CONN_MAX_AGE"] = 0
        config["OPTIONS"] = {"timeout": 30, "transaction_mode": "IMMEDIATE",
                             "init_command": "PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL;"}
        Path(config["NAME"]).parent.mkdir(parents=True, exist_ok=True)
        config["TEST"] = {"NAME": str(VAR_DIR / "test.sqlite3")}  # a file, so a real worker process can share it
    else:
        config["CONN_HEALTH_CHECKS"] = True
    return config


DATABASES = {"default": _database()}
DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.UserAttributeSimilarityValidator"},
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
    {"NAME": "django.contrib.auth.password_validation.NumericPasswordValidator"},
]
AUTHENTICATION_BACKENDS = [
    "axes.backends.AxesStandaloneBackend",  # refuses a locked-out sign-in before the password is checked
    "django.contrib.auth.backends.ModelBackend",
]
LOGIN_URL = "login"
LOGIN_REDIRECT_URL = "job-list"
LOGOUT_REDIRECT_URL = "home"

# The interface in English and Japanese (docs/languages.md). The catalogs' sources are in locale/,
# compiled into VAR_DIR/locale at start-up (anonymizer.platform.i18n).
LANGUAGE_CODE = "en"
LANGUAGES = [("en", "English"), ("ja", "日本語")]
LOCALE_SOURCE_DIR = SHARE_DIR / "locale"
LOCALE_PATHS = [VAR_DIR / "locale"]
# Dates by language (webapp/formats/<lang>/formats.py): ISO-like on English pages, 年月日 on Japanese ones.
FORMAT_MODULE_PATH = ["webapp.formats"]
LANGUAGE_COOKIE_SAMESITE = "Lax"
LANGUAGE_COOKIE_AGE = 365 * 24 * 3600
TIME_ZONE = "UTC"
USE_I18N = True
USE_TZ = True

STORAGES = {
    "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
    "staticfiles": {"BACKEND": "whitenoise.storage.CompressedManifestStaticFilesStorage"},
}
# In DEBUG, serve straight from static/ so no collectstatic is needed while editing.
WHITENOISE_USE_FINDERS = DEBUG
WHITENOISE_AUTOREFRESH = DEBUG

# Uploads: the limit is checked while the body streams in (anonymizer.platform.upload_limits), not after it is on disk.
UPLOAD_MAX_BYTES = env_int("UPLOAD_MAX_MB", 100, minimum=1) * 1024 * 1024
FILE_UPLOAD_MAX_MEMORY_SIZE = 2 * 1024 * 1024
FILE_UPLOAD_PERMISSIONS = 0o600
FILE_UPLOAD_DIRECTORY_PERMISSIONS = 0o700
FILE_UPLOAD_HANDLERS = [
    "anonymizer.platform.upload_limits.UploadSizeLimitHandler",
    "django.core.files.uploadhandler.MemoryFileUploadHandler",
    "django.core.files.uploadhandler.TemporaryFileUploadHandler",
]

# Redis is the Celery broker. Unset means the embedded redis-server started by `make run`.
EMBEDDED_REDIS_PORT = env_int("EMBEDDED_REDIS_PORT", 6390, minimum=1)
REDIS_URL = env_str("REDIS_URL", f"redis://127.0.0.1:{EMBEDDED_REDIS_PORT}/0")
if not REDIS_URL.startswith(("redis://", "rediss://", "unix://")):
    raise ImproperlyConfigured(f"Environment variable REDIS_URL={REDIS_URL!r} is invalid: expected redis://host:port/db.")

# The cache (rate limits) lives in the same Redis, so every web process counts the same requests.
# Every Redis round trip has a deadline: a Redis that hangs (stopped, overloaded, a dead link) makes a request
# fail within seconds instead of holding a web worker until gunicorn kills it.
REDIS_TIMEOUT_SECONDS = env_float("REDIS_TIMEOUT_SECONDS", 2.0, minimum=0.1)
CACHES = {"default": {"BACKEND": "django.core.cache.backends.redis.RedisCache", "LOCATION": REDIS_URL,
                      "KEY_PREFIX": "kakurega", "TIMEOUT": 300,
                      "OPTIONS": {"socket_timeout": REDIS_TIMEOUT_SECONDS / 2,
                                  "socket_connect_timeout": REDIS_TIMEOUT_SECONDS / 2}}}

CELERY_BROKER_URL = REDIS_URL
CELERY_BROKER_CONNECTION_RETRY_ON_STARTUP = True
CELERY_TASK_DEFAULT_QUEUE = env_str("CELERY_QUEUE", "kakurega")
CELERY_TASK_IGNORE_RESULT = True  # job state lives in the database, not in a result backend
CELERY_TASK_ACKS_LATE = True  # a message is acknowledged only after its job has ended
CELERY_TASK_REJECT_ON_WORKER_LOST = True
CELERY_WORKER_PREFETCH_MULTIPLIER = 1  # long jobs: do not hoard messages another worker could run
CELERY_TASK_SERIALIZER = "json"
CELERY_ACCEPT_CONTENT = ["json"]
CELERY_WORKER_HIJACK_ROOT_LOGGER = False
# Redis redelivers an unacknowledged message after this long; jobs are idempotent, so a redelivery
# of a job that already ended is a no-op.
CELERY_BROKER_TRANSPORT_OPTIONS = {"visibility_timeout": env_int("CELERY_VISIBILITY_TIMEOUT", 6 * 3600, minimum=60),
                                   "socket_timeout": REDIS_TIMEOUT_SECONDS,
                                   "socket_connect_timeout": REDIS_TIMEOUT_SECONDS}
CELERY_BROKER_CONNECTION_TIMEOUT = REDIS_TIMEOUT_SECONDS
# No job holds a worker forever: past the soft limit the job is stopped and failed with the reason; a job stuck
# in code that ignores the soft limit (a C extension) has its pool process killed JOB_KILL_GRACE_SECONDS later.
JOB_TIME_LIMIT_SECONDS = env_float("JOB_TIME_LIMIT_SECONDS", 4 * 3600.0, minimum=1.0)
JOB_KILL_GRACE_SECONDS = env_float("JOB_KILL_GRACE_SECONDS", 10.0, minimum=0.5)
CELERY_TASK_SOFT_TIME_LIMIT = JOB_TIME_LIMIT_SECONDS
CELERY_TASK_TIME_LIMIT = JOB_TIME_LIMIT_SECONDS + JOB_KILL_GRACE_SECONDS
if CELERY_TASK_TIME_LIMIT >= CELERY_BROKER_TRANSPORT_OPTIONS["visibility_timeout"]:
    raise ImproperlyConfigured(
        "JOB_TIME_LIMIT_SECONDS must stay below CELERY_VISIBILITY_TIMEOUT, or Redis would hand a job that is still "
        "running to a second worker."
    )

# A running job writes a heartbeat this often; one silent for JOB_STALE_AFTER_SECONDS lost its worker.
JOB_HEARTBEAT_SECONDS = env_float("JOB_HEARTBEAT_SECONDS", 10.0, minimum=0.1)
JOB_STALE_AFTER_SECONDS = env_float("JOB_STALE_AFTER_SECONDS", 60.0, minimum=0.5)
if JOB_STALE_AFTER_SECONDS < 2 * JOB_HEARTBEAT_SECONDS:
    raise ImproperlyConfigured(
        f"JOB_STALE_AFTER_SECONDS ({JOB_STALE_AFTER_SECONDS}) must be at least twice JOB_HEARTBEAT_SECONDS "
        f"({JOB_HEARTBEAT_SECONDS}), or healthy jobs would be declared lost."
    )
HEALTH_WORKER_TIMEOUT_SECONDS = env_float("HEALTH_WORKER_TIMEOUT_SECONDS", 1.5, minimum=0.1)
# The database and broker checks of /healthz each answer within this long (a hung server reports as down).
HEALTH_CHECK_SECONDS = env_float("HEALTH_CHECK_SECONDS", 1.5, minimum=0.1)
# Each worker's main process sweeps this often: it kills a pool process still working on a job that was
# cancelled or failed more than JOB_KILL_GRACE_SECONDS ago, fails jobs whose worker went silent, publishes
# again a job that has been queued JOB_REPUBLISH_AFTER_SECONDS with no message for it in the broker, and
# removes the scratch files of jobs that no longer run.
JOB_SWEEP_SECONDS = env_float("JOB_SWEEP_SECONDS", 5.0, minimum=0.1)
JOB_REPUBLISH_AFTER_SECONDS = env_float("JOB_REPUBLISH_AFTER_SECONDS", 120.0, minimum=1.0)
# A running job's temporary files, on its worker's own disk: removed when the job ends, when it is deleted, and
# by the sweep once the job no longer runs (a worker killed mid-job leaves them).
JOB_SCRATCH_DIR = Path(env_str("JOB_SCRATCH_DIR", str(VAR_DIR / "scratch"))).resolve()

# The inspect page and API: input limits and per-client rate limits ("N/second|minute|hour|day").
INSPECT_MAX_CHARS = env_int("INSPECT_MAX_CHARS", 2000, minimum=1)
INSPECT_MAX_BATCH = env_int("INSPECT_MAX_BATCH", 100, minimum=1)
INSPECT_MAX_M = env_int("INSPECT_MAX_M", 8, minimum=1)
INSPECT_RATE_ANON = env_str("INSPECT_RATE_ANON", "60/minute")
INSPECT_RATE_USER = env_str("INSPECT_RATE_USER", "600/minute")
# A request's inspection (every post of a batch, the report, time removal) stops at this deadline with a 503 that
# names it: well under gunicorn's WEB_TIMEOUT_SECONDS, which would kill the web process. Each web process runs
# COMPUTE_SLOTS inspections at a time (they are CPU-bound: more only share one interpreter); the others wait
# within their deadline, and its threads stay free for /healthz and the pages.
WEB_TIMEOUT_SECONDS = env_int("WEB_TIMEOUT_SECONDS", 30, minimum=5)
INSPECT_DEADLINE_SECONDS = env_float("INSPECT_DEADLINE_SECONDS", 10.0, minimum=0.01)
COMPUTE_SLOTS = env_int("COMPUTE_SLOTS", 1, minimum=1)
if INSPECT_DEADLINE_SECONDS > WEB_TIMEOUT_SECONDS / 2:
    raise ImproperlyConfigured(f"INSPECT_DEADLINE_SECONDS={INSPECT_DEADLINE_SECONDS:g} must be at most half of "
                               f"WEB_TIMEOUT_SECONDS={WEB_TIMEOUT_SECONDS} (the answer still has to be written).")
# Calibrating a location model's threshold from a strike-words campaign needs at least this many posts, each
# hand de-identified by at least this many participants who were not flagged (issue 20: ≥ 30 × ≥ 3).
CROWD_CALIBRATION_MIN_POSTS = env_int("CROWD_CALIBRATION_MIN_POSTS", 30, minimum=1)
CROWD_CALIBRATION_MIN_PARTICIPANTS = env_int("CROWD_CALIBRATION_MIN_PARTICIPANTS", 3, minimum=1)
# A campaign link flooded from one address must leave the others served (issue 42): joins per client address,
# and the open reservations one address may hold in a campaign, at most this many and this share of the
# answers it still needs.
CROWD_JOIN_RATE = env_str("CROWD_JOIN_RATE", "120/hour")
CROWD_ADDRESS_RESERVATIONS = env_int("CROWD_ADDRESS_RESERVATIONS", 20, minimum=1)
CROWD_ADDRESS_SHARE = env_float("CROWD_ADDRESS_SHARE", 0.2, minimum=0.001)
if CROWD_ADDRESS_SHARE > 1:
    raise ImproperlyConfigured(f"Environment variable CROWD_ADDRESS_SHARE={CROWD_ADDRESS_SHARE:g} is invalid: "
                               "expected a share from 0.001 to 1.")
# Sign-in, API-token, sign-up, admin-login, password-change and account-deletion attempts per client address
# (every outcome counts), and the lockout of one username from one address after LOGIN_FAILURE_LIMIT wrong
# passwords, at any of them (django-axes).
AUTH_RATE = env_str("AUTH_RATE", "30/hour")
LOGIN_FAILURE_LIMIT = env_int("LOGIN_FAILURE_LIMIT", 10, minimum=1)
LOGIN_LOCKOUT_MINUTES = env_int("LOGIN_LOCKOUT_MINUTES", 15, minimum=1)
# Location-privacy preferences (issue 17). The page keeps each person's ledger per model and refuses a
# contribution that would take them past PREFERENCE_LEDGER_EPSILON within PREFERENCE_LEDGER_DAYS; the server,
# which must not know who sends what, bounds what it can: the epsilon and the reports of one contribution and
# the contributions per client address (PREFERENCE_REPORT_RATE), and folds contributions into the model only
# PREFERENCE_MIN_CONTRIBUTIONS at a time or more.
PREFERENCE_LEDGER_EPSILON = env_float("PREFERENCE_LEDGER_EPSILON", 2.0, minimum=0.01)
PREFERENCE_LEDGER_DAYS = env_int("PREFERENCE_LEDGER_DAYS", 30, minimum=1)
PREFERENCE_MAX_EPSILON = env_float("PREFERENCE_MAX_EPSILON", PREFERENCE_LEDGER_EPSILON, minimum=0.01)
PREFERENCE_MAX_ROUNDS = env_int("PREFERENCE_MAX_ROUNDS", 50, minimum=1)
PREFERENCE_REPORT_RATE = env_str("PREFERENCE_REPORT_RATE", "10/hour")
PREFERENCE_MIN_CONTRIBUTIONS = env_int("PREFERENCE_MIN_CONTRIBUTIONS", 20, minimum=1)
if PREFERENCE_MAX_EPSILON > PREFERENCE_LEDGER_EPSILON:
    raise ImproperlyConfigured(f"PREFERENCE_MAX_EPSILON={PREFERENCE_MAX_EPSILON:g} is more than a person's whole "
                               f"budget PREFERENCE_LEDGER_EPSILON={PREFERENCE_LEDGER_EPSILON:g}.")
for _name, _rate in (("INSPECT_RATE_ANON", INSPECT_RATE_ANON), ("INSPECT_RATE_USER", INSPECT_RATE_USER),
                     ("AUTH_RATE", AUTH_RATE), ("CROWD_JOIN_RATE", CROWD_JOIN_RATE),
                     ("PREFERENCE_REPORT_RATE", PREFERENCE_REPORT_RATE)):
    _count, _, _period = _rate.partition("/")
    if not _count.isdigit() or _period[:1] not in {"s", "m", "h", "d"}:
        raise ImproperlyConfigured(f"Environment variable {_name}={_rate!r} is invalid: expected e.g. 60/minute.")
# A job's texts are split into parts of about this many bytes of its file, which any worker takes (fan-out).
JOB_CHUNK_BYTES = env_int("JOB_CHUNK_BYTES", 512 * 1024, minimum=1)
# k-anonymization: sensitive-term recognition results are cached in the database (by text and configuration),
# so a re-run with another k or lambda skips the NLP; NER processes per job (each loads the spaCy model).
KANON_NER_PROCESSES = env_int("KANON_NER_PROCESSES", 1, minimum=1)
# Largest configuration (YAML / JSON text or file) accepted, in bytes; refused before it is parsed.
KANON_CONFIG_MAX_BYTES = env_int("KANON_CONFIG_MAX_BYTES", 256 * 1024, minimum=1024)
# Time tagging with spaCy's DATE/TIME entities as well as the lexicon: more recall, about 40% of the speed.
TEMPORAL_USE_NER = env_bool("TEMPORAL_USE_NER", True)
# CSV exports: a cell starting with = + - @ (not a plain number) gets a ' in front, so spreadsheets show it as text.
CSV_NEUTRALIZE_FORMULAS = env_bool("CSV_NEUTRALIZE_FORMULAS", True)

# Background map tiles for the inspect maps, e.g. http://localhost:8080/{z}/{x}/{y}.png; empty = none (offline).
MAP_TILE_URL = env_str("MAP_TILE_URL", "")
MAP_TILE_ATTRIBUTION = env_str("MAP_TILE_ATTRIBUTION", "")

# A client's address is REMOTE_ADDR unless Kakurega runs behind this many reverse proxies that each append the
# address they saw to X-Forwarded-For; then it is that header's entry this many places from the right. The
# default trusts no proxy: a header a client sends itself must not give it a new identity per request.
TRUSTED_PROXY_COUNT = env_int("TRUSTED_PROXY_COUNT", 0, minimum=0)

AXES_FAILURE_LIMIT = LOGIN_FAILURE_LIMIT
AXES_COOLOFF_TIME = timedelta(minutes=LOGIN_LOCKOUT_MINUTES)
# One username from one address: a stranger cannot lock a user out from elsewhere; guessing across many
# usernames from one address is stopped by AUTH_RATE.
AXES_LOCKOUT_PARAMETERS = [["username", "ip_address"]]
AXES_CLIENT_IP_CALLABLE = "anonymizer.platform.throttles.client_address"
AXES_RESET_ON_SUCCESS = True
AXES_LOCKOUT_CALLABLE = "anonymizer.platform.throttles.lockout_response"
AXES_VERBOSE = False

# Content-Security-Policy (django-csp): only the app's own scripts, styles and images, plus the map tile
# server when one is configured. The API docs pages relax style-src for their inline styles (webapp/urls.py).
_TILE_ORIGIN = "/".join(MAP_TILE_URL.split("/")[:3]) if MAP_TILE_URL.startswith(("http://", "https://")) else ""
CONTENT_SECURITY_POLICY = {
    "DIRECTIVES": {
        "default-src": ["'self'"],
        "script-src": ["'self'"],
        "style-src": ["'self'"],
        "img-src": ["'self'", "data:", *([_TILE_ORIGIN] if _TILE_ORIGIN else [])],
        "font-src": ["'self'"],
        "connect-src": ["'self'"],
        "object-src": ["'none'"],
        "base-uri": ["'self'"],
        "form-action": ["'self'"],
        "frame-ancestors": ["'none'"],
    },
}

REST_FRAMEWORK = {
    "DEFAULT_AUTHENTICATION_CLASSES": [
        "rest_framework.authentication.SessionAuthentication",
        "rest_framework.authentication.TokenAuthentication",
    ],
    "DEFAULT_PERMISSION_CLASSES": ["rest_framework.permissions.IsAuthenticated"],
    # JSON only, of a bounded depth (the uploads and the token endpoint take forms too): anonymizer.platform.api_input.
    "DEFAULT_PARSER_CLASSES": ["anonymizer.platform.api_input.BoundedJSONParser"],
    "DEFAULT_SCHEMA_CLASS": "anonymizer.platform.api_schema.AutoSchema",
    "DEFAULT_PAGINATION_CLASS": "anonymizer.platform.api_input.StrictPageNumberPagination",
    # {"detail": ...} errors get their stable code beside the (translated) detail: anonymizer.platform.api_errors.
    "EXCEPTION_HANDLER": "anonymizer.platform.api_errors.exception_handler",
    "PAGE_SIZE": 50,
    "NUM_PROXIES": TRUSTED_PROXY_COUNT,
}
SPECTACULAR_SETTINGS = {
    "TITLE": "Kakurega API",
    "DESCRIPTION": "Find what in a post or a dataset gives a person away, and remove just enough of it.",
    "VERSION": "1",
    "SERVE_INCLUDE_SCHEMA": False,
    "COMPONENT_SPLIT_REQUEST": True,
    # Swagger UI and ReDoc from the installed sidecar package, not a CDN: the docs work offline.
    "SWAGGER_UI_DIST": "SIDECAR",
    "SWAGGER_UI_FAVICON_HREF": "SIDECAR",
    "REDOC_DIST": "SIDECAR",
    "ENUM_NAME_OVERRIDES": {"JobStatusEnum": "anonymizer.models.Job.Status",
                            "CampaignStatusEnum": "anonymizer.models.Campaign.Status"},
}

LOG_LEVEL = env_str("LOG_LEVEL", "INFO").upper()
if LOG_LEVEL not in {"DEBUG", "INFO", "WARNING", "ERROR", "CRITICAL"}:
    raise ImproperlyConfigured(f"Environment variable LOG_LEVEL={LOG_LEVEL!r} is invalid: expected DEBUG, INFO, "
                               "WARNING, ERROR or CRITICAL.")
LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "formatters": {"plain": {"format": "%(asctime)s %(levelname)s %(name)s: %(message)s"}},
    "handlers": {"console": {"class": "logging.StreamHandler", "formatter": "plain"}},
    "root": {"handlers": ["console"], "level": LOG_LEVEL},
    # django-axes logs every successful sign-in at INFO; failures and lockouts (WARNING) are what matters.
    "loggers": {"axes": {"level": "WARNING"}},
}
