// The click and view windows, case by case: each window's edge, a click outside its window against
// a view inside its own, the view-through setting, a campaign's own windows; and who may change
// them, with the activity log that says who did.
import { randomUUID } from "node:crypto";
import { isDeepStrictEqual } from "node:util";
import { beforeAll, describe, expect, it } from "vitest";
import { OPERATOR } from "@/server/accounts/actor";
import { listActivity as listPage } from "@/server/accounts/list-activity";
import { attribute, attributionsOf, before, type Campaign, DAY, HOUR, placeOrder, touch } from "@/testing/attribution-fixture";
import { makeAdvertiser, makeCampaignWithAd, makePublisher } from "@/testing/fixtures";
import { longestWindowDays, setAttributionWindows, setCampaignWindows, type ViewThrough, windowsOfCampaign } from "./attribution-windows";

const listActivity = async (input: Parameters<typeof listPage>[0]) => (await listPage(input)).entries;

let publisher: Awaited<ReturnType<typeof makePublisher>>;
let coffee: Campaign;
let pods: Campaign;

beforeAll(async () => {
  publisher = await makePublisher();
  const advertiser = await makeAdvertiser();
  coffee = await makeCampaignWithAd({
    advertiserId: advertiser.id,
    publisherIds: [publisher.id],
    type: "product",
    products: [{ sku: `BEANS-${randomUUID().slice(0, 8)}`, name: "Beans" }],
  });
  // A second campaign of the same advertiser promoting the same SKU.
  pods = await makeCampaignWithAd({ advertiserId: advertiser.id, publisherIds: [publisher.id], type: "product", sharedProducts: coffee.products });
});

interface WindowCase {
  name: string;
  /** The product type's windows (days) and view-through touches. */
  type: { click: number; view: number; viewThrough?: ViewThrough };
  /** coffee's own windows, null for its type's. */
  own?: { click: number | null; view: number | null };
  touches: { kind: "impression" | "view" | "click"; campaign?: "coffee" | "pods"; ago: number }[];
  /** Index of the touch that wins the order's item, or null for none. */
  winner: number | null;
}

const CASES: WindowCase[] = [
  { name: "a click exactly 14 days before the order wins", type: { click: 14, view: 14 }, touches: [{ kind: "click", ago: 14 * DAY }], winner: 0 },
  { name: "a click 14 days and 1 ms before wins nothing", type: { click: 14, view: 14 }, touches: [{ kind: "click", ago: 14 * DAY + 1 }], winner: null },
  { name: "a view exactly at its window's edge wins", type: { click: 30, view: 14 }, touches: [{ kind: "view", ago: 14 * DAY }], winner: 0 },
  {
    name: "a view 1 ms past its window wins nothing, though the click window is longer",
    type: { click: 30, view: 14 },
    touches: [{ kind: "view", ago: 14 * DAY + 1 }],
    winner: null,
  },
  {
    name: "a click beats a later view",
    type: { click: 14, view: 14 },
    touches: [
      { kind: "click", ago: 2 * DAY },
      { kind: "view", ago: HOUR },
    ],
    winner: 0,
  },
  {
    name: "a click outside its 7-day click window loses to a view inside its 14-day view window",
    type: { click: 7, view: 14 },
    touches: [
      { kind: "click", ago: 8 * DAY },
      { kind: "view", ago: 10 * DAY },
    ],
    winner: 1,
  },
  {
    name: "with a 1-day view window, a view 2 days before loses to a click 10 days before",
    type: { click: 14, view: 1 },
    touches: [
      { kind: "view", ago: 2 * DAY },
      { kind: "click", ago: 10 * DAY },
    ],
    winner: 1,
  },
  { name: "impressions earn view-through credit by default", type: { click: 14, view: 14 }, touches: [{ kind: "impression", ago: HOUR }], winner: 0 },
  {
    name: "with viewable views only, an impression earns nothing",
    type: { click: 14, view: 14, viewThrough: "views_only" },
    touches: [{ kind: "impression", ago: HOUR }],
    winner: null,
  },
  {
    name: "with viewable views only, a view still earns view-through credit",
    type: { click: 14, view: 14, viewThrough: "views_only" },
    touches: [
      { kind: "impression", ago: HOUR },
      { kind: "view", ago: 2 * HOUR },
    ],
    winner: 1,
  },
  {
    name: "a view beats a later impression",
    type: { click: 14, view: 14 },
    touches: [
      { kind: "impression", ago: HOUR },
      { kind: "view", ago: 3 * HOUR },
    ],
    winner: 1,
  },
  {
    name: "the campaign's own 3-day click window replaces its type's 14",
    type: { click: 14, view: 14 },
    own: { click: 3, view: null },
    touches: [{ kind: "click", ago: 4 * DAY }],
    winner: null,
  },
  {
    name: "one campaign's own window leaves another campaign of the SKU at its type's",
    type: { click: 14, view: 14 },
    own: { click: 3, view: null },
    touches: [
      { kind: "click", ago: 4 * DAY },
      { kind: "click", campaign: "pods", ago: 5 * DAY },
    ],
    winner: 1,
  },
  {
    name: "the campaign's own 30-day view window reaches past its type's 14",
    type: { click: 14, view: 14 },
    own: { click: null, view: 30 },
    touches: [{ kind: "view", ago: 20 * DAY }],
    winner: 0,
  },
  {
    name: "of two clicks, the later wins",
    type: { click: 14, view: 14 },
    touches: [
      { kind: "click", campaign: "pods", ago: 3 * DAY },
      { kind: "click", ago: DAY },
    ],
    winner: 1,
  },
];

