"""What the service benchmarks share: a dedicated PostgreSQL database and Redis database.

Each benchmark names its own database (never the test database) and Redis database number,
drops and re-creates them before a run and flushes Redis after it.
"""

from __future__ import annotations

PG_ADMIN_URL = "postgresql://postgres@127.0.0.1:5432/postgres"


def recreate_database(name: str) -> None:
    """Drop (forcing out any leftover connection) and create the database ``name``."""
    import psycopg

    with psycopg.connect(PG_ADMIN_URL, autocommit=True) as conn:
        conn.execute(f"DROP DATABASE IF EXISTS {name} WITH (FORCE)")
        conn.execute(f"CREATE DATABASE {name}")


def flush_redis(url: str) -> None:
    """Empty the Redis database at ``url`` (a benchmark's own, by its number)."""
    import redis

    redis.Redis.from_url(url).flushdb()
