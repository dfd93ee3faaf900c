// Test runner for the JS match reducer (static/js/match-reducer.js), driven by
// tests/scoring/engine/test_match_js.py: reads cases from the JSON file argv[2]
// ([{ruleset, n, lot, records}, ...]) and writes one JSON line per case to argv[3]: the list,
// hand by hand, of [state, scored] after folding each record (scored without notes unless
// argv[4] is "notes"). A case the reducer refuses yields {"error": message, "rule": rule}.
import { readFileSync, writeFileSync } from "node:fs";
import { matchApply, matchStart } from "../../../../static/js/match-reducer.js";

const [, , input, output, withNotes] = process.argv;
const cases = JSON.parse(readFileSync(input, "utf8"));
const lines = [];
for (const c of cases) {
  try {
    let state = matchStart(c.ruleset, c.n, c.lot);
    const hands = [];
    for (const record of c.records) {
      const step = matchApply(c.ruleset, state, record);
      state = step.state;
      if (withNotes !== "notes") delete step.scored.notes;
      hands.push([state, step.scored]);
    }
    lines.push(JSON.stringify(hands));
  } catch (err) {
    lines.push(JSON.stringify({ error: String(err.message), rule: err.rule ?? null }));
  }
}
writeFileSync(output, lines.join("\n") + "\n");
