// A kept zone Postgres's tz database does not know (a later release dropped or renamed it),
// written into report_zones directly as such a release would leave it: found at start, or by the
// first batch it fails; settling then stores and counts every event in UTC and in the zones
// Postgres knows, nothing is set aside, reports in the lost zone are refused by name (503), and
// /api/metrics and the overview show it.
import { beforeAll, describe, expect, it } from "vitest";
import { OPERATOR } from "@/server/accounts/actor";
import { createApiKey } from "@/server/accounts/api-keys";
import { localDay } from "@/server/core/time-zones";
import { pgPool } from "@/server/db/pg-pool";
import { recordBeacon } from "@/server/pipeline/accept/beacons/record-beacon";
import { forgetReadableZones } from "@/server/store/postgres/report-zone.sql";
import { verifyRollups } from "@/server/store/postgres/verify-rollups.sql";
import { checkStoreZones } from "@/server/store/start-store";
import { pipelineStatus } from "@/server/upkeep/pipeline-status";
import { metricsText } from "@/server/upkeep/prometheus";
import { handleCampaignsDetailed } from "@/testing/api/checked-report-routes";
import { CHROME, servedClaims } from "@/testing/beacon-log";
import { makeAdvertiser, makeCampaignWithAd, makePublisher } from "@/testing/fixtures";
import type { Fixture } from "@/testing/report-fixture";
import { settleAll } from "@/testing/settle";

const SINCE = "2026-11-01T00:00:00Z";
let fixture: Fixture;
let shop: Awaited<ReturnType<typeof makePublisher>>;
let key: string;

const impressionsIn = async (zone: string) =>
  (
    await pgPool().query<{ day: string; n: number }>(
      "SELECT day::text, sum(impressions)::int AS n FROM daily_campaign_totals WHERE zone = $1 AND campaign_id = $2 GROUP BY day ORDER BY day",
      [zone, fixture.campaign.id],
    )
  ).rows;

/** A counted impression accepted (not yet settled) at `at`. */
const impression = (session: string, at: Date) =>
  recordBeacon({
    claims: servedClaims({ ad: fixture.ad, campaign: fixture.campaign, publisher: shop }, session, { kind: "impression", at }),
    body: { session_id: session },
    userAgent: CHROME,
    now: at,
  });

async function ask(query: string) {
  const response = await handleCampaignsDetailed(
    new Request(`http://tally.test/report/advertisers/campaigns-detailed?${query}`, { headers: { Authorization: `Bearer ${key}` } }),
  );
  return { status: response.status, headers: response.headers, body: (await response.json()) as { error?: { message: string }; data?: unknown[] } };
}

beforeAll(async () => {
  await pgPool().query("INSERT INTO report_zones (zone, since, hours_since) VALUES ('Asia/Kolkata', $1, $1), ('Nowhere/Atlantis', $1, $1)", [SINCE]);
  shop = await makePublisher();
  const advertiser = await makeAdvertiser();
  fixture = await makeCampaignWithAd({ advertiserId: advertiser.id, publisherIds: [shop.id], bidModel: "cpm", bid: 10 });
  key = (await createApiKey({ actor: OPERATOR, accountId: advertiser.id, name: "zones" })).key;
});

describe("a kept zone Postgres does not know", () => {
  it("is found at start, and settling stores and counts UTC and Kolkata as if it were not kept", async () => {
    const found = await checkStoreZones();
    expect(found.map((z) => z.zone)).toEqual(["Nowhere/Atlantis"]);
    // Found once: a second start finds it recorded, from the same moment.
    expect(await checkStoreZones()).toEqual(found);

    const moments = ["2026-11-10T18:29:59.999Z", "2026-11-10T18:30:00Z", "2026-11-11T12:00:00Z"];
    for (const [n, at] of moments.entries()) await impression(`s${n}`, new Date(at));
    const settled = await settleAll();
    expect(settled).toMatchObject({ counted: 3, setAside: 0, failedSteps: [] });
    const perDay = (zone: string) => {
      const days = new Map<string, number>();
      for (const at of moments) days.set(localDay(new Date(at), zone), (days.get(localDay(new Date(at), zone)) ?? 0) + 1);
      return [...days].map(([day, n]) => ({ day, n }));
    };
    expect(await impressionsIn("UTC")).toEqual(perDay("UTC"));
    expect(await impressionsIn("Asia/Kolkata")).toEqual(perDay("Asia/Kolkata"));
    expect(await impressionsIn("Nowhere/Atlantis")).toEqual([]);
    // The check recounts the zones Postgres knows, and finds them right.
    expect(await verifyRollups("2026-11-01", "2026-11-30")).toEqual([]);
  });

  it("refuses reports in it by name, and reads the account's default in UTC", async () => {
    // The account chose Atlantis when Postgres knew it (after the settling above: budgets count in
    // the account's zone with the runtime's own tz data, which knows no Atlantis either).
    await pgPool().query("UPDATE accounts SET time_zone = 'Nowhere/Atlantis' WHERE id = $1", [fixture.campaign.advertiserId]);
    forgetReadableZones();
    const refused = await ask("start_date=2026-11-01&end_date=2026-11-30&time_zone=Nowhere/Atlantis");
    expect(refused.status).toBe(503);
    expect(refused.body.error?.message).toMatch(/time_zone Nowhere\/Atlantis cannot be read now: the database's time zone data no longer knows it/);
    const fallback = await ask("start_date=2026-11-01&end_date=2026-11-30");
    expect(fallback.status).toBe(200);
    expect(fallback.headers.get("tally-time-zone")).toBe("UTC");
    expect((await ask("start_date=2026-11-01&end_date=2026-11-30&time_zone=Asia/Kolkata")).status).toBe(200);
  });

  it("shows it on /api/metrics and the overview", async () => {
    const { body } = await metricsText();
    expect(body).toContain('tally_report_zone_unknown{zone="Nowhere/Atlantis"} 1');
    expect(body).not.toContain('tally_report_zone_unknown{zone="Asia/Kolkata"}');
    const status = await pipelineStatus({ actor: OPERATOR });
    expect(status.problems.some((p) => p.startsWith("time zone Nowhere/Atlantis is unknown to Postgres since "))).toBe(true);
  });

  it("is found by the first batch it fails when it was kept after the start: that batch is tried again, nothing is set aside", async () => {
    await pgPool().query("UPDATE accounts SET time_zone = 'UTC' WHERE id = $1", [fixture.campaign.advertiserId]);
    await pgPool().query("INSERT INTO report_zones (zone, since, hours_since) VALUES ('Nowhere/Lemuria', $1, $1)", [SINCE]);
    await impression("after", new Date("2026-11-12T12:00:00Z"));
    const settled = await settleAll();
    expect(settled.counted).toBe(1);
    expect(settled.setAside).toBe(0);
    expect(settled.failedSteps.length).toBeGreaterThan(0);
    expect(settled.failedSteps[0]?.error).toMatch(/Nowhere\/Lemuria/);
    const { rows } = await pgPool().query<{ zone: string }>("SELECT zone FROM unknown_report_zones ORDER BY zone");
    expect(rows.map((r) => r.zone)).toEqual(["Nowhere/Atlantis", "Nowhere/Lemuria"]);
    expect((await impressionsIn("UTC")).find((r) => r.day === "2026-11-12")).toEqual({ day: "2026-11-12", n: 1 });
    expect((await impressionsIn("Asia/Kolkata")).find((r) => r.day === "2026-11-12")).toEqual({ day: "2026-11-12", n: 1 });
  });
});
