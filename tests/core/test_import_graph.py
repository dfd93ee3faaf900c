"""No import circle anywhere in the project (issue 18, ARCHITECTURE.md).

import-linter keeps the layers between apps; this catches what it does not: two modules of the
same app importing each other, directly or through others, including imports inside functions
(a lazy import hides a circle from Python, not from a reader). grimp is import-linter's graph
library, so it is already a development dependency.
"""

from __future__ import annotations

import grimp

PACKAGES = (
    "dominoes",
    "core",
    "tournament",
    "scoring",
    "ratings",
    "brackets",
    "live",
    "circuits",
    "notify",
    "archive",
    "config",
)


def _circles(graph: grimp.ImportGraph) -> list[tuple[str, ...]]:
    found = set()
    for importer in sorted(graph.modules):
        for imported in graph.find_modules_directly_imported_by(importer):
            if imported == importer:
                continue
            back = graph.find_shortest_chain(importer=imported, imported=importer)
            if back:
                found.add((importer, *back))
    return sorted(found)


def test_the_project_has_no_import_circle() -> None:
    graph = grimp.build_graph(*PACKAGES)
    assert len(graph.modules) > 300  # the graph covers the whole project
    circles = _circles(graph)
    assert not circles, "\n".join(" -> ".join(c) for c in circles[:10])


def test_the_check_finds_a_circle() -> None:
    graph = grimp.ImportGraph()
    for name in ("pkg", "pkg.a", "pkg.b", "pkg.c"):
        graph.add_module(name)
    graph.add_import(importer="pkg.a", imported="pkg.b")
    graph.add_import(importer="pkg.b", imported="pkg.c")
    graph.add_import(importer="pkg.c", imported="pkg.a")
    assert _circles(graph)
