"""Contract test, TypeScript side (issue 20): types generated from the served schema compile,
and an integrator's script type-checks against them.

``openapi-typescript`` generates ``api-v1.ts`` and ``api-v2.ts`` from ``/api/v1/schema/`` and
``/api/v2/schema/`` as served (no generated line is edited); ``tsc --strict`` then checks
``clients/ts/example.ts`` (a v2 client: reading a match, recording a hand, recovering from a
stale number with the 409 body) and the generated files. The script also holds lines that must
NOT compile (``@ts-expect-error``): a hand without its number, v1's blank ``end_reason``, an
unknown reason; so the types are checked to say something, not only to parse.

The tools are the exact versions of ``clients/ts/package-lock.json``, installed with ``npm ci``
once per lock file into ``.cache/ts-client/<lock hash>/`` (``TS_CLIENT_CACHE`` to put it
elsewhere); later runs reuse it. Skipped, saying why, only when Node.js or npm is missing.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest
from django.test import Client

pytestmark = pytest.mark.django_db

ROOT = Path(__file__).resolve().parents[2]
CLIENT = ROOT / "clients" / "ts"
LOCK = CLIENT / "package-lock.json"


def _tools() -> Path:
    node, npm = shutil.which("node"), shutil.which("npm")
    if node is None or npm is None:
        pytest.skip(
            "Node.js and npm are needed to generate and type-check the TypeScript client "
            f"(node: {node or 'missing'}, npm: {npm or 'missing'}); .ci/run installs them"
        )
    digest = hashlib.sha256(LOCK.read_bytes()).hexdigest()[:16]
    cache = Path(os.environ.get("TS_CLIENT_CACHE") or ROOT / ".cache" / "ts-client") / digest
    if not (cache / "node_modules" / ".bin" / "tsc").exists():
        cache.mkdir(parents=True, exist_ok=True)
        shutil.copy(CLIENT / "package.json", cache / "package.json")
        shutil.copy(LOCK, cache / "package-lock.json")
        result = subprocess.run(
            [npm, "ci", "--no-audit", "--no-fund", "--ignore-scripts", "--loglevel=error"],
            cwd=cache,
            capture_output=True,
            text=True,
            timeout=600,
            check=False,
        )
        assert result.returncode == 0, result.stdout + result.stderr
    return cache / "node_modules"


def _run(args: list[str], cwd: Path) -> subprocess.CompletedProcess[str]:
    node = shutil.which("node")
    assert node is not None
    return subprocess.run(
        [node, *args], cwd=cwd, capture_output=True, text=True, timeout=300, check=False
    )


@pytest.fixture(scope="module")
def workdir(tmp_path_factory: pytest.TempPathFactory, django_db_blocker: Any) -> Path:
    modules = _tools()
    work = tmp_path_factory.mktemp("ts-client")
    generator = modules / "openapi-typescript" / "bin" / "cli.js"
    for version in ("v1", "v2"):
        with django_db_blocker.unblock():
            r = Client().get(f"/api/{version}/schema/?format=json")
        assert r.status_code == 200
        schema = work / f"openapi-{version}.json"
        schema.write_text(json.dumps(json.loads(r.content)))
        # --default-non-nullable false: a field with a default (``llave``...) is optional in a
        # request body, as the schema's ``required`` says; the tool's default makes it required.
        result = _run(
            [
                str(generator),
                schema.name,
                "-o",
                f"api-{version}.ts",
                "--default-non-nullable",
                "false",
            ],
            work,
        )
        assert result.returncode == 0, result.stdout + result.stderr
        # openapi-typescript reports what it could not type; there must be nothing of the kind
        assert "warn" not in (result.stdout + result.stderr).lower(), result.stderr
    shutil.copy(CLIENT / "example.ts", work / "example.ts")
    (work / "node_modules").symlink_to(modules)
    return work


def test_the_generated_types_describe_the_versions(workdir: Path) -> None:
    v1 = (workdir / "api-v1.ts").read_text()
    v2 = (workdir / "api-v2.ts").read_text()
    assert '"/api/v1/matches/{match_id}/hands/": {' in v1
    assert '"/api/v2/matches/{match_id}/hands/": {' in v2
    assert "/api/v2/" not in v1
    assert "/api/v1/" not in v2


def test_a_script_type_checks_against_the_generated_types(workdir: Path) -> None:
    tsc = workdir / "node_modules" / "typescript" / "bin" / "tsc"
    result = _run(
        [
            str(tsc),
            "--noEmit",
            "--strict",
            "--target",
            "es2022",
            "--module",
            "es2022",
            "--moduleResolution",
            "bundler",
            "--lib",
            "es2022,dom",
            "example.ts",
            "api-v1.ts",
            "api-v2.ts",
        ],
        workdir,
    )
    assert result.returncode == 0, result.stdout + result.stderr


def test_the_type_check_fails_on_a_wrong_script(workdir: Path) -> None:
    """The check can fail: v2 end_reason used as a string without the null case."""
    wrong = workdir / "wrong.ts"
    wrong.write_text(
        'import type { paths } from "./api-v2";\n'
        'type M = paths["/api/v2/matches/{match_id}/"]["get"]["responses"][200]'
        '["content"]["application/json"];\n'
        "export const upper = (m: M): string => m.end_reason.toUpperCase();\n"
    )
    tsc = workdir / "node_modules" / "typescript" / "bin" / "tsc"
    result = _run([str(tsc), "--noEmit", "--strict", "wrong.ts"], workdir)
    assert result.returncode != 0
    assert "end_reason" in result.stdout, result.stdout
    assert "null" in result.stdout, result.stdout
