"""Director pages of the brackets app, all under ``/director/tournaments/<slug>/``.

Thin views (STYLE.md): each resolves the tournament through
:class:`~brackets.views.base.DirectorTournamentMixin`, reads through selectors and
:mod:`brackets.presenters.director`, and every POST calls one service.
"""

from brackets.views.matches import MatchActionView
from brackets.views.overview import ActionLogView, BracketView
from brackets.views.pairs import PairCheckInView, PairSubstituteView, PairsView
from brackets.views.rounds import (
    RoundAdvanceView,
    RoundCallTimeView,
    RoundClockView,
    RoundCloseView,
    RoundPreviewView,
    RoundProgressView,
    RoundPublishView,
    RoundRefereeView,
    RoundSheetLinksView,
    RoundSheetsView,
    StageAdvanceView,
)
from brackets.views.seeding import (
    CheckInManyView,
    CheckInView,
    CsvImportView,
    LateEntryView,
    PinIssueView,
    PlayerAddView,
    PlayerEditView,
    ReorderView,
    SeedingView,
    SeedView,
)
from brackets.views.stages import StageEditView, StageListView
from brackets.views.tournaments import TournamentCreateView, TournamentEditView
from brackets.views.withdraw import WithdrawView

__all__ = [
    "ActionLogView",
    "BracketView",
    "CheckInManyView",
    "CheckInView",
    "CsvImportView",
    "LateEntryView",
    "MatchActionView",
    "PairCheckInView",
    "PairSubstituteView",
    "PairsView",
    "PinIssueView",
    "PlayerAddView",
    "PlayerEditView",
    "ReorderView",
    "RoundAdvanceView",
    "RoundCallTimeView",
    "RoundClockView",
    "RoundCloseView",
    "RoundPreviewView",
    "RoundProgressView",
    "RoundPublishView",
    "RoundRefereeView",
    "RoundSheetLinksView",
    "RoundSheetsView",
    "SeedView",
    "SeedingView",
    "StageAdvanceView",
    "StageEditView",
    "StageListView",
    "TournamentCreateView",
    "TournamentEditView",
    "WithdrawView",
]
