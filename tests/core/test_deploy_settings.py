"""Production settings pass Django's deployment checklist with the required environment."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def _run_check(extra_env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("DJANGO_")}
    env.update(
        {
            "DJANGO_SETTINGS_MODULE": "config.settings.production",
            "DATABASE_URL": "postgres://postgres@127.0.0.1:5432/test",
            "REDIS_URL": "redis://127.0.0.1:6379/0",
            **extra_env,
        }
    )
    return subprocess.run(
        [sys.executable, "manage.py", "check", "--deploy", "--fail-level", "WARNING"],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


def test_check_deploy_prints_no_warnings() -> None:
    result = _run_check(
        {
            "DJANGO_SECRET_KEY": "k" * 20 + "-Zq8!pL0x#Rv3@Ws7&Yt2%Ua9^Bc4*Dd6",
            "DJANGO_ALLOWED_HOSTS": "example.org",
        }
    )
    assert result.returncode == 0, result.stdout + result.stderr
    assert "no issues" in result.stdout


def test_production_refuses_to_start_without_a_secret_key() -> None:
    result = _run_check({"DJANGO_ALLOWED_HOSTS": "example.org"})
    assert result.returncode != 0
    assert "DJANGO_SECRET_KEY" in result.stderr
