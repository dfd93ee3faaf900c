// The match-scoring reducer in JavaScript: hand outcome records -> match state
// (RULES.md sections 3, 7, 8, 9; R25-R35, R40-R41). A plain ES module, used by the referee page
// (to show the next poser, value and scores while offline) and by Node in the differential test
// (tests/scoring/engine/test_match_js.py). It mirrors scoring/engine/match.py and
// match_state.py; the numbered "decisions" cited below are that module's. The server stays the
// authority: this reducer does not validate records (section 9), the API does.
//
// A state has the layout of scoring.engine.match_state.state_to_json, so Python and JS states
// compare as JSON. A ruleset is Ruleset.to_json(); a record is HandRecord.to_dict().
// Partnerships (teams = partners, R42-R46) are not folded here yet: matchStart refuses them.

const SEATS = "ABCDEFGH";
const STATS_LEN = 10; // hands_won .. six_love_received, in PlayerStats order (R35)
const [HANDS_WON, DOMINO_WINS, BLOCK_WINS, LLAVES, TIES, REPLAYS_WON, RESETS_CAUSED,
  PLAYOFFS_WON, SIX_LOVE_GIVEN, SIX_LOVE_RECEIVED] = [0, 1, 2, 3, 4, 5, 6, 7, 8, 9];

export class UnsupportedRuleset extends Error {
  constructor(message, rule) {
    super(message);
    this.name = "UnsupportedRuleset";
    this.rule = rule;
  }
}

export function seatName(seat) {
  return seat >= 0 && seat < SEATS.length ? SEATS[seat] : `seat ${seat}`;
}

/** The winning score (R30-R32; R41: 100 for two players, 61 for three or four). */
export function targetFor(ruleset, n) {
  if (ruleset.target !== null && ruleset.target !== undefined) return ruleset.target;
  if (ruleset.scoring === "pips") return n === 2 || ruleset.teams === "partners" ? 100 : 61;
  return 6;
}

function context(ruleset, n) {
  if (ruleset.teams === "partners") {
    throw new UnsupportedRuleset(
      "Partnerships (teams = partners) are scored by the server only; " +
        "the offline preview does not fold them (R42).",
      "R42",
    );
  }
  if (!Number.isInteger(n) || n < 2 || n > 4) {
    throw new UnsupportedRuleset(`A match has 2, 3 or 4 players, not ${n} (R2).`, "R2");
  }
  return {
    n,
    target: targetFor(ruleset, n),
    scoring: ruleset.scoring,
    anyChallenger: ruleset.scoring === "six_love" && ruleset.reset_rule === "any_challenger",
    playoffOnAllOnes: ruleset.all_ones === "playoff",
    playoffValue: ruleset.playoff_value,
    tieValue: ruleset.tie_value,
    tieValueCap: ruleset.tie_value_cap,
    tieOpener: ruleset.tie_opener,
    leaderLossResets: ruleset.replay_leader_loss === "reset",
    resetForced: ruleset.after_reset_opener === "six_six_holder",
    llave: ruleset.llave,
    rotate: ruleset.opening === "lot_then_rotate",
  };
}

/** R26: the value of a hand after k consecutive ties (0 under pip scoring, decision 4). */
function handValue(ctx, k, playoff) {
  if (ctx.scoring === "pips") return 0;
  const base = playoff ? ctx.playoffValue : 1;
  if (k === 0) return base;
  let v;
  if (ctx.tieValue === "escalate") v = base + k;
  else if (ctx.tieValue === "flat2") v = Math.max(base, 2);
  else v = base;
  if (ctx.tieValueCap !== null && ctx.tieValueCap !== undefined) {
    v = Math.min(v, Math.max(ctx.tieValueCap, base));
  }
  return v;
}

function next(number, poser, forced, value, isReplay, isPlayoff, tieRun, leader, reason, rule) {
  return {
    number,
    poser,
    forced,
    forced_tile: forced ? "6-6" : null,
    value,
    is_replay: isReplay,
    is_playoff: isPlayoff,
    tie_run: tieRun,
    leader,
    reason,
    rule,
  };
}

function rotateReason(n, poser) {
  return `${seatName((poser + 1) % n)} follows ${seatName(poser)} in play order (R6)`;
}

/** The state before the first hand (R25, R6); lotWinner is the seat that won the draw. */
export function matchStart(ruleset, n, lotWinner = 0) {
  const ctx = context(ruleset, n);
  const base = ctx.scoring === "pips" ? 0 : 1;
  const first = ctx.rotate
    ? next(1, lotWinner, false, base, false, false, 0, null,
      `${seatName(lotWinner)} won the draw for the lead (R6)`, "R6")
    : next(1, null, true, base, false, false, 0, null,
      "first hand: the holder of 6-6 poses it (R6, R5)", "R6");
  return {
    format: 1,
    n_players: n,
    scores: new Array(n).fill(0),
    hands: 0,
    next: first,
    over: false,
    winner: null,
    stats: Array.from({ length: n }, () => new Array(STATS_LEN).fill(0)),
    last_poser: null,
    tie_run: 0,
    leader: null,
    playoff: false,
    lot_winner: lotWinner,
  };
}

