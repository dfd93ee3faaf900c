"""The Spanish catalogue is complete: no untranslated or fuzzy entry, every translation keeps
its msgid's placeholders, the committed ``django.mo`` is the compiled ``django.po``, and
regenerating the catalogue from the code (README: ``makemessages -l es``) finds no string the
committed catalogue lacks. No database: the catalogue is read as text."""

from __future__ import annotations

import ast
import gettext
import os
import re
import shutil
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
PO = ROOT / "locale" / "es" / "LC_MESSAGES" / "django.po"
MO = PO.with_suffix(".mo")

# ``%(name)s`` / ``%s`` (python-format), after ``%%`` is taken out.
_PERCENT = re.compile(r"%(?:\((\w+)\))?[-#0 +]*\d*(?:\.\d+)?[sdifrxXeEgGc]")


@dataclass
class Entry:
    msgid: str = ""
    msgid_plural: str | None = None
    msgctxt: str | None = None
    msgstr: dict[int, str] = field(default_factory=dict)
    flags: set[str] = field(default_factory=set)
    line: int = 0

    @property
    def where(self) -> str:
        return f"django.po:{self.line} {self.msgid[:60]!r}"


def parse_po(text: str) -> list[Entry]:
    """A small PO reader (no third-party parser in the locks): obsolete ``#~`` entries are
    skipped, the header (empty msgid) is dropped."""
    entries: list[Entry] = []
    cur: Entry | None = None
    key: str | None = None

    def finish() -> None:
        if cur is not None and (cur.msgid or cur.msgctxt):
            entries.append(cur)

    for number, raw in enumerate(text.splitlines(), start=1):
        line = raw.strip()
        if not line or line.startswith("#~"):
            if not line:
                finish()
                cur, key = None, None
            continue
        if cur is None:
            cur = Entry(line=number)
        if line.startswith("#,"):
            cur.flags |= {f.strip() for f in line[2:].split(",")}
            continue
        if line.startswith("#"):
            continue
        m = re.match(r"^(msgctxt|msgid_plural|msgid|msgstr(?:\[(\d+)\])?)\s+(\".*\")$", line)
        if m:
            key = m.group(1)
            value: str = ast.literal_eval(m.group(3))
            if key == "msgctxt":
                cur.msgctxt = value
            elif key == "msgid":
                cur.msgid, cur.line = value, number
            elif key == "msgid_plural":
                cur.msgid_plural = value
            else:
                cur.msgstr[int(m.group(2) or 0)] = value
            continue
        assert line.startswith('"'), f"django.po:{number}: {raw!r}"
        assert key is not None, f"django.po:{number}: a continuation with nothing to continue"
        more: str = ast.literal_eval(line)
        if key == "msgctxt":
            cur.msgctxt = (cur.msgctxt or "") + more
        elif key == "msgid":
            cur.msgid += more
        elif key == "msgid_plural":
            cur.msgid_plural = (cur.msgid_plural or "") + more
        else:
            n = int(key[7:-1]) if key.startswith("msgstr[") else 0
            cur.msgstr[n] += more
    finish()
    return entries


def placeholders(text: str) -> list[str]:
    found = _PERCENT.findall(text.replace("%%", ""))
    return sorted(name or "<positional>" for name in found)


def _problems(entries: list[Entry]) -> list[str]:
    problems = []
    for e in entries:
        if "fuzzy" in e.flags:
            problems.append(f"fuzzy: {e.where}")
        if not e.msgstr or any(not s for s in e.msgstr.values()):
            problems.append(f"untranslated: {e.where}")
            continue
        if "python-format" not in e.flags:
            continue
        if e.msgid_plural is None:
            wanted = placeholders(e.msgid)
            got = {0: placeholders(e.msgstr[0])}
        else:
            wanted = placeholders(e.msgid_plural)
            got = {n: placeholders(s) for n, s in e.msgstr.items()}
        for n, g in got.items():
            # The one-item form may leave the count out ("El puesto" for "All 1 place"),
            # never bring a name the msgid lacks.
            one_form = e.msgid_plural is not None and n == 0
            if g != wanted and not (one_form and set(g) < set(wanted)):
                problems.append(f"placeholders {g} != {wanted}: {e.where}")
    return problems


CATALOGUE = parse_po(PO.read_text(encoding="utf-8"))


def test_the_reader_sees_the_whole_catalogue() -> None:
    # A reader that silently dropped entries would make the checks below vacuous.
    ids = {e.msgid for e in CATALOGUE}
    assert len(CATALOGUE) > 500
    assert {"Reason", "Round %(number)s of %(stage)s is published."} <= ids
    assert any(e.msgid_plural for e in CATALOGUE)


