"""The deployment as shipped, on this machine without containers (tests/deploy/test_smoke.py).

Everything runs from ``deploy/``: the start scripts (``deploy/scripts/start-*.sh``) with the
plain-HTTP environment file (``deploy/env/http.env``) and production settings, behind Debian's
nginx running the shipped template (``deploy/nginx/cutthroat.conf.template``) rendered with
this stack's ports and paths only. Redis is a dedicated ``redis-server`` with AOF on its own
port (so the test can stop it); PostgreSQL is the machine's, in a database of the stack's own.
Every process is started in its own session and killed by its process group at the end.
"""

from __future__ import annotations

import contextlib
import json
import os
import signal
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from tests.deploy.nginx import prepare, render_site

ROOT = Path(__file__).resolve().parents[2]
DEPLOY = ROOT / "deploy"
HOST = "127.0.0.1"
NGINX_PORT = 8600
WEB_PORTS = (8601, 8602)
WS_PORTS = (8611, 8612)
WORKER_METRICS_PORT = 8621
REDIS_PORT = 8690
METRICS_TOKEN = "smoke-metrics-token-0123456789"
SECRET_KEY = "smoke-only-" + "k" * 50


def read_env_file(path: Path) -> dict[str, str]:
    """KEY=VALUE lines of a deploy/env file (comments and blanks skipped)."""
    values: dict[str, str] = {}
    for line in path.read_text().splitlines():
        line = line.strip()
        if line and not line.startswith("#"):
            key, _, value = line.partition("=")
            values[key.strip()] = value.strip()
    return values


def database_names() -> tuple[str, str]:
    """The stack's database and the one a backup is restored into, next to the suite's own."""
    url = os.environ.get("DATABASE_URL", "postgres://postgres@127.0.0.1:5432/test")
    base = url.rsplit("/", 1)[-1].split("?", 1)[0] or "test"
    return f"{base}_smoke", f"{base}_smoke_restore"


def pg_url(name: str) -> str:
    url = os.environ.get("DATABASE_URL", "postgres://postgres@127.0.0.1:5432/test")
    return url.rsplit("/", 1)[0] + "/" + name


def recreate_database(name: str) -> None:
    import psycopg

    admin = pg_url("postgres").replace("postgres://", "postgresql://", 1)
    with psycopg.connect(admin, autocommit=True) as conn:
        conn.execute(f"DROP DATABASE IF EXISTS {name} WITH (FORCE)")
        conn.execute(f"CREATE DATABASE {name}")


def drop_database(name: str) -> None:
    import psycopg

    admin = pg_url("postgres").replace("postgres://", "postgresql://", 1)
    with psycopg.connect(admin, autocommit=True) as conn:
        conn.execute(f"DROP DATABASE IF EXISTS {name} WITH (FORCE)")


@dataclass
class Proc:
    name: str
    popen: subprocess.Popen[bytes]
    log: Path

    def alive(self) -> bool:
        return self.popen.poll() is None

    def kill(self, sig: int = signal.SIGKILL) -> None:
        """The whole process group: a gunicorn master and its workers die together."""
        if self.popen.poll() is None:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(self.popen.pid, sig)
            try:
                self.popen.wait(timeout=15)
            except subprocess.TimeoutExpired:
                os.killpg(self.popen.pid, signal.SIGKILL)
                self.popen.wait(timeout=5)

    def tail(self, lines: int = 30) -> str:
        try:
            return "\n".join(self.log.read_text(errors="replace").splitlines()[-lines:])
        except OSError:
            return ""


