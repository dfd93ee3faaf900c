"""The shipped deployment configuration, checked offline (no container engine here).

* ``manage.py check --deploy --fail-level WARNING`` passes with every environment file.
* compose.yaml: structure (no published port but the proxies', one healthcheck per process
  kind, Redis with AOF, every interpolated variable provided by each mode's env file or the
  secrets file, every referenced file present).
* The nginx template under Debian's nginx: ``nginx -t``, and X-Forwarded-Proto passed through
  from the trusted balancer only (an echo upstream shows what the app would see).
* Kubernetes: ``kubectl kustomize`` builds, and every object validates against the API schema
  (kubernetes-validate, strict).
"""

from __future__ import annotations

import http.server
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import yaml

from tests.deploy import stack as sk
from tests.deploy.nginx import prepare, render_site

pytestmark = pytest.mark.deploy

ENV_FILES = sorted((sk.DEPLOY / "env").glob("*.env"))
SECRETS = {"DJANGO_SECRET_KEY", "POSTGRES_PASSWORD", "METRICS_TOKEN", "SENTRY_DSN"}
APP_SERVICES = ("web", "ws", "worker", "beat")


def test_there_is_an_env_file_per_mode() -> None:
    assert {p.stem for p in ENV_FILES} == {"http", "tls-proxy", "https-caddy"}


@pytest.mark.parametrize("env_file", ENV_FILES, ids=lambda p: p.stem)
def test_check_deploy_passes_with_the_shipped_env_file(env_file: Path) -> None:
    env = {k: v for k, v in os.environ.items() if not k.startswith("DJANGO_")}
    env.update(sk.read_env_file(env_file))
    env.update(
        {
            "DJANGO_SETTINGS_MODULE": "config.settings.production",
            "DJANGO_SECRET_KEY": "k" * 20 + "-Zq8!pL0x#Rv3@Ws7&Yt2%Ua9^Bc4*Dd6",
            "DATABASE_URL": "postgres://postgres@127.0.0.1:5432/test",
            "REDIS_URL": "redis://127.0.0.1:6379/0",
        }
    )
    result = subprocess.run(
        [sys.executable, "manage.py", "check", "--deploy", "--fail-level", "WARNING"],
        cwd=sk.ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert result.returncode == 0, result.stdout + result.stderr


def _compose() -> dict[str, Any]:
    return dict(yaml.safe_load((sk.DEPLOY / "compose.yaml").read_text()))


def test_compose_publishes_only_the_proxies() -> None:
    services = _compose()["services"]
    published = {name for name, s in services.items() if s.get("ports")}
    assert published == {"nginx", "caddy"}
    for name in APP_SERVICES:
        assert "ports" not in services[name]


def test_compose_gives_each_process_its_own_healthcheck() -> None:
    services = _compose()["services"]
    for name in APP_SERVICES:
        test = services[name]["healthcheck"]["test"]
        assert test == ["CMD", "deploy/scripts/healthcheck.sh", name], name
    assert services["release"]["healthcheck"] == {"disable": True}
    assert "--appendonly" in services["redis"]["command"]
    assert services["redis"]["command"][services["redis"]["command"].index("--appendonly") + 1] == (
        "yes"
    )


def test_compose_references_exist() -> None:
    compose = _compose()
    services = compose["services"]
    for name, service in services.items():
        assert "image" in service or "build" in service, name
        for dep in service.get("depends_on", {}):
            assert dep in services, f"{name} depends on unknown {dep}"
        for volume in service.get("volumes", []):
            source = volume.split(":", 1)[0]
            if source.startswith("."):
                assert (sk.DEPLOY / source).exists(), f"{name}: {source} missing"
            else:
                assert source in compose["volumes"], f"{name}: volume {source} undeclared"
        for network in service.get("networks", []):
            assert network in compose["networks"]
        command = service.get("command")
        if isinstance(command, list) and command and command[0].startswith("deploy/scripts/"):
            assert (sk.ROOT / command[0]).exists()


@pytest.mark.parametrize("env_file", ENV_FILES, ids=lambda p: p.stem)
def test_compose_variables_are_provided_by_each_mode(env_file: Path) -> None:
    text = (sk.DEPLOY / "compose.yaml").read_text()
    provided = set(sk.read_env_file(env_file)) | SECRETS
    for name, modifier in re.findall(r"(?<!\$)\$\{([A-Z_][A-Z0-9_]*)(:?[-?][^}]*)?\}", text):
        if modifier.startswith((":?", "?")):
            assert name in provided, f"{env_file.name} does not set required {name}"
    for key in sk.read_env_file(env_file):
        assert "${" + key in text, f"{env_file.name} sets {key}, which compose never reads"


# -- nginx -------------------------------------------------------------------------------------


class _Echo(http.server.BaseHTTPRequestHandler):
    def do_GET(self) -> None:
        body = json.dumps({k.lower(): v for k, v in self.headers.items()}).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args: Any) -> None:
        pass


