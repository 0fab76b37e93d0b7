// What proves an order came from its publisher (docs/conversions.md, "Verified orders"): the
// publisher's API key on a server-to-server call, or an order token its server signed. A key of
// another account is refused (403, nothing stored); a token that matches none of the publisher's
// live secrets leaves the order unverified, kept and counted apart like an order with no proof.
import { createHmac, timingSafeEqual } from "node:crypto";
import { orderTokenMessage } from "@/contracts/order-token";
import type { ApiKeyCaller } from "@/server/accounts/api-keys";
import type { OrderProofOutcome } from "@/server/core/counters";
import { TallyError } from "@/server/core/errors";
import type { VerifiedBy } from "@/server/store/conversion-rows";
import { liveSigningSecrets } from "./signing-secrets";

/** Hexadecimal HMAC-SHA256 of the order's token message under `secret` (its UTF-8 bytes). */
export function signOrderToken(secret: string, orderId: string, totalMicros: bigint): string {
  return createHmac("sha256", secret).update(orderTokenMessage(orderId, totalMicros)).digest("hex");
}

/**
 * A key sent with an order must be the order's publisher's own: a network's key does not vouch for
 * its sub-publishers' orders, whose checkouts it does not run (docs/decisions/0012-verified-conversions.md). Checked before
 * the body is validated, so a key of one account learns nothing of another's orders.
 */
export function assertKeyMayVerify(key: ApiKeyCaller, publisherId: unknown): void {
  if (typeof publisherId === "string" && publisherId !== key.accountId) {
    throw new TallyError("forbidden", "this API key belongs to another account than the order's publisher_id: send the publisher's own key");
  }
}

export interface Proof {
  verifiedBy: VerifiedBy | null;
  outcome: OrderProofOutcome;
  /** Said in the 202 when a token was sent and did not verify the order. */
  message?: string;
}

function sameHex(a: string, b: string): boolean {
  const left = Buffer.from(a, "hex");
  const right = Buffer.from(b, "hex");
  return left.length === right.length && timingSafeEqual(left, right);
}

async function tokenMatches(publisherId: string, token: string, orderId: string, totalMicros: bigint, now: number, afterMiss: boolean) {
  const secrets = await liveSigningSecrets(publisherId, now, afterMiss);
  const match = secrets.find((live) => sameHex(signOrderToken(live.secret, orderId, totalMicros), token.toLowerCase()));
  return { match, secrets: secrets.length };
}

/**
 * What proves a valid order: the publisher's key (already checked against publisher_id), else its
 * token, checked against the publisher's live secrets (read again at once when none matches, so a
 * secret made a moment ago on another server counts), else nothing.
 */
export async function proveOrder(
  order: { publisher_id: string; order_id: string; order_token?: string },
  totalMicros: bigint,
  key: ApiKeyCaller | null,
  now: number,
): Promise<Proof> {
  if (key) return { verifiedBy: "api_key", outcome: "api_key" };
  if (order.order_token === undefined) return { verifiedBy: null, outcome: "none" };
  let found = await tokenMatches(order.publisher_id, order.order_token, order.order_id, totalMicros, now, false);
  if (!found.match) found = await tokenMatches(order.publisher_id, order.order_token, order.order_id, totalMicros, now, true);
  if (found.match) return { verifiedBy: "order_token", outcome: found.match.current ? "order_token" : "order_token_previous_secret" };
  const why =
    found.secrets === 0
      ? "the publisher has no signing secret"
      : `it is not the HMAC-SHA256 of "${order.order_id}\\n${totalMicros}" (order_id, a line feed, the total in micro-units) under any of the publisher's live signing secrets`;
  return {
    verifiedBy: null,
    outcome: "order_token_mismatch",
    message: `order_token does not verify this order (${why}); the order was kept as unverified.`,
  };
}
