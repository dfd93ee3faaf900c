"""Deals (R1-R2) and the forced opener (R5).

Glossary:
    deal     -- who holds which tiles at the start of a hand: one 28-bit mask per seat plus the
                mask of the tiles not dealt (the *stock*).
    stock    -- the tiles of the set in use that nobody was dealt. Per the effective boneyard
                (:meth:`Ruleset.boneyard_for`) they sleep (never used, R15) or form a draw
                boneyard (R16). Empty when every tile is dealt.
    set      -- the tiles in use: the full double-six set, or the set without 0-0 for three
                players in the standard deal (R2, :meth:`Ruleset.set_mask`).
    forced opener -- the seat that must pose, and the tile it must pose, under a forced pose (R5).

Shuffling takes an injected :class:`random.Random`, so a deal is replayable from a seed:
``deal_tiles(r, 4, random.Random(7)) == deal_tiles(r, 4, random.Random(7))``.
"""

from __future__ import annotations

import random
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Final

from scoring.engine.errors import InvalidRecord
from scoring.engine.rules import Boneyard, Ruleset
from scoring.engine.tiles import ALL_TILES, Tile, mask_of, tiles_from_mask

# Doubles from 6-6 down to 0-0, then every other tile heaviest first: larger pip sum, and on
# equal sums the larger high end (6-3 before 5-4). R5 picks the first one that was dealt.
_DOUBLES_FIRST: Final[tuple[Tile, ...]] = tuple(
    sorted((t for t in ALL_TILES if t.is_double), key=lambda t: -t.high)
)
_HEAVIEST_FIRST: Final[tuple[Tile, ...]] = tuple(
    sorted((t for t in ALL_TILES if not t.is_double), key=lambda t: (-t.pips, -t.high))
)
_BITS: Final = tuple(t.mask for t in ALL_TILES)
R5_ORDER: Final[tuple[Tile, ...]] = _DOUBLES_FIRST + _HEAVIEST_FIRST
"""Every tile in the order R5 prefers it as a forced pose tile (6-6 first)."""


@dataclass(frozen=True, slots=True)
class Deal:
    """The tiles each seat holds at the start of a hand, and the stock (R2).

    ``hands[s]`` is seat ``s``'s tile mask (bit ``tile.index``); ``stock`` is the mask of the
    undealt tiles of the set in use; ``boneyard`` says what the stock is for (R15/R16).
    """

    hands: tuple[int, ...]
    stock: int
    boneyard: Boneyard

    @property
    def n_players(self) -> int:
        return len(self.hands)

    def hand_tiles(self, seat: int) -> list[Tile]:
        """Seat ``seat``'s tiles in set order."""
        return tiles_from_mask(self.hands[seat])

    def holder_of(self, tile: Tile) -> int | None:
        """The seat dealt ``tile``, or ``None`` if it sleeps / lies in the boneyard."""
        bit = tile.mask
        for seat, hand in enumerate(self.hands):
            if hand & bit:
                return seat
        return None

    @classmethod
    def from_tiles(
        cls,
        hands: Sequence[Iterable[Tile]],
        stock: Iterable[Tile] = (),
        boneyard: Boneyard = Boneyard.NONE,
    ) -> Deal:
        """Build a deal from tiles (no checks; see :func:`check_deal`)."""
        return cls(tuple(mask_of(h) for h in hands), mask_of(stock), boneyard)

    def to_dict(self) -> dict[str, object]:
        """Plain JSON: ``{"hands": [["6-6", ...], ...], "stock": [...], "boneyard": "none"}``."""
        return {
            "hands": [[str(t) for t in tiles_from_mask(h)] for h in self.hands],
            "stock": [str(t) for t in tiles_from_mask(self.stock)],
            "boneyard": self.boneyard.value,
        }

    @classmethod
    def from_dict(cls, data: object, *, field: str = "deal") -> Deal:
        """Inverse of :meth:`to_dict`; :class:`InvalidRecord` naming the field on bad input."""
        if not isinstance(data, Mapping):
            raise _bad(field, "The deal must be an object with hands, stock and boneyard (R2).")
        hands_raw = data.get("hands")
        if not isinstance(hands_raw, list) or not hands_raw:
            raise _bad(f"{field}.hands", "The deal must list every seat's tiles (R2).")
        hands = tuple(_parse_tiles(h, f"{field}.hands[{i}]") for i, h in enumerate(hands_raw))
        stock = _parse_tiles(data.get("stock", []), f"{field}.stock")
        raw_boneyard = data.get("boneyard", Boneyard.NONE.value)
        try:
            boneyard = Boneyard(raw_boneyard)
        except ValueError:
            raise _bad(
                f"{field}.boneyard",
                f"boneyard={raw_boneyard!r} is not one of none, sleeping, draw (R2).",
            ) from None
        return cls(hands, stock, boneyard)


def deal_tiles(ruleset: Ruleset, n_players: int, rng: random.Random) -> Deal:
    """Shuffle the set in use with ``rng`` and deal ``ruleset.hand_size(n_players)`` each (R2).

    Seat 0 gets the first ``size`` tiles of the shuffled set, seat 1 the next, and so on; the
    rest is the stock. Raises :class:`InvalidRuleset` if the ruleset cannot be dealt to
    ``n_players`` (R2).

    >>> from scoring.engine.rules import Ruleset
    >>> d = deal_tiles(Ruleset.from_preset("wsod"), 3, random.Random(1))
    >>> [h.bit_count() for h in d.hands], d.stock, d.boneyard.value
    ([9, 9, 9], 0, 'none')
    """
    size = ruleset.hand_size(n_players)
    in_use = ruleset.set_mask(n_players)
    tiles = [bit for bit in _BITS if in_use & bit]
    rng.shuffle(tiles)
    hands = []
    for seat in range(n_players):
        mask = 0
        for bit in tiles[seat * size : (seat + 1) * size]:
            mask |= bit
        hands.append(mask)
    stock = 0
    for bit in tiles[n_players * size :]:
        stock |= bit
    return Deal(tuple(hands), stock, ruleset.boneyard_for(n_players))