function lowestSeats(counts) {
  const low = Math.min(...counts);
  const seats = [];
  counts.forEach((c, i) => {
    if (c === low) seats.push(i);
  });
  return seats;
}

/** R28: the player strictly above everyone else and on at least 1, else null. */
function uniqueLeader(scores) {
  const top = Math.max(...scores);
  if (top < 1 || scores.filter((s) => s === top).length !== 1) return null;
  return scores.indexOf(top);
}

function withAdded(scores, seat, points) {
  const out = scores.slice();
  out[seat] += points;
  return out;
}

function copyStats(stats) {
  return stats.map((row) => row.slice());
}

/**
 * Fold one hand record into the state (R25-R35, R40-R41). Returns {state, scored}; scored
 * mirrors HandScored (number, value, paid, winner, tied, reset, playoff_next, scores_after,
 * match_over, notes). Throws when the match is already over (R33).
 */
export function matchApply(ruleset, state, record) {
  if (state.over) throw new RangeError("The match is over: no more hands (R33).");
  const ctx = context(ruleset, state.n_players);
  const n = state.n_players;
  const number = state.hands + 1;
  const scores = state.scores;
  const counts = record.counts;
  const domino = record.end === "domino";
  let w;
  if (domino) {
    w = record.winner;
  } else {
    const tied = lowestSeats(counts);
    if (tied.length > 1) return stepTie(ctx, state, record, tied, number);
    w = tied[0];
  }
  const value = state.next.value;
  const wasReplay = state.tie_run > 0;
  const leader = state.leader;
  let reset = false;
  let playoffNext = false;
  let over = false;
  let sixLoveTo = [];
  let paid;
  let newScores;
  let rule = "";
  const notes = [];

  if (ctx.scoring === "pips") {
    paid = counts.reduce((a, b) => a + b, 0) - 2 * counts[w]; // R40
    newScores = withAdded(scores, w, paid);
    over = newScores[w] >= ctx.target;
    rule = "R41";
  } else {
    let p = value;
    if (record.llave) p = ctx.llave === "plus_one" ? value + 1 : Math.max(value, 2); // R24
    if (ctx.leaderLossResets && !ctx.anyChallenger && wasReplay && leader !== null && w !== leader) {
      // R31(a); under straight_six it applies first too (R30). Decision 5: not under R32.
      reset = true;
      paid = 0;
      newScores = new Array(n).fill(0);
      notes.push(`leader ${seatName(leader)} lost the replay: RESET, ${seatName(w)} scores nothing (R31a)`);
    } else if (ctx.scoring === "straight_six") {
      paid = p;
      newScores = withAdded(scores, w, p); // R30
      if (newScores[w] >= ctx.target) {
        over = true;
        rule = "R30";
        if (newScores.filter((s) => s === 0).length === n - 1) {
          sixLoveTo = [...Array(n).keys()].filter((i) => i !== w);
        }
      }
    } else if (ctx.anyChallenger) {
      const holder = [...Array(n).keys()].find((i) => i !== w && scores[i] > 0);
      if (holder !== undefined) {
        // R32: a challenger wins, everything resets
        reset = true;
        paid = 0;
        newScores = new Array(n).fill(0);
        playoffNext = ctx.playoffOnAllOnes && scores[holder] === 1;
        notes.push(`${seatName(holder)} had points: RESET, ${seatName(w)} scores nothing (R32)` +
          (playoffNext ? "; play-off next (R9)" : ""));
      } else {
        paid = p;
        newScores = withAdded(scores, w, p);
        if (newScores[w] >= ctx.target) {
          over = true;
          rule = "R32";
          sixLoveTo = [...Array(n).keys()].filter((i) => newScores[i] === 0);
        }
      }
    } else {
      const added = withAdded(scores, w, p); // R31(b)
      if (added[w] >= ctx.target && added.includes(0)) {
        over = true; // R31(c)
        rule = "R31c";
        paid = p;
        newScores = added;
        sixLoveTo = [...Array(n).keys()].filter((i) => added[i] === 0);
      } else if (!added.includes(0)) {
        // R31(d): everyone has scored
        reset = true;
        paid = 0;
        newScores = new Array(n).fill(0);
        playoffNext = ctx.playoffOnAllOnes && added.every((s) => s === 1);
        notes.push(playoffNext ? "all ones: RESET, play-off next (R31d, R9)"
          : "everyone has scored: RESET (R31d)");
      } else {
        paid = p; // R31(e)
        newScores = added;
      }
    }
    if (record.llave) notes.unshift(`llave: the hand pays ${p} (R24)`);
  }

  const stats = copyStats(state.stats);
  const row = stats[w];
  row[HANDS_WON] += 1;
  row[DOMINO_WINS] += domino ? 1 : 0;
  row[BLOCK_WINS] += domino ? 0 : 1;
  row[LLAVES] += record.llave ? 1 : 0;
  row[REPLAYS_WON] += wasReplay ? 1 : 0;
  row[RESETS_CAUSED] += reset ? 1 : 0;
  row[PLAYOFFS_WON] += state.playoff ? 1 : 0;
  row[SIX_LOVE_GIVEN] += sixLoveTo.length;
  for (const i of sixLoveTo) stats[i][SIX_LOVE_RECEIVED] += 1;

  const following = number + 1;
  let nxt;
  if (over) {
    nxt = next(following, null, false, 0, false, false, 0, null, `${seatName(w)} won`, "R33");
    nxt.forced_tile = null;
  } else if (ctx.rotate) {
    // decision 2: rotation regardless
    nxt = next(following, (record.poser + 1) % n, false, handValue(ctx, 0, playoffNext), false,
      playoffNext, 0, null, rotateReason(n, record.poser), "R6");
  } else if (playoffNext) {
    nxt = next(following, null, true, ctx.playoffValue, false, true, 0, null,
      "play-off: the holder of 6-6 poses (R9)", "R9");
  } else if (reset && ctx.resetForced) {
    nxt = next(following, null, true, 1, false, false, 0, null,
      "after the reset the holder of 6-6 poses (R8)", "R8");
  } else if (reset) {
    nxt = next(following, w, false, 1, false, false, 0, null,
      `${seatName(w)} won the hand that caused the reset (R8)`, "R8");
  } else {
    nxt = next(following, w, false, ctx.scoring === "pips" ? 0 : 1, false, false, 0, null,
      `${seatName(w)} won the last hand (R7)`, "R7");
  }

  const newState = {
    ...state,
    scores: newScores,
    hands: number,
    next: nxt,
    over,
    winner: over ? w : null,
    stats,
    last_poser: record.poser,
    tie_run: 0,
    leader: null,
    playoff: playoffNext,
  };
  notes.unshift(domino ? `${seatName(w)} dominoes (R18)`
    : `${seatName(w)} wins the block with the lowest count (R20)`);
  if (ctx.scoring === "pips") notes.push(`${seatName(w)} is credited ${paid} (R40)`);
  if (over) {
    let text = `${seatName(w)} reaches ${ctx.target}: match over (${rule}, R33)`;
    if (sixLoveTo.length) text += `; six-love to ${sixLoveTo.map(seatName).join(", ")}`;
    notes.push(text);
  }
  const scored = {
    number, value, paid, winner: w, tied: [], reset, playoff_next: playoffNext,
    scores_after: newScores, match_over: over, notes,
  };
  return { state: newState, scored };
}

