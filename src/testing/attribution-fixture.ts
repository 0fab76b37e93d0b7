// Shoppers' touches and orders for the attribution tests: a counted ad event stored by the beacon
// path as if it had arrived at a given time, and an order placed at ORDER_TIME, both settled.
import { createHash } from "node:crypto";
import { expect } from "vitest";
import { db } from "@/server/db/client";
import { attributePendingConversions } from "@/server/pipeline/attribute/attribute-pending";
import type { EventKind } from "@/server/store/settle-types";
import { CHROME, servedClaims } from "./beacon-log";
import type { makeCampaignWithAd } from "./fixtures";
import { recordAndSettle, recordAndSettleConversion } from "./settle";

export const HOUR = 3_600_000;
export const DAY = 24 * HOUR;
// 15:00 UTC five days ago: orders must lie within the 30 days before their receipt, which is now.
export const ORDER_TIME = new Date(Math.floor(Date.now() / 86_400_000 - 5) * 86_400_000 + 15 * 3_600_000);
export const before = (ms: number) => new Date(ORDER_TIME.getTime() - ms);

export type Campaign = Awaited<ReturnType<typeof makeCampaignWithAd>>;

/** A counted ad event, stored by the beacon path as if it had arrived at `at`; its event id. */
export async function touch(
  kind: EventKind,
  { campaign, ad }: Pick<Campaign, "campaign" | "ad">,
  publisher: { id: string; sites: { name: string }[] },
  who: { session: string; user?: string },
  at: Date,
) {
  const stored = await recordAndSettle({
    claims: servedClaims({ ad, campaign, publisher }, who.session, { kind, at, placementName: "search-sponsored", context: "search" }),
    body: { session_id: who.session, user_id: who.user },
    userAgent: CHROME,
    now: at,
  });
  expect(stored.status).toBe("counted");
  return stored.eventId;
}

let sequence = 0;
/** An order placed at ORDER_TIME (each gets its own order id unless given one), sent by the publisher's checkout server with its key, settled. */
export async function placeOrder(
  publisherId: string,
  who: { session: string; user: string },
  items: { sku: string; product_id?: string; quantity?: number; price?: number; promotional_price?: number }[],
  orderId = `order-${process.pid}-${++sequence}`,
) {
  const result = await recordAndSettleConversion(
    {
      publisher_id: publisherId,
      user_id: who.user,
      session_id: who.session,
      order_id: orderId,
      created_at: ORDER_TIME.toISOString(),
      channel: "online store",
      email_hashed: createHash("sha256").update(`${who.user}@example.com`).digest("hex"),
      items: items.map((item) => ({ quantity: 1, price: 10, promotional_price: 8, ...item })),
    },
    undefined,
    { proven: true },
  );
  return { orderId, outcome: result.outcome };
}

export const attributionsOf = (orderId: string) => db.attribution.findMany({ where: { orderId }, orderBy: { productSku: "asc" } });
export const attribute = () => attributePendingConversions({ settleMs: 0 });