@pytest.mark.parametrize(
    ("po", "problem"),
    [
        ('#, fuzzy\nmsgid "Seat"\nmsgstr "Asiento"\n', "fuzzy"),
        ('msgid "Seat"\nmsgstr ""\n', "untranslated"),
        (
            '#, python-format\nmsgid "%(n)s table"\nmsgid_plural "%(n)s tables"\n'
            'msgstr[0] "%(n)s mesa"\nmsgstr[1] ""\n',
            "untranslated",
        ),
        ('#, python-format\nmsgid "Round %(n)s"\nmsgstr "Ronda %(number)s"\n', "placeholders"),
        ('#, python-format\nmsgid "Round %(n)s"\nmsgstr "Ronda"\n', "placeholders"),
        (
            '#, python-format\nmsgid "%(n)s place"\nmsgid_plural "%(n)s places"\n'
            'msgstr[0] "%(n)s puesto de %(x)s"\nmsgstr[1] "%(n)s puestos"\n',
            "placeholders",
        ),
        (
            '#, python-format\nmsgid "%(n)s place"\nmsgid_plural "%(n)s places"\n'
            'msgstr[0] "un puesto"\nmsgstr[1] "puestos"\n',
            "placeholders",
        ),
    ],
)
def test_the_checks_catch_each_kind_of_problem(po: str, problem: str) -> None:
    found = _problems(parse_po(po))
    assert found
    assert found[0].startswith(problem)


def test_the_checks_accept_escaped_percent_and_wrapped_lines() -> None:
    po = (
        '#, python-format\nmsgid ""\n"Hand %%(number)s: "\n"confirm it."\n'
        'msgstr "Mano %%(number)s: confírmala."\n'
    )
    (entry,) = parse_po(po)
    assert entry.msgid == "Hand %%(number)s: confirm it."
    assert _problems([entry]) == []


def test_every_spanish_entry_is_translated_not_fuzzy_and_keeps_its_placeholders() -> None:
    problems = _problems(CATALOGUE)
    assert problems == [], "\n".join(problems)


def test_no_msgid_keeps_an_undecoded_unicode_escape() -> None:
    """xgettext does not decode ``\\u2013`` in Python source: the msgid keeps the six
    characters while the running code asks gettext for the dash itself, so the translation
    is never found. Translatable strings write such characters as themselves."""
    escaped = re.compile(r"\\u[0-9a-fA-F]{4}")
    found = [e.where for e in CATALOGUE if escaped.search(e.msgid + (e.msgid_plural or ""))]
    assert found == [], "write the character itself in these msgids: " + ", ".join(found)


def test_the_committed_mo_is_the_compiled_po() -> None:
    with MO.open("rb") as fh:
        mo = gettext.GNUTranslations(fh)
    stale = []
    for e in CATALOGUE:
        if not e.msgstr:
            continue
        key = e.msgid if e.msgctxt is None else f"{e.msgctxt}\x04{e.msgid}"
        if e.msgid_plural is None:
            got = mo.gettext(key)
            if got != e.msgstr[0]:
                stale.append(e.where)
        elif mo.ngettext(key, e.msgid_plural, 1) != e.msgstr[0]:
            stale.append(e.where)
    assert stale == [], "recompile django.mo (README: Translations): " + ", ".join(stale[:10])


@pytest.mark.skipif(shutil.which("xgettext") is None, reason="needs gettext's xgettext")
def test_regenerating_the_catalogue_finds_nothing_missing(tmp_path: Path) -> None:
    """``makemessages`` on a copy of the sources (so the real catalogue is never touched): a
    string marked in code or templates but absent from django.po fails here."""
    copy = tmp_path / "src"
    skip = {".venv", ".git", "tests", "bench", "node_modules", ".cache", "static", "deploy"}

    def ignore(directory: str, names: list[str]) -> set[str]:
        here = Path(directory)
        return {
            n
            for n in names
            if (here == ROOT and n in skip)
            or n == "__pycache__"
            or ((here / n).is_file() and not n.endswith((".py", ".html", ".txt", ".po")))
        }

    shutil.copytree(ROOT, copy, ignore=ignore, symlinks=True)
    env = {**os.environ, "DJANGO_SETTINGS_MODULE": "config.settings.test"}
    subprocess.run(
        [sys.executable, "manage.py", "makemessages", "-l", "es", "--no-obsolete"],
        cwd=copy,
        env=env,
        check=True,
        capture_output=True,
    )
    regenerated = parse_po((copy / PO.relative_to(ROOT)).read_text(encoding="utf-8"))
    committed = {(e.msgctxt, e.msgid, e.msgid_plural) for e in CATALOGUE}
    missing = sorted(
        e.msgid for e in regenerated if (e.msgctxt, e.msgid, e.msgid_plural) not in committed
    )
    assert missing == [], "run makemessages (README: Translations) and translate: " + repr(
        missing[:20]
    )
    problems = _problems(regenerated)
    assert problems == [], "\n".join(problems)
