"""The brackets engine is pure Python (STYLE.md convention 1) and its doctests hold."""

from __future__ import annotations

import ast
import doctest
import importlib
import pkgutil
from pathlib import Path

import pytest

import brackets.engine

ENGINE_DIR = Path(brackets.engine.__file__).parent
MODULES = sorted(f"brackets.engine.{m.name}" for m in pkgutil.iter_modules([str(ENGINE_DIR)]))
# dominoes: the game's pure lowest layer (no Django, no I/O; ARCHITECTURE.md), as the scoring
# engine uses it (dominoes.records.unchecked builds the standings rows).
ALLOWED_ROOTS = {"brackets", "dominoes", "__future__"}
STDLIB = {
    "collections",
    "dataclasses",
    "enum",
    "itertools",
    "random",
    "typing",
}


@pytest.mark.parametrize("path", sorted(ENGINE_DIR.glob("*.py")), ids=lambda p: p.name)
def test_engine_imports_only_stdlib_and_itself(path: Path) -> None:
    tree = ast.parse(path.read_text())
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            roots = {alias.name.split(".")[0] for alias in node.names}
        elif isinstance(node, ast.ImportFrom):
            roots = {(node.module or "").split(".")[0]}
            if node.module and node.module.startswith("brackets."):
                assert node.module.startswith("brackets.engine"), node.module
        else:
            continue
        assert roots <= ALLOWED_ROOTS | STDLIB, f"{path.name} imports {roots}"


@pytest.mark.parametrize("name", MODULES)
def test_doctests(name: str) -> None:
    result = doctest.testmod(importlib.import_module(name))
    assert result.failed == 0


def test_public_api_is_re_exported() -> None:
    for name in brackets.engine.__all__:
        assert hasattr(brackets.engine, name), name
