// stats.hours, the dashboard's heatmap of hours: the same cells as GET /report/hours for the
// viewer's scope (one campaign's when asked), in the account's zone, and counted against the
// figures' limit like every figures procedure.
process.env.TALLY_DASHBOARD_FIGURES_PER_MINUTE_PER_USER = "3";

import sql from "sql-template-tag";
import { beforeAll, describe, expect, it } from "vitest";
import { createUser } from "@/server/accounts/create-user";
import { signIn } from "@/server/accounts/sessions";
import { canonicalZone } from "@/server/core/time-zones";
import { pgPool } from "@/server/db/pg-pool";
import { seedAcme } from "@/testing/report-fixture";
import { createCaller } from "../root";

const RANGE = { startDate: "2026-11-01", endDate: "2026-11-30" };
const TUESDAY = 2;
// The name the runtime's tz database keeps the zone under (Node 20's ICU: Asia/Calcutta), as report_zones and accounts do.
const KOLKATA = canonicalZone("Asia/Kolkata")!;
let acme: Awaited<ReturnType<typeof seedAcme>>;

beforeAll(async () => {
  await pgPool().query(sql`UPDATE report_zones SET hours_since = '2026-10-01T00:00:00Z' WHERE zone = 'UTC'`);
  await pgPool().query(sql`INSERT INTO report_zones (zone, since, hours_since) VALUES (${KOLKATA}, '2026-10-01T00:00:00Z', '2026-10-01T00:00:00Z')`);
  acme = await seedAcme();
});

async function memberOf(accountId: string, email: string) {
  await createUser({ email, name: email, password: "correct horse battery", role: "member", accountId, memberRole: "viewer" });
  return createCaller({ viewer: (await signIn(email, "correct horse battery")).viewer });
}

const busy = <Row extends { impressions_total: number; conversions_total: number }>(rows: Row[]) =>
  rows.filter((row) => row.impressions_total + row.conversions_total > 0);

describe("stats.hours", () => {
  it("answers the viewer's 168 cells in the account's zone, one campaign's when asked, and counts against the figures' limit", async () => {
    const viewer = await memberOf(acme.acmeId, "hours@acme.test");
    const all = await viewer.stats.hours(RANGE);
    expect(all.zone).toBe("UTC");
    expect(all.hoursSince).toEqual(new Date("2026-10-01T00:00:00Z"));
    expect(all.rows).toHaveLength(168);
    expect(busy(all.rows)).toEqual([expect.objectContaining({ weekday: TUESDAY, hour: 12, impressions_total: 7, conversions_total: 1 })]);
    const cpm = await viewer.stats.hours({ ...RANGE, campaignId: acme.cpm.campaign.id });
    expect(busy(cpm.rows)).toEqual([expect.objectContaining({ hour: 12, impressions_total: 2, conversions_total: 0 })]);
    // Another zone the hours are kept in, chosen.
    const kolkata = await viewer.stats.hours({ ...RANGE, timeZone: "Asia/Kolkata" });
    expect(busy(kolkata.rows).map((row) => [row.weekday, row.hour])).toEqual([
      [TUESDAY, 17],
      [TUESDAY, 18],
    ]);
    await expect(viewer.stats.hours(RANGE)).rejects.toMatchObject({ code: "TOO_MANY_REQUESTS" });
  });

  it("reads the account's own zone, refuses a name that is no zone, and shows another advertiser's campaign as an empty week", async () => {
    await pgPool().query(sql`UPDATE accounts SET time_zone = ${KOLKATA} WHERE id = ${acme.acmeId}`);
    const viewer = await memberOf(acme.acmeId, "zone@acme.test");
    const mine = await viewer.stats.hours(RANGE);
    expect(mine.zone).toBe(KOLKATA);
    expect(busy(mine.rows).map((row) => row.hour)).toEqual([17, 18]);
    await expect(viewer.stats.hours({ ...RANGE, timeZone: "Mars/Olympus" })).rejects.toMatchObject({ code: "BAD_REQUEST" });
    const other = await memberOf(acme.otherId, "hours@other.test");
    const theirs = await other.stats.hours({ ...RANGE, campaignId: acme.cpc.campaign.id });
    expect(theirs.rows).toHaveLength(168);
    expect(busy(theirs.rows)).toEqual([]);
  });
});