describe("click and view windows", () => {
  it.each(CASES)("$name", async ({ type, own, touches, winner }) => {
    await setAttributionWindows({
      actor: OPERATOR,
      campaignType: "product",
      clickDays: type.click,
      viewDays: type.view,
      viewThrough: type.viewThrough ?? "views_and_impressions",
    });
    await setCampaignWindows({ actor: OPERATOR, campaignId: coffee.campaign.id, clickDays: own?.click ?? null, viewDays: own?.view ?? null });
    const shopper = { session: `s-${randomUUID()}`, user: `u-${randomUUID()}` };
    const ids: string[] = [];
    for (const t of touches) ids.push(await touch(t.kind, t.campaign === "pods" ? pods : coffee, publisher, shopper, before(t.ago)));
    const { orderId } = await placeOrder(publisher.id, shopper, [{ sku: coffee.products[0]!.sku }]);
    await attribute();
    expect((await attributionsOf(orderId)).map((a) => a.eventId)).toEqual(winner === null ? [] : [ids[winner]]);
  });

  it("breaks a tie of two clicks at the same moment by the event id", async () => {
    await setAttributionWindows({ actor: OPERATOR, campaignType: "product", clickDays: 14, viewDays: 14, viewThrough: "views_and_impressions" });
    await setCampaignWindows({ actor: OPERATOR, campaignId: coffee.campaign.id, clickDays: null, viewDays: null });
    const shopper = { session: `s-${randomUUID()}`, user: `u-${randomUUID()}` };
    const at = before(DAY);
    const ids = [await touch("click", coffee, publisher, shopper, at), await touch("click", pods, publisher, shopper, at)];
    const { orderId } = await placeOrder(publisher.id, shopper, [{ sku: coffee.products[0]!.sku }]);
    await attribute();
    expect((await attributionsOf(orderId)).map((a) => a.eventId)).toEqual([[...ids].sort().at(-1)]);
  });
});

