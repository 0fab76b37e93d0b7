// Halo credit, case by case: a line of another SKU of an advertiser (by the publisher's catalogue)
// goes to that advertiser's latest eligible touch only where no campaign had a touch for the SKU
// itself; it is counted in the halo figures and nowhere else (conversions, sales, units, converted
// clicks, the order items export).
import { randomUUID } from "node:crypto";
import { beforeAll, describe, expect, it } from "vitest";
import { db } from "@/server/db/client";
import { store } from "@/server/store";
import { verifyRollups } from "@/server/store/postgres/verify-rollups.sql";
import { attribute, attributionsOf, before, type Campaign, DAY, HOUR, ORDER_TIME, placeOrder, touch } from "@/testing/attribution-fixture";
import { makeAdvertiser, makeCampaignWithAd, makePublisher } from "@/testing/fixtures";

type Publisher = Awaited<ReturnType<typeof makePublisher>>;
let publisher: Publisher;
let tea: Campaign; // brand A: sells TEA
let biscuits: Campaign; // brand A: sells BISCUIT
let rival: Campaign; // brand Z: sells RIVAL
const sku = { tea: "", biscuit: "", honey: "", rivalJam: "", rival: "", unlisted: "" };

beforeAll(async () => {
  publisher = await makePublisher();
  const [brand, other] = [await makeAdvertiser(), await makeAdvertiser()];
  const id = () => randomUUID().slice(0, 8);
  tea = await makeCampaignWithAd({ advertiserId: brand.id, publisherIds: [publisher.id], type: "product", products: [{ sku: `TEA-${id()}`, name: "Tea" }] });
  biscuits = await makeCampaignWithAd({
    advertiserId: brand.id,
    publisherIds: [publisher.id],
    type: "product",
    products: [{ sku: `BISCUIT-${id()}`, name: "Biscuits" }],
  });
  rival = await makeCampaignWithAd({
    advertiserId: other.id,
    publisherIds: [publisher.id],
    type: "product",
    products: [{ sku: `RIVAL-${id()}`, name: "Rival" }],
  });
  Object.assign(sku, {
    tea: tea.products[0]!.sku,
    biscuit: biscuits.products[0]!.sku,
    honey: `HONEY-${id()}`, // the brand's, by the catalogue; no campaign sells it
    rivalJam: `JAM-${id()}`, // the other brand's, by the catalogue; no campaign sells it
    rival: rival.products[0]!.sku,
    unlisted: `PLAIN-${id()}`, // nobody's
  });
  await db.publisherCatalogueEntry.createMany({
    data: [
      { publisherId: publisher.id, sku: sku.honey, advertiserId: brand.id },
      { publisherId: publisher.id, sku: sku.biscuit, advertiserId: brand.id },
      { publisherId: publisher.id, sku: sku.rivalJam, advertiserId: other.id },
    ],
  });
});

interface HaloCase {
  name: string;
  touches: { kind: "impression" | "view" | "click"; campaign: "tea" | "biscuits" | "rival"; ago: number }[];
  /** The order's lines, by SKU name. */
  lines: (keyof typeof sku)[];
  /** Per line, in order: the winning touch's index and the match, or null for no credit. */
  credit: ({ touch: number; match: "sku" | "halo" } | null)[];
}