/** R27 (R40 under pip scoring): scores stand, k grows, the replay is posed per R10. */
function stepTie(ctx, state, record, tied, number) {
  const n = state.n_players;
  const k = state.tie_run + 1;
  const leader = state.tie_run > 0 ? state.leader : uniqueLeader(state.scores); // R28
  const playoff = state.playoff; // R27: the replay of a play-off is still a play-off
  const stats = copyStats(state.stats);
  for (const i of tied) stats[i][TIES] += 1;
  const valueNext = handValue(ctx, k, playoff);
  let poser;
  let rule;
  let reason;
  if (ctx.rotate) {
    poser = (record.poser + 1) % n;
    rule = "R6";
    reason = rotateReason(n, record.poser);
  } else if (ctx.scoring === "pips") {
    poser = record.poser;
    rule = "R41";
    reason = `replay: ${seatName(record.poser)} posed the tied hand and poses again (R41)`;
  } else if (ctx.tieOpener === "leader") {
    poser = leader;
    rule = "R10";
    reason = leader !== null ? `replay: ${seatName(leader)} is the leader (R10, R28)`
      : "replay with no unique leader: the holder of 6-6 poses (R10, R28)";
  } else if (ctx.tieOpener === "previous_opener") {
    poser = state.next.forced ? null : record.poser; // decision 3
    rule = "R10";
    reason = poser === null ? "replay: the tied hand was a forced pose, so this one is too (R10)"
      : `replay: ${seatName(record.poser)} posed the tied hand and poses again (R10)`;
  } else {
    poser = null;
    rule = "R10";
    reason = "replay: the holder of 6-6 poses (R10)";
  }
  const nxt = next(number + 1, poser, poser === null, valueNext, true, playoff, k, leader,
    reason, rule);
  const newState = {
    ...state,
    hands: number,
    next: nxt,
    over: false,
    winner: null,
    stats,
    last_poser: record.poser,
    tie_run: k,
    leader,
    playoff,
  };
  const notes = [`tie ${tied.map(seatName).join("=")} (R20): scores unchanged (R27)`];
  if (state.tie_run === 0) {
    notes.push(leader !== null ? `leader ${seatName(leader)} (R28)` : "no leader (R28)");
  }
  const scored = {
    number, value: state.next.value, paid: 0, winner: null, tied, reset: false,
    playoff_next: playoff, scores_after: state.scores, match_over: false, notes,
  };
  return { state: newState, scored };
}

/** Fold records from the start of a match; returns the final state. */
export function matchFold(ruleset, n, records, lotWinner = 0) {
  let state = matchStart(ruleset, n, lotWinner);
  for (const record of records) state = matchApply(ruleset, state, record).state;
  return state;
}
