"""Debian's nginx running the shipped site template (``deploy/nginx/cutthroat.conf.template``)
from a private prefix, as the deployment smoke test (tests/deploy/stack.py) and the nginx cache
benchmark (bench/bench_nginx_cache.py) run it: the template rendered as the nginx image's
envsubst renders it, a minimal ``nginx.conf`` around it, checked with ``nginx -t``."""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
TEMPLATE = ROOT / "deploy" / "nginx" / "cutthroat.conf.template"


def render_template(text: str, values: dict[str, str]) -> str:
    """What the nginx image's envsubst does: replace ``${NAME}`` for the given names only."""

    def sub(match: re.Match[str]) -> str:
        return values.get(match.group(1), match.group(0))

    return re.sub(r"\$\{([A-Z_][A-Z0-9_]*)\}", sub, text)


def render_site(conf: Path, *, listen: str, upstreams: Path, trusted_proxy: str) -> str:
    """The shipped site, with its cache under ``conf`` (created)."""
    (conf / "cache").mkdir(parents=True, exist_ok=True)
    return render_template(
        TEMPLATE.read_text(),
        {
            "NGINX_PORT": listen,
            "NGINX_CACHE_PATH": str(conf / "cache"),
            "NGINX_TRUSTED_PROXY": trusted_proxy,
            "NGINX_UPSTREAMS": str(upstreams),
        },
    )


def prepare(conf: Path, site: str, *, root: Path) -> list[str]:
    """Write ``site`` and an ``nginx.conf`` under ``conf``, open ``root`` and everything in
    ``conf`` to nginx's unprivileged workers, check the configuration; returns the command that
    runs nginx in the foreground. Raises RuntimeError with nginx's words when the check fails."""
    (conf / "cutthroat.conf").write_text(site)
    (conf / "nginx.conf").write_text(
        f"""worker_processes 1;
pid {conf}/nginx.pid;
error_log {conf}/error.log warn;
events {{ worker_connections 1024; }}
http {{
    include /etc/nginx/mime.types;
    client_body_temp_path {conf}/body;
    proxy_temp_path {conf}/proxy;
    fastcgi_temp_path {conf}/fastcgi;
    uwsgi_temp_path {conf}/uwsgi;
    scgi_temp_path {conf}/scgi;
    include {conf}/cutthroat.conf;
}}
"""
    )
    for path in [root, conf, *conf.iterdir()]:
        path.chmod(0o777 if path.is_dir() else 0o644)
    nginx = shutil.which("nginx") or "/usr/sbin/nginx"
    cmd = [nginx, "-p", str(conf), "-c", str(conf / "nginx.conf")]
    check = subprocess.run([*cmd, "-t"], capture_output=True, text=True, check=False)
    if check.returncode != 0:
        raise RuntimeError(f"nginx -t failed: {check.stderr}")
    return [*cmd, "-g", "daemon off;"]