@dataclass
class Stack:
    tmp: Path
    db_name: str
    procs: dict[str, Proc] = field(default_factory=dict)

    @property
    def redis_url(self) -> str:
        return f"redis://{HOST}:{REDIS_PORT}/0"

    @property
    def url(self) -> str:
        return f"http://{HOST}:{NGINX_PORT}"

    def env(self, **extra: str) -> dict[str, str]:
        keep = {k: v for k, v in os.environ.items() if not k.startswith(("DJANGO_", "CELERY_"))}
        keep.pop("PROMETHEUS_MULTIPROC_DIR", None)
        venv_bin = str(Path(sys.executable).parent)
        return {
            **keep,
            **read_env_file(DEPLOY / "env" / "http.env"),
            "PATH": f"{venv_bin}:{keep.get('PATH', '/usr/bin:/bin')}",
            "DJANGO_SETTINGS_MODULE": "config.settings.production",
            "DJANGO_SECRET_KEY": SECRET_KEY,
            "DJANGO_ALLOWED_HOSTS": f"{HOST},localhost",
            "SITE_URL": self.url,
            "DATABASE_URL": pg_url(self.db_name),
            "REDIS_URL": self.redis_url,
            "CELERY_TASK_ALWAYS_EAGER": "false",
            "METRICS_TOKEN": METRICS_TOKEN,
            "BIND_HOST": HOST,
            "WEB_CONCURRENCY": "1",
            "WEB_THREADS": "4",
            "CELERY_CONCURRENCY": "1",
            "DATABASE_POOL_MAX_SIZE": "4",
            **extra,
        }

    def start(self, name: str, cmd: list[str], env: dict[str, str] | None = None) -> Proc:
        log = self.tmp / f"{name}.log"
        handle = log.open("ab")
        popen = subprocess.Popen(
            cmd,
            cwd=ROOT,
            env=env or self.env(),
            stdout=handle,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
        handle.close()
        proc = Proc(name, popen, log)
        self.procs[name] = proc
        return proc

    def run(self, cmd: list[str], timeout: float = 240, **extra: str) -> str:
        result = subprocess.run(
            cmd,
            cwd=ROOT,
            env=self.env(**extra),
            capture_output=True,
            text=True,
            timeout=timeout,
            check=False,
        )
        if result.returncode != 0:
            raise RuntimeError(f"{cmd} failed:\n{result.stdout}\n{result.stderr}")
        return result.stdout

    # -- services ---------------------------------------------------------------------------

    def start_redis(self) -> Proc:
        (self.tmp / "redis").mkdir(exist_ok=True)
        proc = self.start(
            "redis",
            [
                "redis-server",
                "--bind",
                HOST,
                "--port",
                str(REDIS_PORT),
                "--appendonly",
                "yes",
                "--appendfsync",
                "everysec",
                "--save",
                "",
                "--dir",
                str(self.tmp / "redis"),
            ],
        )
        wait_for(lambda: _redis_ping(self.redis_url), 20, "redis-server")
        return proc

    def start_web(self, i: int) -> Proc:
        port = WEB_PORTS[i]
        proc = self.start(
            f"web{i + 1}",
            [str(DEPLOY / "scripts" / "start-web.sh")],
            self.env(PORT=str(port), PROMETHEUS_MULTIPROC_DIR=str(self.tmp / f"metrics-web{i}")),
        )
        wait_for(lambda: http_status(f"http://{HOST}:{port}/healthz") == 200, 60, proc.name)
        return proc

    def start_ws(self, i: int) -> Proc:
        port = WS_PORTS[i]
        proc = self.start(
            f"ws{i + 1}",
            [str(DEPLOY / "scripts" / "start-ws.sh")],
            self.env(WS_PORT=str(port), PROMETHEUS_MULTIPROC_DIR=str(self.tmp / f"metrics-ws{i}")),
        )
        wait_for(lambda: http_status(f"http://{HOST}:{port}/healthz") == 200, 60, proc.name)
        return proc

    def start_nginx(self) -> Proc:
        conf = self.tmp / "nginx"
        conf.mkdir(parents=True, exist_ok=True)
        upstreams = conf / "upstreams.conf"
        # The compose file's upstreams name containers; here the replicas are local ports.
        upstreams.write_text(
            "upstream cutthroat_web {\n"
            + "".join(f"    server {HOST}:{p} max_fails=1 fail_timeout=5s;\n" for p in WEB_PORTS)
            + "    keepalive 32;\n}\nupstream cutthroat_ws {\n"
            + "".join(f"    server {HOST}:{p} max_fails=1 fail_timeout=5s;\n" for p in WS_PORTS)
            + "}\n"
        )
        http_env = read_env_file(DEPLOY / "env" / "http.env")
        site = render_site(
            conf,
            listen=f"{HOST}:{NGINX_PORT}",
            upstreams=upstreams,
            trusted_proxy=http_env["NGINX_TRUSTED_PROXY"],
        )
        proc = self.start("nginx", prepare(conf, site, root=self.tmp))
        wait_for(lambda: http_status(f"{self.url}/healthz") == 200, 20, "nginx")
        return proc

    def stop_all(self) -> None:
        for proc in reversed(list(self.procs.values())):
            proc.kill(signal.SIGTERM)


def _redis_ping(url: str) -> bool:
    import redis

    try:
        return bool(redis.Redis.from_url(url, socket_connect_timeout=1).ping())
    except Exception:
        return False


def http_status(url: str, headers: dict[str, str] | None = None) -> int | None:
    try:
        request = urllib.request.Request(url, headers=headers or {})
        with urllib.request.urlopen(request, timeout=3) as response:
            return int(response.status)
    except urllib.error.HTTPError as exc:
        return int(exc.code)
    except OSError:
        return None


def http_json(url: str, headers: dict[str, str] | None = None) -> tuple[int, Any, dict[str, str]]:
    request = urllib.request.Request(url, headers=headers or {})
    try:
        with urllib.request.urlopen(request, timeout=5) as response:
            body = response.read()
            return int(response.status), _json(body), dict(response.headers)
    except urllib.error.HTTPError as exc:
        return int(exc.code), _json(exc.read()), dict(exc.headers)


def _json(body: bytes) -> Any:
    try:
        return json.loads(body)
    except ValueError:
        return body.decode(errors="replace")


def wait_for(predicate: Any, seconds: float, what: str) -> None:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if predicate():
            return
        time.sleep(0.25)
    raise RuntimeError(f"{what} did not come up within {seconds:.0f} s")


def make_stack() -> Stack:
    tmp = Path(tempfile.mkdtemp(prefix="cutthroat-smoke-"))
    return Stack(tmp=tmp, db_name=database_names()[0])
