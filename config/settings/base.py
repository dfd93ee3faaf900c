"""Settings shared by every environment.

Every environment variable the project reads is read here, through django-environ, with its
default. The README's configuration table lists them. Without ``DATABASE_URL`` / ``REDIS_URL``
the project runs embedded: SQLite, an in-memory channel layer, a local-memory cache and Celery in
eager mode, so ``make demo`` needs nothing but Python.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import environ
from kombu import Queue

BASE_DIR = Path(__file__).resolve().parent.parent.parent

env = environ.Env()
env.read_env(str(BASE_DIR / ".env"), overwrite=False) if (BASE_DIR / ".env").exists() else None

# --- Core -------------------------------------------------------------------------------------
SECRET_KEY = env.str(
    "DJANGO_SECRET_KEY", default="dev-insecure-key-change-me-in-production-0123456789"
)
DEBUG = env.bool("DJANGO_DEBUG", default=False)
ALLOWED_HOSTS: list[str] = env.list("DJANGO_ALLOWED_HOSTS", default=["127.0.0.1", "localhost"])
CSRF_TRUSTED_ORIGINS: list[str] = env.list("DJANGO_CSRF_TRUSTED_ORIGINS", default=[])
SITE_URL = env.str("SITE_URL", default="http://127.0.0.1:8000")

# daphne (the development server's websockets) is added by config.settings.local only: it is
# not installed in the production image (requirements/prod.txt).
INSTALLED_APPS = [
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "django.contrib.staticfiles",
    "rest_framework",
    "rest_framework.authtoken",
    "drf_spectacular",
    "drf_spectacular_sidecar",
    "channels",
    "core",
    "tournament",
    "scoring",
    "ratings",
    "brackets",
    "live",
    "circuits",
    "notify",
    "archive",
    "axes",
]

MIDDLEWARE = [
    # First: the request id (X-Request-ID from nginx, else a new one) is set before anything
    # logs, and the metrics middleware times the whole request (core/observability.py).
    "core.observability.RequestIdMiddleware",
    "core.observability.MetricsMiddleware",
    "django.middleware.security.SecurityMiddleware",
    # Oversized bodies (413) and NUL/lone surrogates in the path, query or cookies (400), before
    # anything reads them (core.request_limits).
    "core.request_limits.RequestLimitsMiddleware",
    "csp.middleware.CSPMiddleware",
    "django_permissions_policy.PermissionsPolicyMiddleware",
    "whitenoise.middleware.WhiteNoiseMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    # Answers to a request with a session cookie or an Authorization header are not kept by
    # browsers or proxies unless the view chose its own Cache-Control (core.private_responses).
    # Inside WhiteNoise (static files keep their own headers), outside everything that answers
    # for a view (CSRF refusals, the axes lockout, LocaleMiddleware's redirects).
    "core.private_responses.PrivateResponsesMiddleware",
    "django.middleware.locale.LocaleMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    # Last, as django-axes asks: it turns a locked-out login into its 429 answer.
    "axes.middleware.AxesMiddleware",
]

ROOT_URLCONF = "config.urls"
WSGI_APPLICATION = "config.wsgi.application"
ASGI_APPLICATION = "config.asgi.application"

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [BASE_DIR / "templates"],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.debug",
                "django.template.context_processors.request",
                "django.template.context_processors.i18n",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
            ],
        },
    },
]

# --- Database ---------------------------------------------------------------------------------
# An empty DATABASE_URL (as a shell leaves after ``DATABASE_URL=``) means unset: the embedded
# SQLite default, not a database with no engine.
DATABASES = {
    "default": env.db_url_config(
        env.str("DATABASE_URL", default="") or f"sqlite:///{BASE_DIR / 'db.sqlite3'}"
    ),
}
DATABASES["default"]["ATOMIC_REQUESTS"] = False
DATABASES["default"]["CONN_MAX_AGE"] = env.int("DATABASE_CONN_MAX_AGE", default=60)
DATABASES["default"]["CONN_HEALTH_CHECKS"] = True


def enable_prepared_statements(database: dict[str, Any]) -> None:
    """Let psycopg prepare statements on a PostgreSQL connection (Django disables them).

    Only ``core.sql.prepared_cursor`` asks for it (the hand-recording hot path); Django's
    own cursors bind client-side and never prepare. Turn off with
    ``DATABASE_PREPARED_STATEMENTS=false`` behind a pooler that shares server connections
    between clients without supporting prepared statements (PgBouncer in transaction mode
    before 1.21).
    """
    if database["ENGINE"].endswith("postgresql") and env.bool(
        "DATABASE_PREPARED_STATEMENTS", default=True
    ):
        database.setdefault("OPTIONS", {})["prepare_threshold"] = 5  # psycopg's default


enable_prepared_statements(DATABASES["default"])


def embedded_sqlite(database: dict[str, Any]) -> None:
    """SQLite as the embedded default serves several phones at once (``make demo``: the
    development server answers each request in its own thread, with its own connection).

    Writers take the lock when their transaction starts (``IMMEDIATE``) and wait for it up to
    ``timeout`` seconds: with SQLite's default deferred transactions, a transaction that read
    and then writes while another one writes fails at once with "database is locked" (no
    wait: SQLite refuses to deadlock), which two referees recording at the same moment hit.
    Write-ahead logging lets the spectators' reads go on while a hand is written.
    """
    if database["ENGINE"].endswith("sqlite3"):
        database.setdefault("OPTIONS", {}).update(
            {
                "timeout": 20,
                "transaction_mode": "IMMEDIATE",
                "init_command": "PRAGMA journal_mode=WAL;",
            }
        )


embedded_sqlite(DATABASES["default"])
DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

# --- Redis: cache, Celery broker, channel layer -----------------------------------------------
REDIS_URL: str | None = env.str("REDIS_URL", default="") or None
# One Redis per role when they are split (docs/operations.md): each falls back to REDIS_URL.
CACHE_REDIS_URL: str | None = env.str("CACHE_REDIS_URL", default="") or REDIS_URL
CHANNEL_REDIS_URL: str | None = env.str("CHANNEL_REDIS_URL", default="") or REDIS_URL

if CACHE_REDIS_URL:
    CACHES: dict[str, Any] = {
        "default": {
            # Django's Redis cache, keeping one client object per pool (core.redis_cache).
            "BACKEND": "core.redis_cache.ReusedClientRedisCache",
            "LOCATION": CACHE_REDIS_URL,
            "KEY_PREFIX": env.str("CACHE_KEY_PREFIX", default="ct"),
            "TIMEOUT": 3600,
        }
    }
    # Sessions (referees' phones, directors) are read from Redis on every request and written
    # through to the database, so a Redis restart signs nobody out.
    SESSION_ENGINE = "django.contrib.sessions.backends.cached_db"
else:
    CACHES = {"default": {"BACKEND": "django.core.cache.backends.locmem.LocMemCache"}}

if CHANNEL_REDIS_URL:
    # PITFALLS.md: channels-redis' async pool defaults to 100 connections and raises when full;
    # size it for thousands of sockets. Capacity/expiry set deliberately; the layer is
    # at-most-once, so events carry a version and clients re-fetch on a gap.
    CHANNEL_LAYERS: dict[str, Any] = {
        "default": {
            "BACKEND": "channels_redis.core.RedisChannelLayer",
            "CONFIG": {
                "hosts": [
                    {
                        "address": CHANNEL_REDIS_URL,
                        "max_connections": env.int("CHANNEL_REDIS_MAX_CONNECTIONS", default=4000),
                        # redis-py 8 reads with a 5 s socket timeout, the same 5 s that
                        # channels-redis blocks in BZPOPMIN on an idle channel: the read timed
                        # out and killed consumers (bench/bench_live.py). Longer than the poll.
                        "socket_timeout": 15,
                    }
                ],
                "capacity": env.int("CHANNEL_CAPACITY", default=1000),
                "expiry": 30,
                "group_expiry": 86400,
                "prefix": env.str("CHANNEL_PREFIX", default="ct-asgi"),
            },
        }
    }
else:
    CHANNEL_LAYERS = {"default": {"BACKEND": "channels.layers.InMemoryChannelLayer"}}

# --- Celery -----------------------------------------------------------------------------------
CELERY_BROKER_URL = env.str("CELERY_BROKER_URL", default=REDIS_URL or "memory://localhost/")
CELERY_RESULT_BACKEND = env.str("CELERY_RESULT_BACKEND", default=REDIS_URL or "cache+memory://")
# Embedded default: no broker, tasks run in-process (eager).
CELERY_TASK_ALWAYS_EAGER = env.bool(
    "CELERY_TASK_ALWAYS_EAGER", default=CELERY_BROKER_URL.startswith("memory://")
)
CELERY_TASK_EAGER_PROPAGATES = True
CELERY_ACCEPT_CONTENT = ["json"]
CELERY_TASK_SERIALIZER = "json"
CELERY_RESULT_SERIALIZER = "json"
CELERY_TIMEZONE = "UTC"
# PITFALLS.md: acks_late alone loses a task when a worker child dies; reject_on_worker_lost
# redelivers it, so every task is idempotent.
CELERY_TASK_ACKS_LATE = True
CELERY_TASK_REJECT_ON_WORKER_LOST = True
CELERY_TASK_TIME_LIMIT = env.int("CELERY_TASK_TIME_LIMIT", default=120)
CELERY_TASK_SOFT_TIME_LIMIT = env.int("CELERY_TASK_SOFT_TIME_LIMIT", default=100)
CELERY_WORKER_PREFETCH_MULTIPLIER = 1
# Advancing a round (the next round for the whole hall) has a queue of its own, so it never
# waits behind a backlog of cache warms and e-mails in the default one (bench/bench_rounds.py:
# the first advance after a worker started waited 8 s behind the warms of earlier rounds).
# Every worker consumes both (no -Q needed); the broker is polled over both in turn, so a
# round check waits for one free worker child at most, not for the backlog. A cache warm
# runs in steps of a fraction of a second (live.tasks), so a child frees up quickly: whole
# warms of other events' rounds (1.3-3.4 s each) kept both children busy and put the next
# round 2-3 s late.
CELERY_TASK_QUEUES = (Queue("rounds"), Queue("celery"))
CELERY_TASK_ROUTES = {
    "brackets.round_check": {"queue": "rounds"},
    "brackets.rounds_reconcile": {"queue": "rounds"},
}
CELERY_BROKER_TRANSPORT_OPTIONS = {
    # Above the longest task (time limit 120 s), and restored quickly after a worker dies.
    "visibility_timeout": env.int("CELERY_VISIBILITY_TIMEOUT", default=300),
    "unacked_restore_interval": 5,
}
CELERY_RESULT_EXPIRES = 3600
# The worker logs through LOGGING below (JSON, request id), not Celery's own root handler.
CELERY_WORKER_HIJACK_ROOT_LOGGER = False
CELERY_BEAT_SCHEDULE: dict[str, Any] = {
    # A finished round whose advancement task was lost (crash between commit and publish,
    # PITFALLS.md) is advanced by this sweep; advancement is idempotent so both paths are safe.
    "brackets-reconcile": {"task": "brackets.rounds_reconcile", "schedule": 60},
    # Likewise for ratings: a match whose rating update was lost is rated by this sweep.
    "ratings-reconcile": {"task": "ratings.ratings_reconcile", "schedule": 300},
    # Webhook outbox (notify/services.py): send every pending delivery that is due (a lost
    # message, a killed worker, a long backoff), and write the rows of events whose handler
    # never ran.
    "webhooks-sweep": {"task": "notify.webhooks_sweep", "schedule": 15},
    "webhooks-backfill": {"task": "notify.webhooks_backfill", "schedule": 300},
    "webhooks-prune": {"task": "notify.webhooks_prune", "schedule": 86400},
}
# Beat singleton (deploy/scripts/start-beat.sh runs redbeat.RedBeatScheduler): the schedule
# lives in Redis and a beat holds the lock ``redbeat::lock``; a second beat waits for it, and
# takes over within CELERY_REDBEAT_LOCK_TIMEOUT seconds when the first dies.
CELERY_REDBEAT_REDIS_URL = env.str("CELERY_REDBEAT_REDIS_URL", default=CELERY_BROKER_URL)
CELERY_REDBEAT_KEY_PREFIX = env.str("CELERY_REDBEAT_KEY_PREFIX", default="redbeat")
CELERY_REDBEAT_LOCK_TIMEOUT = env.int("CELERY_REDBEAT_LOCK_TIMEOUT", default=90)
CELERY_BEAT_MAX_LOOP_INTERVAL = 5

# --- Webhooks and e-mail (notify/, docs/webhooks.md) -------------------------------------------
# Loopback, private and reserved addresses are refused as webhook targets (SSRF) unless this
# is set: a closed venue network, and the tests' local receiver.
WEBHOOK_ALLOW_PRIVATE_TARGETS = env.bool("WEBHOOK_ALLOW_PRIVATE_TARGETS", default=False)
WEBHOOK_TIMEOUT_SECONDS = env.float("WEBHOOK_TIMEOUT_SECONDS", default=10)
# A sender's lease on a delivery row: longer than connect + read time-outs.
WEBHOOK_LEASE_SECONDS = env.float("WEBHOOK_LEASE_SECONDS", default=60)
WEBHOOK_MAX_ATTEMPTS = env.int("WEBHOOK_MAX_ATTEMPTS", default=8)
WEBHOOK_RETRY_BASE_SECONDS = env.float("WEBHOOK_RETRY_BASE_SECONDS", default=10)
WEBHOOK_RETRY_MAX_SECONDS = env.float("WEBHOOK_RETRY_MAX_SECONDS", default=3600)
# Retries due within this many seconds go back to the broker with a countdown; later ones are
# sent by the sweep (no long ETA messages: they outlive the visibility timeout).
WEBHOOK_RETRY_INLINE_MAX_SECONDS = env.float("WEBHOOK_RETRY_INLINE_MAX_SECONDS", default=60)
WEBHOOK_BACKFILL_HOURS = env.float("WEBHOOK_BACKFILL_HOURS", default=6)
# Delivered and cancelled rows of the delivery log are deleted after this many days (daily).
WEBHOOK_LOG_DAYS = env.float("WEBHOOK_LOG_DAYS", default=30)
NOTIFY_TASK_QUEUE = env.str("NOTIFY_TASK_QUEUE", default="")
# Django's mail backends: EMAIL_URL (smtp://user:password@host:587/?tls=True, or
# consolemail://) and the sender address.
_email = env.email_url("EMAIL_URL", default="consolemail://")
EMAIL_BACKEND = _email["EMAIL_BACKEND"]
EMAIL_HOST = _email.get("EMAIL_HOST") or "localhost"
EMAIL_PORT = _email.get("EMAIL_PORT") or 25
EMAIL_HOST_USER = _email.get("EMAIL_HOST_USER") or ""
EMAIL_HOST_PASSWORD = _email.get("EMAIL_HOST_PASSWORD") or ""
EMAIL_USE_TLS = bool(_email.get("EMAIL_USE_TLS", False))
EMAIL_USE_SSL = bool(_email.get("EMAIL_USE_SSL", False))
DEFAULT_FROM_EMAIL = env.str("DEFAULT_FROM_EMAIL", default="tournament@localhost")
EMAIL_TIMEOUT = env.int("EMAIL_TIMEOUT", default=10)

# --- Auth, i18n, static -----------------------------------------------------------------------
AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.UserAttributeSimilarityValidator"},
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
    {"NAME": "django.contrib.auth.password_validation.NumericPasswordValidator"},
]
AUTHENTICATION_BACKENDS = [
    # First, as django-axes asks: refuses a locked-out username+address before checking a password.
    "core.login_throttle.LoginThrottleBackend",
    "django.contrib.auth.backends.ModelBackend",
]
# A CSRF failure under /api/ answers the API's JSON error shape (core.api.outside_drf).
CSRF_FAILURE_VIEW = "core.api.outside_drf.csrf_failure"
LOGIN_URL = "login"
LOGIN_REDIRECT_URL = "tournament:director-home"  # who signs in runs events (referees use links)
# A signed-in account's cookie lasts until the browser closes (docs/security.md): a director
# on a shared laptop at a venue expects closing the browser to sign them out. Server side a
# session still ends SESSION_COOKIE_AGE (Django's 14 days) after its last change. A referee
# link session keeps its cookie for that long (tournament.views.referee_link): the phone must
# not lose its table when the browser is closed mid-match, and the credential behind it is
# re-checked on every request and dies with revocation or the tournament's finish.
SESSION_EXPIRE_AT_BROWSER_CLOSE = True
LOGOUT_REDIRECT_URL = "home"

LANGUAGE_CODE = "en"
LANGUAGES = [("en", "English"), ("es", "Español")]
LOCALE_PATHS = [BASE_DIR / "locale"]
TIME_ZONE = env.str("TIME_ZONE", default="UTC")
USE_I18N = True
USE_TZ = True

STATIC_URL = "/static/"
STATIC_ROOT = BASE_DIR / "staticfiles"
STATICFILES_DIRS = [BASE_DIR / "static"]
STORAGES = {
    "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
    "staticfiles": {"BACKEND": "whitenoise.storage.CompressedStaticFilesStorage"},
}

# --- API --------------------------------------------------------------------------------------
REST_FRAMEWORK = {
    "DEFAULT_AUTHENTICATION_CLASSES": [
        "rest_framework.authentication.SessionAuthentication",
    ],
    "DEFAULT_PERMISSION_CLASSES": ["rest_framework.permissions.IsAuthenticatedOrReadOnly"],
    "DEFAULT_SCHEMA_CLASS": "core.api.schema.AutoSchema",
    "EXCEPTION_HANDLER": "core.api.exception_handler.api_exception_handler",
    # core.request_limits: bounded size and depth, no NUL or lone surrogate (400/413, not 500).
    # JSON only (issue 20): one content type per body, so a generated client sends each body
    # once. No API operation uploads a file (the players CSV import is a page, not the API).
    "DEFAULT_PARSER_CLASSES": ["core.request_limits.SafeJSONParser"],
    # The version is in the path: /api/v1/, /api/v2/, and /api/ as an alias of v1; responses
    # are written as their version (core.api.versioning, docs/api-changelog.md).
    "DEFAULT_VERSIONING_CLASS": "core.api.versioning.PathVersioning",
    "DEFAULT_RENDERER_CLASSES": [
        "core.api.versioning.VersionedJSONRenderer",
        "rest_framework.renderers.BrowsableAPIRenderer",
    ],
    "DEFAULT_PAGINATION_CLASS": "rest_framework.pagination.LimitOffsetPagination",
    "PAGE_SIZE": 100,
}
SPECTACULAR_SETTINGS = {
    "TITLE": "Cut-Throat Dominoes Tournament API",
    "DESCRIPTION": "Tournaments, matches, hands, brackets and live standings. Rules: RULES.md.",
    "VERSION": "1.0.0",
    "SERVE_INCLUDE_SCHEMA": False,
    "COMPONENT_SPLIT_REQUEST": True,
    # One schema per version (core.api.versioning): versioned paths only, info.version its
    # release. Operation ids and tags leave out the /api/vN/ prefix.
    "SCHEMA_PATH_PREFIX": r"/api/(?:v[0-9]+/)?",
    "PREPROCESSING_HOOKS": ["core.api.versioning.versioned_paths_only"],
    "POSTPROCESSING_HOOKS": [
        "drf_spectacular.hooks.postprocess_schema_enums",
        "core.api.versioning.set_release",
    ],
    "ENUM_NAME_OVERRIDES": {
        "TournamentStatusEnum": "tournament.models.Tournament.Status",
        "EntryStatusEnum": "tournament.models.Entry.Status",
        "MatchStatusEnum": "scoring.models.Match.Status",
        "HandEndEnum": "scoring.models.Hand.End",
        "HandRecordEndEnum": ["domino", "block"],
        "StageKindEnum": "brackets.models.Stage.Kind",
        "StageStatusEnum": "brackets.models.Stage.Status",
        "StageEntryStatusEnum": "brackets.models.StageEntry.Status",
        "RoundKindEnum": "brackets.models.Round.Kind",
        "RoundStatusEnum": "brackets.models.Round.Status",
        # The presets of RULES.md §1, from the engine (tournament.api.rulesets).
        "RulesetPresetEnum": "tournament.api.rulesets.PRESET_NAMES",
        # Who recorded / voided a hand, as a role (scoring.api.serializers).
        "RecorderRoleEnum": "scoring.api.serializers.RECORDER_ROLES",
    },
    # Served from our own static files: the docs page must work on a venue network offline.
    "SWAGGER_UI_DIST": "SIDECAR",
    "SWAGGER_UI_FAVICON_HREF": "SIDECAR",
    "REDOC_DIST": "SIDECAR",
}

# Logs: one JSON object per line with LOG_FORMAT=json (the deploy env files set it), else plain
# text. Every record carries the request id (core.observability): the id nginx sends as
# X-Request-ID follows a hand from its request to the broadcast and the Celery tasks it queues.
LOG_FORMAT = env.str("LOG_FORMAT", default="plain")
LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "filters": {
        "request_id": {"()": "core.observability.RequestIdFilter"},
        # core.log_hygiene: referee link keys, Authorization values and cookies never reach a log.
        "redact_secrets": {"()": "core.log_hygiene.RedactSecretsFilter"},
        # A 4xx answer is one WARNING line, without a traceback (core.log_hygiene).
        "client_errors": {"()": "core.log_hygiene.ClientErrorFilter"},
    },
    "formatters": {
        "plain": {"format": "%(asctime)s %(levelname)s %(name)s [%(request_id)s] %(message)s"},
        "json": {
            "()": "pythonjsonlogger.json.JsonFormatter",
            "fmt": "%(asctime)s %(levelname)s %(name)s %(request_id)s %(message)s",
            "rename_fields": {"asctime": "time", "levelname": "level", "name": "logger"},
        },
    },
    "handlers": {
        "console": {
            "class": "logging.StreamHandler",
            "formatter": "json" if LOG_FORMAT == "json" else "plain",
            "filters": ["request_id", "redact_secrets"],
        }
    },
    "root": {"handlers": ["console"], "level": env.str("LOG_LEVEL", default="INFO")},
    "loggers": {
        # Configured here so dictConfig drops the handlers of Django's default logging (its
        # own console under DEBUG, mail_admins without ADMINS): every record of Django goes to
        # the console above once, through the root, instead of twice in `make demo`.
        "django": {"level": "INFO", "handlers": [], "propagate": True},
        "django.request": {"filters": ["client_errors"]},
        "django.db.backends": {"level": "WARNING"},
        "axes": {"level": "WARNING"},
    },
}

DEFAULT_EXCEPTION_REPORTER_FILTER = "core.log_hygiene.SafeExceptionReporterFilter"

# --- Observability (core/observability.py, docs/operations.md) ---------------------------------
# /metrics (Prometheus text format) answers only with ``Authorization: Bearer <METRICS_TOKEN>``;
# without a token it answers 404. nginx also refuses /metrics from outside (deploy/nginx).
METRICS_TOKEN = env.str("METRICS_TOKEN", default="")
# Error reporting: only when SENTRY_DSN is set (sentry-sdk; no personal data is sent).
SENTRY_DSN = env.str("SENTRY_DSN", default="")
if SENTRY_DSN:
    import sentry_sdk

    sentry_sdk.init(
        dsn=SENTRY_DSN,
        environment=env.str("SENTRY_ENVIRONMENT", default="production"),
        traces_sample_rate=env.float("SENTRY_TRACES_SAMPLE_RATE", default=0.0),
        send_default_pii=False,
    )

# Referee tokens: failed lookups per client address per window (PITFALLS.md: atomic counter).
REFEREE_TOKEN_MAX_FAILURES = env.int("REFEREE_TOKEN_MAX_FAILURES", default=20)
REFEREE_TOKEN_FAILURE_WINDOW = env.int("REFEREE_TOKEN_FAILURE_WINDOW", default=300)
# A co-director invitation (/invite/#<key>, docs/security.md) works for this many days, once.
DIRECTOR_INVITATION_DAYS = env.int("DIRECTOR_INVITATION_DAYS", default=7)
# Reverse proxies in front of the app that append to X-Forwarded-For (django-ipware). 0: the
# header is ignored and REMOTE_ADDR is the client (talking to the app directly cannot spoof
# it); 1 behind the shipped nginx. docs/security.md.
TRUSTED_PROXY_COUNT = env.int("TRUSTED_PROXY_COUNT", default=0)
# Live pushes: a web process sends the first event of a quiet spell at once and gathers what
# follows within this many milliseconds into one channel layer message per group
# (core.broadcast): far below what a spectator notices, and a busy tournament's hands cost a few
# sends per second instead of one each.
LIVE_BROADCAST_LINGER_MS = env.int("LIVE_BROADCAST_LINGER_MS", default=50)
# Live bodies (immutable per tournament version) each process keeps after reading them from the
# shared cache, in MB (live.cache.LocalBodies); 0 turns the local copies off.
LIVE_LOCAL_CACHE_MB = env.float("LIVE_LOCAL_CACHE_MB", default=64)

# --- Input limits (core.request_limits) -------------------------------------------------------
# A request body above this many bytes is refused with 413 before it is read; Django's own form
# parsing uses the same bound. Player CSV imports are capped lower (brackets.csv_import).
REQUEST_BODY_MAX_BYTES = env.int("REQUEST_BODY_MAX_BYTES", default=2_621_440)
DATA_UPLOAD_MAX_MEMORY_SIZE = REQUEST_BODY_MAX_BYTES
DATA_UPLOAD_MAX_NUMBER_FIELDS = env.int("DATA_UPLOAD_MAX_NUMBER_FIELDS", default=2000)
# JSON bodies nested deeper than this are refused with 400 (no request needs more than ~4).
API_JSON_MAX_DEPTH = env.int("API_JSON_MAX_DEPTH", default=32)

# --- Security headers -------------------------------------------------------------------------
# Content-Security-Policy (django-csp): scripts and styles only from our own static files, no
# inline script, style or handler anywhere (templates/ has none; keep it so). Websockets are
# same-origin ('self' covers ws:/wss: of this host). CSP_REPORT_ONLY=true sends it as
# Content-Security-Policy-Report-Only instead (to try a change on a live site).
_CSP_DIRECTIVES: dict[str, list[str]] = {
    "default-src": ["'self'"],
    "script-src": ["'self'"],
    "style-src": ["'self'"],
    "img-src": ["'self'", "data:"],
    "font-src": ["'self'"],
    "connect-src": ["'self'", *env.list("CSP_CONNECT_SRC_EXTRA", default=[])],
    "object-src": ["'none'"],
    "base-uri": ["'self'"],
    "form-action": ["'self'"],
    "frame-ancestors": ["'none'"],
}
if env.str("CSP_REPORT_URI", default=""):
    _CSP_DIRECTIVES["report-uri"] = [env.str("CSP_REPORT_URI")]
if env.bool("CSP_REPORT_ONLY", default=False):
    CONTENT_SECURITY_POLICY_REPORT_ONLY: dict[str, Any] = {"DIRECTIVES": _CSP_DIRECTIVES}
else:
    CONTENT_SECURITY_POLICY: dict[str, Any] = {"DIRECTIVES": _CSP_DIRECTIVES}
# Permissions-Policy (django-permissions-policy): no page uses these browser features; the
# projector may go full screen on its own page.
PERMISSIONS_POLICY: dict[str, list[str]] = {
    "accelerometer": [],
    "autoplay": [],
    "camera": [],
    "display-capture": [],
    "fullscreen": ["self"],
    "geolocation": [],
    "gyroscope": [],
    "magnetometer": [],
    "microphone": [],
    "midi": [],
    "payment": [],
    "usb": [],
}

# --- Login throttling (django-axes) -----------------------------------------------------------
# /accounts/login/ and /admin/login/: after AXES_FAILURE_LIMIT wrong passwords for one username
# from one address, that pair is refused (429) for AXES_COOLOFF_MINUTES. Keyed on username AND
# address, so one player's typos never lock out a whole venue behind one NAT, and guessing many
# usernames from one address still costs one lockout per username.
AXES_ENABLED = env.bool("AXES_ENABLED", default=True)
AXES_FAILURE_LIMIT = env.int("AXES_FAILURE_LIMIT", default=5)
AXES_COOLOFF_TIME = env.float("AXES_COOLOFF_MINUTES", default=15.0) / 60.0  # hours
AXES_LOCKOUT_PARAMETERS = [["username", "ip_address"]]
AXES_RESET_ON_SUCCESS = True
AXES_VERBOSE = False  # lockouts are still logged (WARNING); not every successful sign-in
AXES_HANDLER = env.str("AXES_HANDLER", default="axes.handlers.database.AxesDatabaseHandler")
AXES_LOCKOUT_TEMPLATE = "registration/locked_out.html"
# Under /api/ a lockout answers the API's JSON error shape with Retry-After (core.api.outside_drf).
AXES_LOCKOUT_CALLABLE = "core.api.outside_drf.lockout"
AXES_HTTP_RESPONSE_CODE = 429
# The client address is the project's one resolution (tournament.auth.client_ip: X-Forwarded-For
# only through trusted proxies), the same that limits wrong referee tokens.
AXES_CLIENT_IP_CALLABLE = "tournament.auth.client_ip"

# Director dashboard: a table in play with no hand for this many minutes is flagged idle.
DIRECTOR_IDLE_MINUTES = env.int("DIRECTOR_IDLE_MINUTES", default=10)
# Referee page: without a live socket it reads its match again this often (at least 5 s).
REFEREE_POLL_SECONDS = env.int("REFEREE_POLL_SECONDS", default=20)
