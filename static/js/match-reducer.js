// The match-scoring reducer in JavaScript: hand outcome records -> match state
// (RULES.md sections 3, 7, 8, 9, 12; R25-R35, R40-R46). A plain ES module, used by the referee page
// (to show the next poser, value and scores while offline) and by Node in the differential test
// (tests/scoring/engine/test_match_js.py). It mirrors scoring/engine/match.py and
// match_state.py, and partnerships (teams = partners, R42-R46) mirror scoring/engine/partners.py
// (its decisions P1-P4); the numbered "decisions" cited below are that module's. The server stays the
// authority: this reducer does not validate records (section 9), the API does.
//
// A state has the layout of scoring.engine.match_state.state_to_json, so Python and JS states
// compare as JSON. A ruleset is Ruleset.to_json(); a record is HandRecord.to_dict().
// Under partnerships every seat's score is its partnership's (AC = seats 0 and 2, BD = 1 and 3),
// a leader is a partnership number and the state carries team_stats (R42, R46).

const SEATS = "ABCDEFGH";
const TEAM_NAMES = ["AC", "BD"];
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
  const partners = ruleset.teams === "partners";
  if (partners && n !== 4) {
    throw new UnsupportedRuleset(`A partnership match has 4 players, not ${n} (R42).`, "R42");
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
    partners,
    partnerNet: ruleset.partner_credit === "net",
  };
}

/** "AC" for partnership 0, "BD" for partnership 1 (R42). */
export function teamName(team) {
  return TEAM_NAMES[team];
}

/** R44: of team's two players, the one reached first going round from the seat after poser. */
export function firstPartnerAfter(poser, team) {
  const seat = (poser + 1) % 4;
  return seat % 2 === team ? seat : (seat + 1) % 4;
}

