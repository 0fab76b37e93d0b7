// The demo history `npm run dev` makes after the seed: traffic through the real intake, settled,
// attributed and counted in the reports, made once.
import { describe, expect, it } from "vitest";
import { OPERATOR } from "@/server/accounts/actor";
import { db } from "@/server/db/client";
import { accountStats } from "@/server/pipeline/report/account-stats";
import { daysFromToday, today } from "@/testing/fixtures";
import { seedDemoHistory } from "../../prisma/demo-history";
import { DEMO, seedDemoData } from "../../prisma/seed";

describe("demo history", () => {
  it("records days of traffic and orders on the demo publisher's campaigns, settled and credited, once", async () => {
    await seedDemoData(() => {});
    const lines: string[] = [];
    await seedDemoHistory({ days: 4, log: (line) => lines.push(line) });
    expect(lines.at(-1)).toMatch(/^history: \d+ beacons and \d+ orders over 4 days, \d+ orders credited to an ad$/);

    const byDay = await db.$queryRaw<{ day: string; campaigns: number; counted: number }[]>`
      SELECT to_char(created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD') AS day, count(DISTINCT campaign_id)::int AS campaigns, count(*)::int AS counted
        FROM ad_events WHERE publisher_id = ${DEMO.publisherId} AND status = 'counted' GROUP BY 1 ORDER BY 1`;
    expect(byDay.map((d) => d.day)).toEqual([daysFromToday(-3), daysFromToday(-2), daysFromToday(-1), today()].slice(4 - byDay.length));
    expect(byDay.length).toBeGreaterThanOrEqual(3);
    // Every active campaign on Demo Market has traffic each full day.
    const active = await db.campaign.count({ where: { status: "active", publishers: { some: { publisherId: DEMO.publisherId } } } });
    for (const day of byDay.slice(0, -1)) expect(day.campaigns).toBe(active);

    // The reports count it: the overview's impressions equal the settled impressions.
    const stats = await accountStats({ actor: OPERATOR, accountId: DEMO.publisherId, startDate: daysFromToday(-3), endDate: today() });
    const [impressions] = await db.$queryRaw<{ n: number }[]>`
      SELECT count(*)::int AS n FROM ad_events WHERE publisher_id = ${DEMO.publisherId} AND status = 'counted' AND kind = 'impression'`;
    expect(stats.total.impressions_total).toBe(impressions!.n);
    expect(stats.total.conversions_total).toBeGreaterThan(0);
    // Signed as the demo store's checkout server signs them: every order is proven, and credited.
    const [unproven] = await db.$queryRaw<{ n: number }[]>`
      SELECT count(*)::int AS n FROM conversions WHERE publisher_id = ${DEMO.publisherId} AND (verified_by IS NULL OR NOT credited)`;
    expect(unproven!.n).toBe(0);
    expect(stats.total.unverified_conversions).toBe(0);
    expect(stats.total.ad_revenue).toBeGreaterThan(0);

    const events = await db.adEvent.count();
    await seedDemoHistory({ days: 4, log: (line) => lines.push(line) });
    expect(lines.at(-1)).toBe("history: demo traffic already present, nothing to do");
    expect(await db.adEvent.count()).toBe(events);
  });
});