@pytest.fixture
def echo_upstream() -> Iterator[int]:
    server = http.server.ThreadingHTTPServer((sk.HOST, 0), _Echo)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield int(server.server_address[1])
    server.shutdown()


def _nginx(trusted: str, upstream_port: int, port: int) -> tuple[subprocess.Popen[bytes], Path]:
    conf = Path(tempfile.mkdtemp(prefix="cutthroat-nginx-"))
    upstreams = conf / "upstreams.conf"
    upstreams.write_text(
        f"upstream cutthroat_web {{ server {sk.HOST}:{upstream_port}; }}\n"
        f"upstream cutthroat_ws {{ server {sk.HOST}:{upstream_port}; }}\n"
    )
    site = render_site(conf, listen=f"{sk.HOST}:{port}", upstreams=upstreams, trusted_proxy=trusted)
    assert "${NGINX_" not in site
    proc = subprocess.Popen(
        prepare(conf, site, root=conf),
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,
    )
    sk.wait_for(lambda: sk.http_status(f"http://{sk.HOST}:{port}/x") == 200, 10, "nginx")
    return proc, conf


def _seen(port: int, headers: dict[str, str]) -> dict[str, str]:
    status, body, _ = sk.http_json(f"http://{sk.HOST}:{port}/x", headers=headers)
    assert status == 200
    return dict(body)


@pytest.mark.parametrize(
    ("trusted", "sent", "app_sees"),
    [
        # http.env: no balancer; loopback is the only "trusted" address and it is nginx itself.
        ("10.0.0.0/8", {"X-Forwarded-Proto": "https"}, "http"),  # a client cannot claim https
        ("10.0.0.0/8", {}, "http"),
        # tls-proxy.env: the balancer's value passes through (here the balancer is loopback).
        ("127.0.0.1/32", {"X-Forwarded-Proto": "https"}, "https"),
        ("127.0.0.1/32", {"X-Forwarded-Proto": "http"}, "http"),
        ("127.0.0.1/32", {"X-Forwarded-Proto": "gopher"}, "http"),
        ("127.0.0.1/32", {}, "http"),
    ],
)
def test_nginx_passes_forwarded_proto_from_the_trusted_balancer_only(
    echo_upstream: int, trusted: str, sent: dict[str, str], app_sees: str
) -> None:
    port = 8630
    proc, conf = _nginx(trusted, echo_upstream, port)
    try:
        seen = _seen(port, sent)
        assert seen["x-forwarded-proto"] == app_sees
        assert seen["host"] == f"{sk.HOST}:{port}"  # the client's Host, not the upstream name
        assert re.fullmatch(r"[0-9a-f]{32}", seen["x-request-id"])
    finally:
        proc.terminate()
        proc.wait(timeout=10)
        shutil.rmtree(conf, ignore_errors=True)