function pair(team) {
  return `${seatName(team)} and ${seatName(team + 2)}`;
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
  const state = {
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
  if (ctx.partners) state.team_stats = [new Array(STATS_LEN).fill(0), new Array(STATS_LEN).fill(0)];
  return state;
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
  if (ctx.partners) return stepPartners(ctx, state, record); // R42-R46
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

  const nxt = nextAfterWin(ctx, record, n, number, w, {
    over, playoffNext, reset, won: `${seatName(w)} won`,
    afterReset: [`${seatName(w)} won the hand that caused the reset (R8)`, "R8"],
    afterLast: [`${seatName(w)} won the last hand (R7)`, "R7"],
  });
  if (over) nxt.forced_tile = null;

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

/** The next hand after a won one: none when the match is over (R33), the next seat under
 * rotation (R6), the holder of 6-6 in a play-off (R9) or after a forced reset (R8), else the
 * winner, with ``afterReset`` (R8) or ``afterLast`` (R7) as its [reason, rule]. Shared by the
 * individual and the partnership step (R44 names the partner in their reasons). */
function nextAfterWin(ctx, record, n, number, w, how) {
  const { over, playoffNext, reset, won, afterReset, afterLast } = how;
  const following = number + 1;
  if (over) return next(following, null, false, 0, false, false, 0, null, won, "R33");
  if (ctx.rotate) {
    return next(following, (record.poser + 1) % n, false, handValue(ctx, 0, playoffNext), false,
      playoffNext, 0, null, rotateReason(n, record.poser), "R6");
  }
  if (playoffNext) {
    return next(following, null, true, ctx.playoffValue, false, true, 0, null,
      "play-off: the holder of 6-6 poses (R9)", "R9");
  }
  if (reset && ctx.resetForced) {
    return next(following, null, true, 1, false, false, 0, null,
      "after the reset the holder of 6-6 poses (R8)", "R8");
  }
  if (reset) return next(following, w, false, 1, false, false, 0, null, ...afterReset);
  return next(following, w, false, ctx.scoring === "pips" ? 0 : 1, false, false, 0, null,
    ...afterLast);
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
  const pose = tiePose(ctx, state, record, n, () => [
    leader,
    "R10",
    leader !== null ? `replay: ${seatName(leader)} is the leader (R10, R28)`
      : "replay with no unique leader: the holder of 6-6 poses (R10, R28)",
  ]);
  const notes = [`tie ${tied.map(seatName).join("=")} (R20): scores unchanged (R27)`];
  if (state.tie_run === 0) {
    notes.push(leader !== null ? `leader ${seatName(leader)} (R28)` : "no leader (R28)");
  }
  return tieStep(state, record, number, tied, { k, leader, playoff, valueNext, stats, pose, notes });
}

/** Who poses the replay of a tied hand (R27) and why, as [poser, rule, reason]: the next seat
 * (R6), the same poser under pip scoring (R41), the leader (``leaderPose``: R10 for players,
 * R44 for partnerships), the tied hand's poser (R10, decision 3) or the holder of 6-6 (R10). */
function tiePose(ctx, state, record, n, leaderPose) {
  if (ctx.rotate) return [(record.poser + 1) % n, "R6", rotateReason(n, record.poser)];
  if (ctx.scoring === "pips") {
    return [record.poser, "R41",
      `replay: ${seatName(record.poser)} posed the tied hand and poses again (R41)`];
  }
  if (ctx.tieOpener === "leader") return leaderPose();
  if (ctx.tieOpener === "previous_opener") {
    const poser = state.next.forced ? null : record.poser; // decision 3
    return [poser, "R10", poser === null
      ? "replay: the tied hand was a forced pose, so this one is too (R10)"
      : `replay: ${seatName(record.poser)} posed the tied hand and poses again (R10)`];
  }
  return [null, "R10", "replay: the holder of 6-6 poses (R10)"];
}

/** The state and scored line after a tied hand (R27): scores stand, the replay is next. */
function tieStep(state, record, number, tied, step) {
  const { k, leader, playoff, valueNext, stats, pose, notes, extra = {} } = step;
  const [poser, rule, reason] = pose;
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
    ...extra,
  };
  const scored = {
    number, value: state.next.value, paid: 0, winner: null, tied, reset: false,
    playoff_next: playoff, scores_after: state.scores, match_over: false, notes,
  };
  return { state: newState, scored };
}

// -- partnerships (R42-R46, scoring/engine/partners.py) -----------------------------------------

function mirror(ac, bd) {
  return [ac, bd, ac, bd]; // every seat shows its partnership's score (R42)
}

function credit(row, domino, llave, wasReplay, reset, playoff) {
  row[HANDS_WON] += 1;
  row[DOMINO_WINS] += domino ? 1 : 0;
  row[BLOCK_WINS] += domino ? 0 : 1;
  row[LLAVES] += llave ? 1 : 0;
  row[REPLAYS_WON] += wasReplay ? 1 : 0;
  row[RESETS_CAUSED] += reset ? 1 : 0;
  row[PLAYOFFS_WON] += playoff ? 1 : 0;
}

/** Fold one record of a partnership match (R43-R46 over R25-R41; decisions P1-P4). */
function stepPartners(ctx, state, record) {
  const number = state.hands + 1;
  const counts = record.counts;
  const domino = record.end === "domino";
  let shared = false;
  let w;
  let credited;
  if (domino) {
    w = record.winner;
    credited = [w];
  } else {
    const lows = lowestSeats(counts);
    if (lows.length === 1) {
      w = lows[0];
      credited = lows;
    } else if (lows.length === 2 && lows[1] - lows[0] === 2) {
      shared = true; // two partners share the lowest count (R43)
      w = firstPartnerAfter(record.poser, lows[0]);
      credited = lows;
    } else {
      return stepPartnersTie(ctx, state, record, lows, number); // R43
    }
  }
  const team = w & 1;
  const opp = team ^ 1;
  const mine = state.scores[team];
  let theirs = state.scores[opp];
  const value = state.next.value;
  const wasReplay = state.tie_run > 0;
  const leader = state.leader; // a partnership (R42, R28)
  let reset = false;
  let playoffNext = false;
  let over = false;
  let sixLove = false;
  let newMine = mine;
  let paid;
  let rule = "";
  const notes = [];
  const tname = teamName(team);

  if (ctx.scoring === "pips") {
    const own = counts[team] + counts[team + 2];
    const other = counts[opp] + counts[opp + 2];
    paid = ctx.partnerNet ? Math.max(0, other - own) : other; // R45, decision P3
    newMine = mine + paid;
    over = newMine >= ctx.target;
    rule = "R45";
  } else {
    let p = value;
    if (record.llave) p = ctx.llave === "plus_one" ? value + 1 : Math.max(value, 2); // R24
    if (ctx.leaderLossResets && !ctx.anyChallenger && wasReplay && leader !== null
      && team !== leader) {
      // R31(a) for partnerships (R44); under straight_six it applies first (R30)
      reset = true;
      paid = 0;
      newMine = 0;
      theirs = 0;
      notes.push(`leader ${teamName(leader)} lost the replay: RESET, ${tname} scores nothing (R31a, R44)`);
    } else if (ctx.scoring === "straight_six") {
      paid = p;
      newMine = mine + p; // R30
      if (newMine >= ctx.target) {
        over = true;
        rule = "R30";
        sixLove = theirs === 0;
      }
    } else if (ctx.anyChallenger) {
      if (theirs > 0) {
        // R32: the other partnership has points, everything resets
        playoffNext = ctx.playoffOnAllOnes && theirs === 1;
        reset = true;
        paid = 0;
        newMine = 0;
        theirs = 0;
        notes.push(`${teamName(opp)} had points: RESET, ${tname} scores nothing (R32, R44)` +
          (playoffNext ? "; play-off next (R9)" : ""));
      } else {
        paid = p;
        newMine = mine + p;
        if (newMine >= ctx.target) {
          over = true;
          rule = "R32";
          sixLove = true;
        }
      }
    } else {
      const added = mine + p; // R31(b)
      if (added >= ctx.target && theirs === 0) {
        over = true; // R31(c)
        rule = "R31c";
        sixLove = true;
        paid = p;
        newMine = added;
      } else if (theirs > 0) {
        // R31(d): both partnerships have scored (R44)
        playoffNext = ctx.playoffOnAllOnes && added === 1 && theirs === 1;
        reset = true;
        paid = 0;
        newMine = 0;
        theirs = 0;
        notes.push(playoffNext ? "all ones: RESET, play-off next (R31d, R9, R44)"
          : "both partnerships have scored: RESET (R31d, R44)");
      } else {
        paid = p; // R31(e)
        newMine = added;
      }
    }
    if (record.llave) notes.unshift(`llave: the hand pays ${p} (R24)`);
  }

  const newScores = team === 0 ? mirror(newMine, theirs) : mirror(theirs, newMine);

  // R35 per player and per partnership (R46, decision P1).
  const stats = copyStats(state.stats);
  for (const seat of credited) {
    credit(stats[seat], domino, record.llave, wasReplay, reset, state.playoff);
  }
  const teamStats = copyStats(state.team_stats);
  credit(teamStats[team], domino, record.llave, wasReplay, reset, state.playoff);
  if (sixLove) {
    teamStats[team][SIX_LOVE_GIVEN] += 1;
    for (const seat of [team, team + 2]) stats[seat][SIX_LOVE_GIVEN] += 1;
    for (const seat of [opp, opp + 2]) stats[seat][SIX_LOVE_RECEIVED] += 1;
    teamStats[opp][SIX_LOVE_RECEIVED] += 1;
  }

  const names = (seat) => seatName(seat);
  const first = names(firstPartnerAfter(record.poser, team));
  // R8 hand_winner and R7 (R41 under pip scoring with a forced opening), with R44
  const nxt = nextAfterWin(ctx, record, 4, number, w, {
    over, playoffNext, reset, won: `${tname} won`,
    afterReset: shared
      ? [`${pair(team)} shared the lowest count of the hand that caused the reset: of them, ` +
        `${first} comes first after ${names(record.poser)} (R8, R44)`, "R44"]
      : [`${names(w)} won the hand that caused the reset for ${TEAM_NAMES[w % 2]} (R8, R44)`,
        "R8"],
    afterLast: shared
      ? [`${pair(team)} shared the lowest count: of them, ${first} comes first after ` +
        `${names(record.poser)} (R7, R44)`, "R44"]
      : [`${names(w)} won the last hand for ${TEAM_NAMES[w % 2]} (R7, R44)`, "R7"],
  });

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
    team_stats: teamStats,
  };

  if (domino) {
    notes.unshift(`${names(w)} dominoes: ${tname} wins the hand (R18, R43)`);
  } else if (shared) {
    const both = pair(team);
    notes.unshift(`${both} share the lowest count and are partners: ${tname} wins (R43)`);
    if (!over && !ctx.rotate && !(reset && ctx.resetForced) && !playoffNext) {
      notes.splice(1, 0,
        `of ${both}, first from the seat after ${names(record.poser)} is ${names(w)} (R44)`);
    }
  } else {
    notes.unshift(`${names(w)} holds the lowest count: ${tname} wins (R20, R43)`);
  }
  if (ctx.scoring === "pips") {
    const how = ctx.partnerNet ? "opponents' counts minus its own" : "opponents' counts";
    notes.push(`${tname} is credited ${paid}, the ${how} (R45)`);
  }
  if (over) {
    let text = `${tname} reaches ${ctx.target}: match over (${rule}, R33)`;
    if (sixLove) text += `; six-love to ${teamName(opp)}`;
    notes.push(text);
  }
  const scored = {
    number, value, paid, winner: w, tied: [], reset, playoff_next: playoffNext,
    scores_after: newScores, match_over: over, notes,
  };
  return { state: newState, scored };
}

