// What each settled event costs (spend.ts), case by case, without a database: the bid by model and
// kind, nothing for what is not counted, and the wallet and both daily budgets, each overspent by at
// most one event.
import { describe, expect, it } from "vitest";
import type { EventStatus } from "@/server/core/event-status";
import type { EventKind, LoggedBeacon } from "@/server/store/settle-types";
import { loggedBeacon } from "@/testing/logged-beacon";
import { priceEvents } from "./spend";
import type { BillingRow } from "./spend.sql";

const DAY = "2026-03-02";
const AT = new Date(`${DAY}T12:00:00Z`);

const event = (kind: EventKind, campaignId = "campaign-1", createdAt = AT): LoggedBeacon => loggedBeacon({ createdAt, claims: { kind, campaignId } });

function billing(given: Partial<BillingRow> = {}): BillingRow {
  return {
    id: "campaign-1",
    advertiser_id: "advertiser-1",
    bid_model: "cpm",
    bid_micros: 2_500_000n,
    campaign_daily_budget: null,
    wallet_balance_micros: 1_000_000_000n,
    advertiser_daily_budget: null,
    advertiser_time_zone: "UTC",
    campaign_spent: {},
    advertiser_spent: {},
    ...given,
  };
}

const counted = (count: number): EventStatus[] => Array.from({ length: count }, () => "counted");

describe("the price of one event", () => {
  it.each([
    { name: "a CPM campaign's counted impression: bid / 1000", kind: "impression", model: "cpm", status: "counted", price: 2_500n },
    { name: "a CPM campaign's click: nothing", kind: "click", model: "cpm", status: "counted", price: 0n },
    { name: "a CPC campaign's counted click: the bid", kind: "click", model: "cpc", status: "counted", price: 2_500_000n },
    { name: "a CPC campaign's impression: nothing", kind: "impression", model: "cpc", status: "counted", price: 0n },
    { name: "a view: nothing, whatever the model", kind: "view", model: "cpm", status: "counted", price: 0n },
    { name: "a duplicate: nothing", kind: "impression", model: "cpm", status: "duplicate", price: 0n },
    { name: "a bot's click: nothing", kind: "click", model: "cpc", status: "bot", price: 0n },
  ] as const)("$name", ({ kind, model, status, price }) => {
    expect(priceEvents([event(kind)], [status], [billing({ bid_model: model })]).spend).toEqual([price]);
  });

  it("is nothing for a campaign deleted after its ad was served (no billing row)", () => {
    expect(priceEvents([event("click")], ["counted"], []).spend).toEqual([0n]);
  });
});

