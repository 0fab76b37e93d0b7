// The demo history `npm run dev` makes after the seed: traffic through the real intake, settled,
// attributed and counted in the reports, made once; and figures that show what Tally measures
// (proven orders, view-through, halo and new-to-brand sales, a campaign that starts inside the
// range, a ROAS a retailer would believe).
import { beforeAll, describe, expect, it } from "vitest";
import { OPERATOR } from "@/server/accounts/actor";
import { db } from "@/server/db/client";
import { accountStats } from "@/server/pipeline/report/account-stats";
import { daysFromToday, today } from "@/testing/fixtures";
import { seedDemoHistory } from "../../prisma/demo-history";
import { DEMO, seedDemoData } from "../../prisma/seed";

const DAYS = 60;
const lines: string[] = [];
const range = { startDate: daysFromToday(-(DAYS - 1)), endDate: today() };
const statsOf = (accountId: string) => accountStats({ actor: OPERATOR, accountId, ...range });

describe("demo history", () => {
  beforeAll(async () => {
    await seedDemoData(() => {});
    await seedDemoHistory({ days: DAYS, log: (line) => lines.push(line) });
  }, 300_000);

  it("records every day of traffic on the demo publisher's campaigns from their start, settled and counted, once", async () => {
    expect(lines.at(-1)).toMatch(/^history: \d+ beacons and \d+ orders \(\d+ without proof\) over 60 days, \d+ orders credited to an ad$/);
    const byDay = await db.$queryRaw<{ day: string; campaigns: string[] }[]>`
      SELECT to_char(created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD') AS day, array_agg(DISTINCT campaign_id) AS campaigns
        FROM ad_events WHERE publisher_id = ${DEMO.publisherId} AND status = 'counted' GROUP BY 1 ORDER BY 1`;
    expect(byDay[0]!.day).toBe(range.startDate);
    expect(byDay.at(-1)!.day).toBe(today());
    // Each active campaign on Demo Market has traffic every full day from its start on.
    const active = await db.campaign.findMany({ where: { status: "active", publishers: { some: { publisherId: DEMO.publisherId } } } });
    for (const day of byDay.slice(0, -1)) {
      const running = active.filter((c) => c.startDate.toISOString().slice(0, 10) <= day.day).map((c) => c.id);
      expect(day.campaigns.sort(), day.day).toEqual(running.sort());
    }

    const stats = await statsOf(DEMO.publisherId);
    const [impressions] = await db.$queryRaw<{ n: number }[]>`
      SELECT count(*)::int AS n FROM ad_events WHERE publisher_id = ${DEMO.publisherId} AND status = 'counted' AND kind = 'impression'`;
    expect(stats.total.impressions_total).toBe(impressions!.n);

    const events = await db.adEvent.count();
    await seedDemoHistory({ days: DAYS, log: (line) => lines.push(line) });
    expect(lines.at(-1)).toBe("history: demo traffic already present, nothing to do");
    expect(await db.adEvent.count()).toBe(events);
  });

  it("proves most orders, and has view-through, halo and new-to-brand sales at a believable ROAS", async () => {
    const { total } = await statsOf(DEMO.publisherId);
    // Signed as the demo store's checkout server signs them: unverified orders are a small part.
    expect(total.conversions_total).toBeGreaterThan(20);
    expect(total.unverified_conversions).toBeGreaterThan(0);
    expect(total.unverified_conversions).toBeLessThan(total.conversions_total / 5);
    expect(total.conversions_view).toBeGreaterThan(0);
    expect(total.conversions_click).toBeGreaterThan(total.conversions_view);
    expect(total.halo_conversions).toBeGreaterThan(0);
    expect(total.ntb_conversions).toBeGreaterThan(0);
    expect(total.ntb_conversions).toBeLessThan(total.conversions_total);
    expect(total.roas).toBeGreaterThanOrEqual(2);
    expect(total.roas).toBeLessThanOrEqual(12);
    for (const advertiserId of ["adv_acme_coffee", "adv_northwind"]) {
      const advertiser = (await statsOf(advertiserId)).total;
      expect(advertiser.roas, advertiserId).toBeGreaterThanOrEqual(2);
      expect(advertiser.roas, advertiserId).toBeLessThanOrEqual(12);
      expect(advertiser.conversions_view, advertiserId).toBeGreaterThan(0);
    }
  });

  it("has a campaign that starts inside the range, so the period before it is partly before its start", async () => {
    const starts = await db.campaign.findMany({ where: { publishers: { some: { publisherId: DEMO.publisherId } } }, select: { id: true, startDate: true } });
    const [firstTraffic] = await db.$queryRaw<{ day: string }[]>`
      SELECT to_char(min(created_at) AT TIME ZONE 'UTC', 'YYYY-MM-DD') AS day FROM ad_events WHERE campaign_id = 'cmp_northwind_display'`;
    const northwind = starts
      .find((c) => c.id === "cmp_northwind_display")!
      .startDate.toISOString()
      .slice(0, 10);
    expect(firstTraffic!.day).toBe(northwind);
    // The dashboard's default range is the last 30 days; the period compared with it starts 60 days ago.
    expect(northwind > range.startDate && northwind < daysFromToday(-29)).toBe(true);
  });
});
