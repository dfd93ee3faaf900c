"""Production: PostgreSQL and Redis are required; secure cookies, HSTS, proxy SSL header."""

from config.settings.base import *  # noqa: F403
from config.settings.base import enable_prepared_statements, env

DEBUG = False
SECRET_KEY = env.str("DJANGO_SECRET_KEY")
ALLOWED_HOSTS = env.list("DJANGO_ALLOWED_HOSTS")
DATABASES = {"default": env.db("DATABASE_URL")}
DATABASES["default"]["CONN_HEALTH_CHECKS"] = True
enable_prepared_statements(DATABASES["default"])
# Under ASGI every request may run on a different thread, so Django's persistent connections
# (CONN_MAX_AGE) are never reused and 50 referees exhausted PostgreSQL's 100 connections
# (bench/bench_hands.py). A psycopg pool per process bounds them: web processes x max size.
if env.bool("DATABASE_POOL", default=True) and DATABASES["default"]["ENGINE"].endswith(
    "postgresql"
):
    DATABASES["default"]["CONN_MAX_AGE"] = 0
    DATABASES["default"].setdefault("OPTIONS", {})["pool"] = {
        "min_size": env.int("DATABASE_POOL_MIN_SIZE", default=2),
        "max_size": env.int("DATABASE_POOL_MAX_SIZE", default=10),
        "timeout": env.int("DATABASE_POOL_TIMEOUT", default=10),
    }
else:
    DATABASES["default"]["CONN_MAX_AGE"] = env.int("DATABASE_CONN_MAX_AGE", default=60)

# nginx always sets X-Forwarded-Proto: its own scheme, or the value a trusted load balancer
# sent (deploy/nginx, NGINX_TRUSTED_PROXY); it never passes a client's value through.
SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")
# DJANGO_HTTPS=false: a plain-HTTP deployment (deploy/env/http.env, e.g. a venue LAN without a
# certificate). Browsers send no Secure cookie over http, so sign-in needs the cookies without
# the Secure flag, and there is no https to redirect to or to pin with HSTS: exactly the four
# deployment checks those settings trigger are silenced, nothing else.
HTTPS = env.bool("DJANGO_HTTPS", default=True)
SECURE_SSL_REDIRECT = env.bool("DJANGO_SECURE_SSL_REDIRECT", default=HTTPS)
SECURE_REDIRECT_EXEMPT = [r"^healthz$", r"^readyz$", r"^metrics$"]
SESSION_COOKIE_SECURE = HTTPS
CSRF_COOKIE_SECURE = HTTPS
SECURE_HSTS_SECONDS = env.int("DJANGO_SECURE_HSTS_SECONDS", default=31536000 if HTTPS else 0)
if not HTTPS:
    SILENCED_SYSTEM_CHECKS = ["security.W004", "security.W008", "security.W012", "security.W016"]
SECURE_HSTS_INCLUDE_SUBDOMAINS = True
SECURE_HSTS_PRELOAD = True
SECURE_CONTENT_TYPE_NOSNIFF = True
X_FRAME_OPTIONS = "DENY"
