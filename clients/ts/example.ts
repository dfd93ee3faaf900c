// An integrator's script, type-checked (tsc --strict) against the types that openapi-typescript
// generates from the served v2 schema (tests/contract/test_typescript_client.py). No line of
// the generated file is edited; the test writes it next to this file as ./api-v2.ts.
import type { components, paths } from "./api-v2";

type Schemas = components["schemas"];
type MatchDetail =
  paths["/api/v2/matches/{match_id}/"]["get"]["responses"][200]["content"]["application/json"];
type HandInput = Schemas["HandRecordInputRequest"];
type Recorded =
  paths["/api/v2/matches/{match_id}/hands/"]["post"]["responses"][201]["content"]["application/json"];
type Stale =
  paths["/api/v2/matches/{match_id}/hands/"]["post"]["responses"][409]["content"]["application/json"];

const BASE = "https://tournament.example";

// v2: a match's end_reason is null until it ends, one of the reasons after.
export function describeEnd(match: MatchDetail): string {
  if (match.end_reason === null) {
    return `in play: ${match.hands_count} hands, scores ${match.scores.join("-")}`;
  }
  const reason: Schemas["EndReasonEnum"] = match.end_reason;
  return `ended (${reason}), winner seat ${match.winner_seat ?? "none"}`;
}

export async function recordHand(
  matchId: number,
  hand: HandInput,
  credential: string,
  idempotencyKey: string,
): Promise<Recorded | Stale> {
  const response = await fetch(`${BASE}/api/v2/matches/${matchId}/hands/`, {
    method: "POST",
    headers: {
      Authorization: `Token ${credential}`,
      "Content-Type": "application/json",
      "Idempotency-Key": idempotencyKey,
    },
    body: JSON.stringify(hand),
  });
  if (response.status === 409) {
    const stale = (await response.json()) as Stale;
    // resend with the hand number the current state says is next
    const next: HandInput = { ...hand, number: stale.error.match.hands_count + 1 };
    return recordHand(matchId, next, credential, idempotencyKey + "-retry");
  }
  return (await response.json()) as Recorded;
}

export const firstHand: HandInput = {
  number: 1,
  poser: 2,
  pose_tile: "6-6",
  end: "domino",
  winner: 0,
};

// The types say what the server refuses or never sends: each line below must not compile.
// @ts-expect-error a hand needs its number (required in the schema)
export const noNumber: HandInput = { poser: 2 };
// @ts-expect-error "" is v1's "not ended yet"; v2 has null
export const blank: MatchDetail["end_reason"] = "";
// @ts-expect-error not an end reason
export const unknownReason: Schemas["EndReasonEnum"] = "abandoned";