/** R43 tie: scores stand, k grows (R27); the replay is posed per R10 with R44, R41 or R6. */
function stepPartnersTie(ctx, state, record, tied, number) {
  const k = state.tie_run + 1;
  let leader;
  if (state.tie_run > 0) {
    leader = state.leader; // R28: fixed at the first tie of the run
  } else {
    const [ac, bd] = state.scores;
    leader = ac === bd ? null : ac > bd ? 0 : 1; // R28 over partnerships (R42)
  }
  const playoff = state.playoff; // R27
  const stats = copyStats(state.stats);
  for (const i of tied) stats[i][TIES] += 1;
  const teamStats = copyStats(state.team_stats);
  for (const row of teamStats) row[TIES] += 1;
  const valueNext = handValue(ctx, k, playoff);
  const pose = tiePose(ctx, state, record, 4, () => {
    if (leader === null) {
      return [null, "R10",
        "replay with no leading partnership: the holder of 6-6 poses (R10, R28)"];
    }
    const first = firstPartnerAfter(record.poser, leader);
    return [first, "R44", `replay: ${teamName(leader)} lead; of ${pair(leader)}, ` +
      `${seatName(first)} comes first after ${seatName(record.poser)} (R10, R44)`];
  });
  const [poser, rule, reason] = pose;
  const notes = [
    `tie ${tied.map(seatName).join("=")}: players of both partnerships share the lowest count (R43, R27)`,
  ];
  if (state.tie_run === 0) {
    notes.push(leader !== null ? `leader ${teamName(leader)} (R28)` : "no leader (R28)");
  }
  if (poser !== null && rule === "R44") notes.push(reason);
  return tieStep(state, record, number, tied, {
    k, leader, playoff, valueNext, stats, pose, notes, extra: { team_stats: teamStats },
  });
}

/** Fold records from the start of a match; returns the final state. */
export function matchFold(ruleset, n, records, lotWinner = 0) {
  let state = matchStart(ruleset, n, lotWinner);
  for (const record of records) state = matchApply(ruleset, state, record).state;
  return state;
}
