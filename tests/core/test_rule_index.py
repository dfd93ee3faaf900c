"""ARCHITECTURE.md's rule index is the one generated from the code, and every rule of
docs/rules.md is cited in scoring/, brackets/ or tournament/, or listed as not applicable."""

from __future__ import annotations

import re

from core import rule_index

DOC = (rule_index.ROOT / "ARCHITECTURE.md").read_text(encoding="utf-8")


def test_architecture_md_carries_a_generated_index() -> None:
    # Regenerate with ``python -m core.rule_index --write``; not compared for staleness, so a
    # new citation elsewhere does not break the build (the coverage check below is binding).
    assert rule_index.BEGIN in DOC
    assert rule_index.END in DOC
    assert "| T3 |" in DOC.split(rule_index.BEGIN, 1)[1]


def test_every_rule_is_cited_or_marked_not_applicable() -> None:
    rules = rule_index.defined_rules(
        (rule_index.ROOT / "docs" / "rules.md").read_text(encoding="utf-8")
    )
    assert {"R1", "T3"} <= set(rules)
    assert "R4" not in rules  # *Not used*
    assert "R36" not in rules  # *Not used* (R36-R39)
    cited = rule_index.citations()
    section = DOC.split("## Rules not cited in code", 1)[1].split("\n## ", 1)[0]
    not_applicable = set(re.findall(r"^- \*\*([RT]\d+)\*\*", section, re.M))
    missing = [r for r in rules if r not in cited and r not in not_applicable]
    assert missing == [], f"cite these rules in code or list them as not applicable: {missing}"
    stale = sorted(not_applicable & set(cited))
    assert stale == [], f"cited now, remove from the not-applicable list: {stale}"


def test_the_scanner_finds_citations_and_ignores_anchors() -> None:
    found = rule_index._CITATION.findall("placing (T3/T4), R31a, /rules/#R5, XR9, R10.")
    assert found == ["T3", "T4", "R31", "R10"]
