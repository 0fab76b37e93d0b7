// The ad query's search term and category, normalised, travel with the ad it serves: in its beacon
// tokens, through the beacon log into ad_events, and on to the order lines its events win.
import { createHash, randomUUID } from "node:crypto";
import { describe, expect, it } from "vitest";
import { pgPool } from "@/server/db/pg-pool";
import { attributePendingConversions } from "@/server/pipeline/attribute/attribute-pending";
import { askForAds, postBeacon } from "@/testing/events-client";
import { makeProductCampaign } from "@/testing/fixtures";
import { recordAndSettleConversion } from "@/testing/settle";

const sugarCampaign = () => makeProductCampaign({ product: { name: "Açúcar Orgânico 1 kg", category: "Mercearia > Doces" } });

type Campaign = Awaited<ReturnType<typeof sugarCampaign>>;

/** Asks for a product ad with `extra` (term, category), and checks the campaign's ad is served. */
async function serve({ publisher, ad, sku }: Campaign, session: string, extra: object) {
  const { status, body } = await askForAds({
    publisher_id: publisher.id,
    session_id: session,
    context: "search",
    placements: [{ name: "grid", types: ["product"] }],
    ...extra,
  });
  expect(status).toBe(200);
  const served = body.ads.grid![0]!;
  expect(served).toMatchObject({ ad_id: ad.id, sku });
  return { served, requestId: body.request_id };
}

const eventsOf = async (requestId: string) =>
  (
    await pgPool().query<{ kind: string; status: string; search_term: string | null; category: string | null }>(
      "SELECT e.kind::text, e.status::text, e.search_term, e.category FROM ad_events e WHERE e.request_id = $1 ORDER BY e.kind",
      [requestId],
    )
  ).rows;

const logOf = async (requestId: string) =>
  (
    await pgPool().query<{ search_term: string | null; category: string | null; row: string }>(
      "SELECT search_term, category, l::text AS row FROM beacon_log l WHERE request_id = $1",
      [requestId],
    )
  ).rows;

describe("the ad query's search term and category", () => {
  it("are kept normalised with the ad's impression and click, and with the order line its click wins", async () => {
    const campaign = await sugarCampaign();
    const session = `s-${randomUUID()}`;
    const { served, requestId } = await serve(campaign, session, { term: "  Açúcar   ORGÂNICO ", category: "Mercearia > Doces" });
    expect((await postBeacon(served.impression_url, { session_id: session })).status).toBe(202);
    expect((await postBeacon(served.click_url, { session_id: session })).status).toBe(202);

    const kept = { search_term: "acucar organico", category: "mercearia > doces" };
    expect(await logOf(requestId)).toEqual([expect.objectContaining(kept), expect.objectContaining(kept)]);
    expect(await eventsOf(requestId)).toEqual([
      { kind: "impression", status: "counted", ...kept },
      { kind: "click", status: "counted", ...kept },
    ]);

    await recordAndSettleConversion({
      publisher_id: campaign.publisher.id,
      user_id: `u-${randomUUID()}`,
      session_id: session,
      order_id: `o-${randomUUID()}`,
      created_at: new Date().toISOString(),
      channel: "site",
      email_hashed: createHash("sha256").update("shopper@example.com").digest("hex"),
      items: [{ sku: campaign.sku, quantity: 1, price: 12, promotional_price: 10 }],
    });
    await attributePendingConversions({ settleMs: 0 });
    const { rows } = await pgPool().query("SELECT event_kind::text, product_sku, search_term, category FROM attributions WHERE request_id = $1", [requestId]);
    expect(rows).toEqual([{ event_kind: "click", product_sku: campaign.sku, ...kept }]);
  });

  it("keep a marker, never the address, when the term is an e-mail address", async () => {
    const campaign = await sugarCampaign();
    const session = `s-${randomUUID()}`;
    const { served, requestId } = await serve(campaign, session, { term: "joao@example.com", category: "Mercearia > Doces" });
    expect((await postBeacon(served.impression_url, { session_id: session })).status).toBe(202);

    const log = await logOf(requestId);
    expect(log).toEqual([expect.objectContaining({ search_term: "(email)", category: "mercearia > doces" })]);
    expect(log[0]!.row).not.toContain("@");
    expect(await eventsOf(requestId)).toEqual([{ kind: "impression", status: "counted", search_term: "(email)", category: "mercearia > doces" }]);
    const { rows } = await pgPool().query("SELECT count(*)::int AS n FROM ad_events e WHERE request_id = $1 AND e::text LIKE '%@%'", [requestId]);
    expect(rows[0].n).toBe(0);
  });

  it("are null when the query has neither", async () => {
    const campaign = await sugarCampaign();
    const session = `s-${randomUUID()}`;
    const { served, requestId } = await serve(campaign, session, {});
    expect((await postBeacon(served.impression_url, { session_id: session })).status).toBe(202);
    expect(await logOf(requestId)).toEqual([expect.objectContaining({ search_term: null, category: null })]);
    expect(await eventsOf(requestId)).toEqual([{ kind: "impression", status: "counted", search_term: null, category: null }]);
  });
});