# -- Kubernetes ----------------------------------------------------------------------------------


def test_kustomize_builds_and_every_object_validates() -> None:
    import kubernetes_validate

    kubectl = shutil.which("kubectl")
    assert kubectl, "kubectl is missing: .ci/run installs it (apt kubernetes-client)"
    built = subprocess.run(
        [kubectl, "kustomize", str(sk.DEPLOY / "k8s")],
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    ).stdout
    objects = [o for o in yaml.safe_load_all(built) if o]
    kinds = {(o["kind"], o["metadata"]["name"]) for o in objects}
    for name in APP_SERVICES:
        assert ("Deployment", name) in kinds
    assert {("HorizontalPodAutoscaler", "web"), ("HorizontalPodAutoscaler", "ws")} <= kinds
    assert ("PodDisruptionBudget", "web") in kinds
    for obj in objects:
        kubernetes_validate.validate(obj, "1.30", strict=True)
        if obj["kind"] == "Deployment":
            container = obj["spec"]["template"]["spec"]["containers"][0]
            assert container["resources"]["requests"], obj["metadata"]["name"]
            assert "livenessProbe" in container, obj["metadata"]["name"]
    config = next(o for o in objects if o["kind"] == "ConfigMap")["data"]
    assert {"CACHE_REDIS_URL", "CELERY_BROKER_URL", "CHANNEL_REDIS_URL"} <= set(config)


# -- dashboards and alerts ---------------------------------------------------------------------


def test_dashboard_and_alerts_use_only_metrics_the_app_exports() -> None:
    from prometheus_client import Counter, Gauge, Histogram

    from core import observability

    exported = {"cutthroat_celery_queue_depth"}
    for value in vars(observability).values():
        if isinstance(value, Counter | Gauge | Histogram):
            exported.add(value._name)
    texts = {
        "alerts": (sk.DEPLOY / "prometheus" / "alerts.yaml").read_text(),
        "dashboard": (sk.DEPLOY / "grafana" / "cutthroat-dashboard.json").read_text(),
    }
    rules = yaml.safe_load(texts["alerts"])["groups"][0]["rules"]
    assert all({"alert", "expr", "labels", "annotations"} <= set(r) for r in rules)
    panels = json.loads(texts["dashboard"])["panels"]
    assert len(panels) >= 8
    for where, text in texts.items():
        for name in set(re.findall(r"cutthroat_[a-z_]+", text)):
            base = re.sub(r"_(bucket|count|sum|total)$", "", name)
            assert name in exported or base in exported, f"{where}: unknown metric {name}"


# -- backups -------------------------------------------------------------------------------------


def test_backup_writes_a_dump_and_expires_old_ones_keeping_the_newest(tmp_path: Path) -> None:
    old = []
    for day in range(5):  # five dumps from 30-34 days ago
        path = tmp_path / f"cutthroat-2026010{day}T000000Z.dump"
        path.write_bytes(b"old")
        stamp = 1_700_000_000 - day * 86_400
        os.utime(path, (stamp, stamp))
        old.append(path)
    (tmp_path / "notes.txt").write_text("not a dump")
    result = subprocess.run(
        [str(sk.DEPLOY / "scripts" / "backup.sh")],
        env={
            **os.environ,
            "BACKUP_DIR": str(tmp_path),
            "BACKUP_RETENTION_DAYS": "14",
            "BACKUP_KEEP_MIN": "3",
            "DATABASE_URL": sk.pg_url("postgres"),
        },
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert result.returncode == 0, result.stderr
    dumps = sorted(p.name for p in tmp_path.glob("cutthroat-*.dump"))
    assert len(dumps) == 3  # the new one and the two newest old ones
    assert old[0].exists()
    assert old[1].exists()
    assert not any(p.exists() for p in old[2:])
    assert (tmp_path / "notes.txt").exists()
    assert not list(tmp_path.glob(".*partial"))