describe("the limits of spend", () => {
  const clicks = (count: number) => Array.from({ length: count }, () => event("click"));
  const cpc = (given: Partial<BillingRow>) => [billing({ bid_model: "cpc", bid_micros: 1_000_000n, ...given })];

  it.each([
    { name: "a wallet runs out: the event that takes it below zero is the last charged", given: { wallet_balance_micros: 2_500_000n }, charged: 3 },
    { name: "an empty wallet charges nothing", given: { wallet_balance_micros: 0n }, charged: 0 },
    { name: "the campaign's daily budget: reached within the stretch", given: { campaign_daily_budget: 3_000_000n }, charged: 3 },
    {
      name: "the campaign's daily budget: partly spent earlier that day",
      given: { campaign_daily_budget: 3_000_000n, campaign_spent: { [DAY]: "2500000" } },
      charged: 1,
    },
    { name: "the advertiser's daily budget", given: { advertiser_daily_budget: 2_000_000n }, charged: 2 },
    {
      name: "the advertiser's daily budget already spent that day",
      given: { advertiser_daily_budget: 2_000_000n, advertiser_spent: { [DAY]: "2000000" } },
      charged: 0,
    },
    { name: "no limit reached", given: {}, charged: 5 },
  ])("$name", ({ given, charged }) => {
    const { spend } = priceEvents(clicks(5), counted(5), cpc(given));
    expect(spend.filter((price) => price > 0n)).toHaveLength(charged);
    // The charged events are the first ones: earlier events use the budget first.
    expect(spend.slice(0, charged).every((price) => price === 1_000_000n)).toBe(true);
  });

  it("counts a budget per day of an advertiser in UTC: yesterday's spend does not stop today's events", () => {
    const yesterday = new Date(AT.getTime() - 86_400_000);
    const priced = priceEvents(
      [event("click", "campaign-1", yesterday), event("click", "campaign-1", AT)],
      counted(2),
      cpc({ campaign_daily_budget: 1_000_000n, campaign_spent: { "2026-03-01": "1000000" } }),
    );
    expect(priced).toEqual({ spend: [0n, 1_000_000n], days: ["", DAY] });
  });

  it("counts a budget per local date of the advertiser's zone: São Paulo's 2 March runs from 03:00 UTC to 03:00 UTC the next day", () => {
    // 2 March 02:59 UTC is 1 March 23:59 in São Paulo (UTC−3): the day whose budget is spent.
    const lateOnFirst = new Date("2026-03-02T02:59:00Z");
    const midnight = new Date("2026-03-02T03:00:00Z");
    const priced = priceEvents(
      [event("click", "campaign-1", lateOnFirst), event("click", "campaign-1", midnight), event("click", "campaign-1", new Date("2026-03-03T02:59:59Z"))],
      counted(3),
      cpc({ advertiser_time_zone: "America/Sao_Paulo", campaign_daily_budget: 1_000_000n, campaign_spent: { "2026-03-01": "1000000" } }),
    );
    expect(priced).toEqual({ spend: [0n, 1_000_000n, 0n], days: ["", "2026-03-02", ""] });
  });

  it("counts a budget over New York's 23-hour 8 March 2026: from 05:00 UTC (midnight EST) to 04:00 UTC the next day (midnight EDT)", () => {
    const moments = ["2026-03-08T04:59:59Z", "2026-03-08T05:00:00Z", "2026-03-09T03:59:59Z", "2026-03-09T04:00:00Z"];
    const priced = priceEvents(
      moments.map((moment) => event("click", "campaign-1", new Date(moment))),
      counted(4),
      cpc({ advertiser_time_zone: "America/New_York", campaign_daily_budget: 1_000_000n }),
    );
    expect(priced).toEqual({ spend: [1_000_000n, 1_000_000n, 0n, 1_000_000n], days: ["2026-03-07", "2026-03-08", "", "2026-03-09"] });
  });

  it("counts the advertiser's budget per local date too: Kathmandu's day starts at 18:15 UTC the day before (UTC+5:45)", () => {
    const priced = priceEvents(
      [event("click", "campaign-1", new Date("2026-03-01T18:14:59Z")), event("click", "campaign-1", new Date("2026-03-01T18:15:00Z"))],
      counted(2),
      cpc({ advertiser_time_zone: "Asia/Kathmandu", advertiser_daily_budget: 1_000_000n, advertiser_spent: { "2026-03-01": "1000000" } }),
    );
    expect(priced).toEqual({ spend: [0n, 1_000_000n], days: ["", "2026-03-02"] });
  });

  it("shares one wallet between an advertiser's campaigns", () => {
    const rows = [
      billing({ id: "campaign-1", bid_model: "cpc", bid_micros: 1_000_000n, wallet_balance_micros: 1_500_000n }),
      billing({ id: "campaign-2", bid_model: "cpc", bid_micros: 1_000_000n, wallet_balance_micros: 1_500_000n }),
    ];
    const { spend } = priceEvents([event("click", "campaign-1"), event("click", "campaign-2"), event("click", "campaign-1")], counted(3), rows);
    expect(spend).toEqual([1_000_000n, 1_000_000n, 0n]);
  });
});
