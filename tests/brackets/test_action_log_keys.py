"""Every key a service records in the action log reads as words in the page's language.

QA walkthrough (Spanish page): the details showed raw keys ("Created players", "Namesakes",
"Tournament finished: sí", "By: system", "Prefix", "Username"), raw statuses ("Después:
finished"), counts as if they were player references ("Jugadores: #6" for an import of 6,
"Fuera de la fase: #12"), and a final-table-only stage created as "Eliminatoria por mesas
hasta una mesa final".

The first test reads the code: every ``data=`` a logging call passes (a dict literal, a dict
built in the function, ``**`` spreads, nested dicts) is collected, so a new key without a
label fails here.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest
from django.conf import settings
from django.urls import reverse
from django.utils import translation

from brackets.csv_import import PlayerRow
from brackets.models import Stage
from brackets.presenters.log_details import KEY_LABELS
from brackets.services import stage_create
from brackets.services.imports import players_import_csv
from brackets.services.stages import _ANYTIME, _BEFORE_START
from scoring.engine.record import HandRecord
from tests.brackets.factories_pages import director_client, tournament_with_stage
from tournament.services import action_log_record
from tournament.services.tournaments import _UPDATABLE, tournament_mark_finished

APPS = ("archive", "brackets", "circuits", "core", "live", "notify", "ratings", "scoring")
APPS += ("tournament",)
LOGGERS = {"action_log_record", "action_log_record_by_id"}
# data built from something other than a literal, by (file, function): the keys it can hold.
DYNAMIC: dict[tuple[str, str], set[str]] = {
    # stage_update logs the fields it was given
    ("brackets/services/stages.py", "stage_update"): set(_ANYTIME | _BEFORE_START),
    # tournament_update logs the fields it was given, less the name
    ("tournament/services/tournaments.py", "tournament_update"): set(_UPDATABLE) - {"name"},
    # player_update logs {field: {before, after}}: the change lines name those fields
    ("tournament/services/people.py", "player_update"): set(),
}
# data[because] = True: the reasons the system revokes an invitation
BECAUSE = {"tournament_finished", "issuer_removed"}
# dicts keyed by an id (round.call_time's decisions by match id)
ID_KEYED = {"decisions"}
# a dispute's claim is a HandRecord.to_dict(); the referee's version has the same keys
HAND_KEYS = set(HandRecord.__dataclass_fields__)
# change lines (player.update) show before and after as an arrow
CHANGE_KEYS = {"before", "after"}


def _dict_keys(node: ast.AST, scope: ast.AST) -> set[str]:
    """The string keys of a dict literal, nested ones and resolved ``**name`` spreads too."""
    keys: set[str] = set()
    if isinstance(node, ast.Dict):
        for key, value in zip(node.keys, node.values, strict=True):
            if key is None and isinstance(value, ast.Name):
                keys |= _name_keys(value.id, scope)
            elif isinstance(key, ast.Constant) and isinstance(key.value, str):
                keys.add(key.value)
            keys |= _dict_keys(value, scope)
    elif isinstance(node, ast.Name):
        keys |= _name_keys(node.id, scope)
    elif isinstance(node, ast.ListComp | ast.List):
        for child in ast.iter_child_nodes(node):
            keys |= _dict_keys(child, scope)
    return keys


def _name_keys(name: str, scope: ast.AST) -> set[str]:
    """The keys of a dict a function builds in ``name``: assignments and ``name["k"] = v``."""
    keys: set[str] = set()
    for node in ast.walk(scope):
        if isinstance(node, ast.Assign | ast.AnnAssign):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            for target in targets:
                if isinstance(target, ast.Name) and target.id == name and node.value:
                    keys |= _dict_keys(node.value, scope)
                if (
                    isinstance(target, ast.Subscript)
                    and isinstance(target.value, ast.Name)
                    and target.value.id == name
                ):
                    if isinstance(target.slice, ast.Constant):
                        keys.add(str(target.slice.value))
                    elif isinstance(target.slice, ast.Name) and target.slice.id == "because":
                        keys |= BECAUSE
                    elif name in ID_KEYED:
                        pass  # keyed by id: only its values' keys are words
                    else:
                        raise AssertionError(f"data[{ast.unparse(target.slice)}]: list its keys")
                    keys |= _dict_keys(node.value, scope) if node.value else set()
    return keys


def _is_logger(call: ast.Call) -> bool:
    func = call.func
    if isinstance(func, ast.Name):
        return func.id in LOGGERS
    # ActionLog.objects.create(...) (the system's own marks)
    return ast.unparse(func) == "ActionLog.objects.create"


def recorded_keys() -> set[str]:
    """Every key of the data any service records, read from the source."""
    root = Path(settings.BASE_DIR)
    keys: set[str] = set()
    calls = 0
    for app in APPS:
        for path in (root / app).rglob("*.py"):
            if "migrations" in path.parts:
                continue
            tree = ast.parse(path.read_text(encoding="utf-8"))
            relative = path.relative_to(root).as_posix()
            for function in ast.walk(tree):
                if not isinstance(function, ast.FunctionDef):
                    continue
                for call in ast.walk(function):
                    if not isinstance(call, ast.Call) or not _is_logger(call):
                        continue
                    data = next((k.value for k in call.keywords if k.arg == "data"), None)
                    if data is None or function.name in LOGGERS:
                        continue  # no data, or the helpers passing their caller's on
                    calls += 1
                    dynamic = DYNAMIC.get((relative, function.name))
                    if dynamic is not None:
                        keys |= dynamic
                        continue
                    if isinstance(data, ast.Call | ast.DictComp):
                        raise AssertionError(f"{relative} {function.name}: list its keys")
                    found = _dict_keys(data, function)
                    assert found, f"{relative} {function.name}: no key found in its data"
                    keys |= found
    assert calls > 40, calls  # the scan reaches the services of every layer
    return keys


def test_every_recorded_key_has_a_label() -> None:
    keys = recorded_keys()
    # the scan finds literal keys, spreads, keys set afterwards and nested ones
    assert {"created_players", "namesakes", "by", "prefix", "username"} <= keys
    assert {"hold_before", "tournament_finished", "issuer_removed", "seeded_from"} <= keys
    assert {"cut_size", "ruleset_overrides", "slot", "winner_seat", "llave"} <= keys | HAND_KEYS
    keys |= HAND_KEYS
    assert sorted(keys - CHANGE_KEYS - set(KEY_LABELS)) == []


def test_every_recorded_key_label_is_translated() -> None:
    keys = recorded_keys() | HAND_KEYS
    with translation.override("en"):
        english = {key: str(label) for key, label in KEY_LABELS.items()}
    with translation.override("es"):
        spanish = {key: str(label) for key, label in KEY_LABELS.items()}
    # A label the catalogue lacks reads in English on the Spanish page ("llave" is Spanish).
    untranslated = [k for k in keys & set(KEY_LABELS) if spanish[k] == english[k]]
    assert sorted(untranslated) == []


pytestmark = pytest.mark.django_db


def _details(client_language: str, slug: str, director: object) -> list[str]:
    client = director_client(director)
    client.defaults["HTTP_ACCEPT_LANGUAGE"] = client_language
    html = client.get(reverse("brackets:log", args=[slug])).content.decode()
    return re.findall(r'<span class="detail">([^<]*)</span>', html)


@pytest.mark.parametrize(
    ("language", "expected", "wrong"),
    [
        (
            "en",
            [
                "Players: 6",
                "Out of the stage: 12",
                "After: Finished",
                "By: the system",
                "Kind: Final table only",
            ],
            ["Players: #6", "Out of the stage: #12", "After: finished", "By: system"],
        ),
        (
            "es",
            ["Jugadores: 6", "Fuera de la fase: 12", "Después: Terminado"],
            [
                "Jugadores: #6",
                "Fuera de la fase: #12",
                "Después: finished",
                "Tipo: Eliminatoria por mesas hasta una mesa final",
            ],
        ),
    ],
)
def test_counts_statuses_and_a_final_only_stage_read_as_words(
    language: str, expected: list[str], wrong: list[str]
) -> None:
    t, d, qualifying = tournament_with_stage(8, cut_size=4)
    rows = [PlayerRow(100 + i, f"Nuevo {i}") for i in range(6)]
    players_import_csv(tournament=t, actor=d, rows=rows, check_in=True)
    # a qualifying stage's finish records how many went out (a count, not a list of ids)
    action_log_record(
        tournament=t, actor=d, verb="stage.finish", target=qualifying, data={"eliminated": 12}
    )
    stage_create(tournament=t, actor=d, name="Final", kind=Stage.Kind.KNOCKOUT, final_table_size=4)
    assert tournament_mark_finished(tournament_id=t.pk)
    details = _details(language, t.slug, d)
    for line in expected:
        assert line in details, (line, details)
    for line in wrong:
        assert line not in details, line
    if language == "es":
        assert not [x for x in details if x.startswith("Tipo: Eliminatoria")]


def test_an_invitation_revoked_at_the_finish_and_a_referee_key_read_as_words() -> None:
    t, d, _stage = tournament_with_stage(4)
    action_log_record(
        tournament=t,
        actor=d,
        verb="director_invitation.revoke",
        target=t,
        data={"prefix": "ab12", "tournament_finished": True},
    )
    action_log_record(
        tournament=t,
        actor=d,
        verb="referee.create",
        target=t,
        data={"username": "ref-1", "user_id": d.pk},
    )
    details = _details("en", t.slug, d)
    assert "Key prefix: ab12" in details
    assert "Because the tournament finished: yes" in details
    assert "User name: ref-1" in details
    assert not [x for x in details if x.startswith(("Prefix", "Username", "Tournament finished"))]