def check_deal(ruleset: Ruleset, n_players: int, deal: Deal, *, field: str = "deal") -> None:
    """Reject a deal that R2 does not allow for this ruleset and table.

    Checks the number of seats, each hand's size, that no tile is held twice, that hands plus
    stock are exactly the set in use, and the boneyard kind. Raises :class:`InvalidRecord`.
    """
    if len(deal.hands) != n_players:
        raise _bad(
            f"{field}.hands",
            f"The deal has {len(deal.hands)} hands but the table seats {n_players} players (R2).",
        )
    size = ruleset.hand_size(n_players)
    seen = 0
    for seat, hand in enumerate(deal.hands):
        if hand.bit_count() != size:
            raise _bad(
                f"{field}.hands[{seat}]",
                f"Seat {_seat(seat)} was dealt {hand.bit_count()} tiles; "
                f"this deal gives {size} each (R2).",
            )
        if hand & seen:
            dup = ", ".join(str(t) for t in tiles_from_mask(hand & seen))
            raise _bad(f"{field}.hands[{seat}]", f"{dup} is dealt to two seats (R1).", rule="R1")
        seen |= hand
    if deal.stock & seen:
        dup = ", ".join(str(t) for t in tiles_from_mask(deal.stock & seen))
        raise _bad(f"{field}.stock", f"{dup} is both dealt and in the stock (R1).", rule="R1")
    in_use = ruleset.set_mask(n_players)
    if (seen | deal.stock) != in_use:
        missing = tiles_from_mask(in_use & ~(seen | deal.stock))
        extra = tiles_from_mask((seen | deal.stock) & ~in_use)
        parts = []
        if missing:
            parts.append("missing " + ", ".join(str(t) for t in missing))
        if extra:
            parts.append("not in the set in use: " + ", ".join(str(t) for t in extra))
        raise _bad(
            f"{field}.stock",
            f"Hands and stock must be exactly the set in use; {'; '.join(parts)} (R2).",
        )
    expected = ruleset.boneyard_for(n_players)
    if deal.boneyard is not expected:
        raise _bad(
            f"{field}.boneyard",
            f"This ruleset's boneyard is {expected.value}, not {deal.boneyard.value} (R2).",
        )


def forced_opener(deal: Deal) -> tuple[int, Tile]:
    """The seat that must make a forced pose and the tile it must pose (R5).

    The holder of 6-6 poses 6-6; if 6-6 was not dealt, the holder of the highest double held;
    if no double was dealt, the holder of the heaviest tile (larger pip sum, on equal sums the
    larger high end: 6-3 before 5-4). Tiles in the stock never count.

    >>> d = Deal.from_tiles([[Tile(1, 1), Tile(3, 6)], [Tile(4, 5), Tile(5, 5)]])
    >>> forced_opener(d)
    (1, Tile(low=5, high=5))
    """
    dealt = 0
    for hand in deal.hands:
        dealt |= hand
    for tile in R5_ORDER:
        if dealt & tile.mask:
            holder = deal.holder_of(tile)
            assert holder is not None
            return holder, tile
    raise InvalidRecord(
        code="empty_deal", rule="R5", field="deal", message="Nobody was dealt a tile (R2, R5)."
    )


_TILE_TEXT: Final[dict[str, Tile]] = {
    text: t for t in ALL_TILES for text in (f"{t.high}-{t.low}", f"{t.low}-{t.high}")
}


def parse_tile(text: str) -> Tile:
    """:meth:`Tile.parse` with a fast path for the usual ``"6-3"`` spelling (R1)."""
    tile = _TILE_TEXT.get(text)
    return tile if tile is not None else Tile.parse(text)


_TEXT_BIT: Final[dict[str, int]] = {text: t.mask for text, t in _TILE_TEXT.items()}


def _parse_tiles(raw: object, field: str) -> int:
    if not isinstance(raw, list):
        raise _bad(field, "Expected a list of tiles written like 6-6 or 5-3 (R1).")
    mask = 0
    bits = _TEXT_BIT
    for item in raw:  # fast path: canonical spellings, no tile twice
        bit = bits.get(item) if type(item) is str else None
        if bit is None or mask & bit:
            break
        mask |= bit
    else:
        return mask
    mask = 0
    for i, item in enumerate(raw):
        if not isinstance(item, str):
            raise _bad(f"{field}[{i}]", f"{item!r} is not a tile; write it like 6-6 (R1).")
        try:
            tile = parse_tile(item)
        except ValueError as exc:
            raise _bad(f"{field}[{i}]", str(exc)) from None
        if mask & tile.mask:
            raise _bad(f"{field}[{i}]", f"{tile} is listed twice (R1).", rule="R1")
        mask |= tile.mask
    return mask


def _seat(seat: int) -> str:
    return "ABCD"[seat] if 0 <= seat < 4 else str(seat)


def _bad(field: str, message: str, *, rule: str = "R2") -> InvalidRecord:
    return InvalidRecord(code="invalid_deal", rule=rule, field=field, message=message)


__all__ = ["R5_ORDER", "Deal", "check_deal", "deal_tiles", "forced_opener", "parse_tile"]