const CASES: HaloCase[] = [
  {
    name: "a line of the brand's other SKU goes to its latest touch as halo",
    touches: [{ kind: "click", campaign: "tea", ago: HOUR }],
    lines: ["honey"],
    credit: [{ touch: 0, match: "halo" }],
  },
  {
    name: "an order with the campaign's SKU and another of the brand: one line each way",
    touches: [{ kind: "view", campaign: "tea", ago: HOUR }],
    lines: ["tea", "honey"],
    credit: [
      { touch: 0, match: "sku" },
      { touch: 0, match: "halo" },
    ],
  },
  {
    name: "a same-SKU touch beats a halo one, even an impression against a click",
    touches: [
      { kind: "click", campaign: "tea", ago: HOUR },
      { kind: "impression", campaign: "biscuits", ago: 2 * HOUR },
    ],
    lines: ["biscuit"],
    credit: [{ touch: 1, match: "sku" }],
  },
  {
    name: "halo follows the click-beats-view order among the brand's touches",
    touches: [
      { kind: "click", campaign: "biscuits", ago: 3 * HOUR },
      { kind: "view", campaign: "tea", ago: HOUR },
    ],
    lines: ["honey"],
    credit: [{ touch: 0, match: "halo" }],
  },
  {
    name: "a SKU the catalogue gives to another brand earns this brand no halo",
    touches: [{ kind: "click", campaign: "tea", ago: HOUR }],
    lines: ["rivalJam"],
    credit: [null],
  },
  {
    name: "two brands' touches: each catalogue claim goes to its own brand",
    touches: [
      { kind: "click", campaign: "tea", ago: HOUR },
      { kind: "view", campaign: "rival", ago: 2 * HOUR },
    ],
    lines: ["rivalJam", "honey"],
    credit: [
      { touch: 1, match: "halo" },
      { touch: 0, match: "halo" },
    ],
  },
  {
    name: "a SKU no catalogue lists earns no halo",
    touches: [{ kind: "click", campaign: "tea", ago: HOUR }],
    lines: ["unlisted"],
    credit: [null],
  },
  {
    name: "a halo touch must be inside its own window",
    touches: [{ kind: "click", campaign: "tea", ago: 14 * DAY + 1 }],
    lines: ["honey"],
    credit: [null],
  },
];

describe("halo credit", () => {
  for (const c of CASES) {
    it(c.name, async () => {
      const shopper = { session: `s-${randomUUID()}`, user: `u-${randomUUID()}` };
      const campaigns = { tea, biscuits, rival };
      const ids: string[] = [];
      for (const t of c.touches) ids.push(await touch(t.kind, campaigns[t.campaign], publisher, shopper, before(t.ago)));
      const { orderId } = await placeOrder(
        publisher.id,
        shopper,
        c.lines.map((name) => ({ sku: sku[name] })),
      );
      await attribute();
      const rows = await attributionsOf(orderId);
      const got = c.lines.map((name) => {
        const row = rows.find((r) => r.productSku === sku[name]);
        return row ? { touch: ids.indexOf(row.eventId), match: row.match } : null;
      });
      expect(got).toEqual(c.credit);
    });
  }

  it("counts halo lines in the halo figures of their ad and nowhere else, and leaves them out of the order items export", async () => {
    const day = ORDER_TIME.toISOString().slice(0, 10);
    const range = { startDate: day, endDate: day, zone: "UTC" };
    const query = { ...range, page: 1, perPage: 50, orderBy: "name" as const, order: "asc" as const, download: false, ids: {} };
    const scope = { advertiserId: tea.campaign.advertiserId, publisherIds: null, targetedPublisherIds: null };
    const rows = (await store().reports.campaigns(scope, query).page(query)).data;
    const teaRow = rows.find((r) => r.campaign_id === tea.campaign.id)!;
    // Tea's touches won: honey alone (case 1), tea and honey (case 2, one order in each figure),
    // honey (case 6). Each line is 1 × 8.00.
    expect(teaRow).toMatchObject({ conversions_total: 1, sales_revenue: 8, units_sold: 1, halo_conversions: 3, halo_sales_revenue: 24 });
    // Biscuits' click won honey as halo (case 4), its impression a biscuit line of its own (case 3).
    expect(rows.find((r) => r.campaign_id === biscuits.campaign.id)).toMatchObject({ conversions_total: 1, halo_conversions: 1, halo_sales_revenue: 8 });
    // Tea's clicks led only to halo lines (cases 1, 6) and to no line of its own SKU: none converted.
    expect(teaRow.converted_clicks).toBe(0);
    expect(await verifyRollups(day, day)).toEqual([]);

    const batch = store().exports.batch("order_items", scope, { rangeStart: new Date(0), rangeEnd: new Date() });
    const exported: unknown[] = [];
    for await (const page of batch.read()) exported.push(...page.map((raw) => batch.cells(raw)));
    const halo = await db.attribution.count({ where: { advertiserId: tea.campaign.advertiserId, match: "halo" } });
    const own = await db.attribution.count({ where: { advertiserId: tea.campaign.advertiserId, match: "sku" } });
    expect([halo, exported.length]).toEqual([4, own]);
    expect(exported.flat()).not.toContain(sku.honey);
  });
});