describe("changes at the same moment", () => {
  it("take turns, so the log's entries chain: each one's before is the other's after", async () => {
    await setAttributionWindows({ actor: OPERATOR, campaignType: "video", clickDays: 14, viewDays: 14, viewThrough: "views_and_impressions" });
    await Promise.all([
      setAttributionWindows({ actor: OPERATOR, campaignType: "video", clickDays: 3, viewDays: 3, viewThrough: "views_only" }),
      setAttributionWindows({ actor: OPERATOR, campaignType: "video", clickDays: 9, viewDays: 9, viewThrough: "views_and_impressions" }),
      setCampaignWindows({ actor: OPERATOR, campaignId: pods.campaign.id, clickDays: 5, viewDays: null }),
      setCampaignWindows({ actor: OPERATOR, campaignId: pods.campaign.id, clickDays: 6, viewDays: null }),
    ]);
    // Whichever went first, the other logged what the first left.
    const chained = (entries: { before: unknown; after: unknown }[], start: unknown) => {
      const first = entries.find((entry) => isDeepStrictEqual(entry.before, start));
      const second = entries.find((entry) => entry !== first);
      return first !== undefined && isDeepStrictEqual(second?.before, first.after);
    };
    const video = (await listActivity({ actor: OPERATOR, actionPrefix: "attribution.windows" })).filter((e) => e.subject === "video campaigns").slice(0, 2);
    expect(chained(video, { clickDays: 14, viewDays: 14, viewThrough: "views_and_impressions" })).toBe(true);
    const own = (await listActivity({ actor: OPERATOR, actionPrefix: "campaign.windows" })).slice(0, 2);
    expect(chained(own, { clickDays: null, viewDays: null })).toBe(true);
    await setCampaignWindows({ actor: OPERATOR, campaignId: pods.campaign.id, clickDays: null, viewDays: null });
  });
});

describe("a campaign's own windows", () => {
  it("are set and cleared by account managers only, say where each window comes from, and are logged with who changed them", async () => {
    await setAttributionWindows({ actor: OPERATOR, campaignType: "product", clickDays: 14, viewDays: 7, viewThrough: "views_only" });
    const member = {
      userId: "u-member",
      email: "m@brand.test",
      name: "M",
      role: "member" as const,
      accountId: coffee.campaign.advertiserId,
      memberRole: "admin" as const,
    };
    const staff = { userId: "u-staff", email: "am@tally.test", name: "Avery", role: "staff" as const, accountId: null };
    await expect(setCampaignWindows({ actor: member, campaignId: coffee.campaign.id, clickDays: 90, viewDays: 90 })).rejects.toMatchObject({
      code: "forbidden",
    });
    await expect(setCampaignWindows({ actor: staff, campaignId: coffee.campaign.id, clickDays: 91, viewDays: null })).rejects.toMatchObject({
      code: "bad_request",
    });
    await expect(setCampaignWindows({ actor: staff, campaignId: "cmp_missing", clickDays: 3, viewDays: null })).rejects.toMatchObject({ code: "not_found" });

    expect(await setCampaignWindows({ actor: staff, campaignId: coffee.campaign.id, clickDays: 3, viewDays: null })).toEqual({
      click: { days: 3, from: "campaign" },
      view: { days: 7, from: "type" },
      viewThrough: "views_only",
    });
    expect(await longestWindowDays()).toBe(14);
    await setCampaignWindows({ actor: staff, campaignId: pods.campaign.id, clickDays: null, viewDays: 45 });
    expect(await longestWindowDays()).toBe(45);
    await setCampaignWindows({ actor: staff, campaignId: pods.campaign.id, clickDays: null, viewDays: null });
    expect(await windowsOfCampaign(pods.campaign.id)).toEqual({
      click: { days: 14, from: "type" },
      view: { days: 7, from: "type" },
      viewThrough: "views_only",
    });

    const entries = await listActivity({ actor: staff, actionPrefix: "campaign.windows" });
    expect(entries.slice(0, 3)).toEqual([
      expect.objectContaining({
        actor: "Avery <am@tally.test>",
        subject: expect.stringContaining(pods.campaign.id),
        before: { clickDays: null, viewDays: 45 },
        after: { clickDays: null, viewDays: null },
      }),
      expect.objectContaining({ actor: "Avery <am@tally.test>", before: { clickDays: null, viewDays: null }, after: { clickDays: null, viewDays: 45 } }),
      expect.objectContaining({ accountId: coffee.campaign.advertiserId, after: { clickDays: 3, viewDays: null } }),
    ]);
    const typeEntries = await listActivity({ actor: OPERATOR, actionPrefix: "attribution.windows" });
    expect(typeEntries[0]).toMatchObject({ actor: "operator", subject: "product campaigns", after: { clickDays: 14, viewDays: 7, viewThrough: "views_only" } });
    // A member reads their own account's entries, never the platform's.
    expect((await listActivity({ actor: member })).every((entry) => entry.accountId === coffee.campaign.advertiserId)).toBe(true);
    expect((await listActivity({ actor: member, actionPrefix: "campaign.windows" })).length).toBeGreaterThan(0);
  });
});
