// The zone the dashboard's procedures read in: an advertiser's users in their account's zone
// (America/Sao_Paulo here), staff in the one they ask for, else the viewed account's, else the
// operator's default; each answer names it, and its days are local dates there.
import { beforeAll, describe, expect, it } from "vitest";
import { createUser } from "@/server/accounts/create-user";
import { signIn, type Viewer } from "@/server/accounts/sessions";
import { db } from "@/server/db/client";
import type { EventKind } from "@/server/store/settle-types";
import { CHROME, servedClaims } from "@/testing/beacon-log";
import { makeAdvertiser, makeCampaignWithAd, makePublisher } from "@/testing/fixtures";
import { recordAndSettle } from "@/testing/settle";
import { createCaller } from "../root";

const SAO_PAULO = "America/Sao_Paulo";
let staff: Viewer;
let brandUser: Viewer;
let shopUser: Viewer;
let brandId: string;
let campaignId: string;
const range = { startDate: "2026-11-09", endDate: "2026-11-10" };

async function viewer(email: string, role: "staff" | "member", accountId?: string): Promise<Viewer> {
  await createUser({ email, name: email, password: "correct horse battery", role, accountId });
  return (await signIn(email, "correct horse battery")).viewer;
}
const as = (v: Viewer | null) => createCaller({ viewer: v });

beforeAll(async () => {
  const shop = await makePublisher();
  const brand = await makeAdvertiser();
  brandId = brand.id;
  // The advertiser reads in São Paulo, which the report tables keep from the start (set directly:
  // choosing a zone is the account settings' part).
  await db.$executeRaw`UPDATE accounts SET time_zone = ${SAO_PAULO} WHERE id = ${brand.id}`;
  await db.$executeRaw`INSERT INTO report_zones (zone, since, hours_since) VALUES (${SAO_PAULO}, '1970-01-01T00:00:00Z', '1970-01-01T00:00:00Z')`;
  const { campaign, ad } = await makeCampaignWithAd({ advertiserId: brand.id, publisherIds: [shop.id], bidModel: "cpm", bid: 10 });
  campaignId = campaign.id;
  const beacon = (kind: EventKind, session: string, at: string) =>
    recordAndSettle({
      claims: servedClaims({ ad, campaign, publisher: shop }, session, { kind, at: new Date(at) }),
      body: { session_id: session },
      userAgent: CHROME,
      now: new Date(at),
    });
  // 01:30 UTC on the 10th is 22:30 on the 9th in São Paulo (UTC−03:00); 12:00 UTC is 09:00 on the 10th.
  await beacon("impression", "late", "2026-11-10T01:30:00Z");
  await beacon("impression", "morning", "2026-11-10T12:00:00Z");
  await beacon("click", "morning", "2026-11-10T12:01:00Z");
  staff = await viewer("staff@zones.test", "staff");
  brandUser = await viewer("brand@zones.test", "member", brand.id);
  shopUser = await viewer("shop@zones.test", "member", shop.id);
});

describe("the zone a dashboard view reads in", () => {
  it("is the member's account's, the viewed account's or campaign's for staff, else the operator's default (UTC unset)", async () => {
    expect(await as(brandUser).zones.view({})).toEqual({ zone: SAO_PAULO, kept: ["UTC", SAO_PAULO] });
    // A member's view is their own account's whatever they look at.
    expect((await as(brandUser).zones.view({ campaignId })).zone).toBe(SAO_PAULO);
    expect((await as(shopUser).zones.view({})).zone).toBe("UTC");
    expect((await as(staff).zones.view({})).zone).toBe("UTC");
    expect((await as(staff).zones.view({ accountId: brandId })).zone).toBe(SAO_PAULO);
    expect((await as(staff).zones.view({ campaignId })).zone).toBe(SAO_PAULO);
    // Another account's id tells a member nothing of it: their own zone.
    expect((await as(shopUser).zones.view({ accountId: brandId })).zone).toBe("UTC");
    await expect(as(staff).zones.view({ accountId: "acc_unknown" })).resolves.toMatchObject({ zone: "UTC" });
    await expect(as(null).zones.view({})).rejects.toMatchObject({ code: "UNAUTHORIZED" });
  });

  it("answers the zone each range procedure read in: the asked one when the report tables keep it", async () => {
    expect((await as(brandUser).stats.overview(range)).zone).toBe(SAO_PAULO);
    expect((await as(brandUser).campaigns.list(range)).zone).toBe(SAO_PAULO);
    expect((await as(brandUser).campaigns.get({ id: campaignId, ...range })).zone).toBe(SAO_PAULO);
    expect((await as(staff).stats.overview(range)).zone).toBe("UTC");
    expect((await as(staff).stats.overview({ ...range, accountId: brandId })).zone).toBe(SAO_PAULO);
    expect((await as(staff).campaigns.get({ id: campaignId, ...range })).zone).toBe(SAO_PAULO);
    expect((await as(staff).stats.overview({ ...range, accountId: brandId, timeZone: "UTC" })).zone).toBe("UTC");
    // Any spelling the tz database knows, answered canonical.
    expect((await as(staff).campaigns.list({ ...range, timeZone: "america/sao_paulo" })).zone).toBe(SAO_PAULO);
  });

  it("refuses a zone the report tables do not keep, naming those they do", async () => {
    await expect(as(staff).stats.overview({ ...range, timeZone: "Asia/Kathmandu" })).rejects.toMatchObject({
      code: "BAD_REQUEST",
      message: expect.stringContaining("UTC, America/Sao_Paulo"),
    });
    await expect(as(brandUser).campaigns.list({ ...range, timeZone: "Mars/Olympus" })).rejects.toMatchObject({ code: "BAD_REQUEST" });
  });

  it("gives an advertiser in São Paulo its days as São Paulo dates", async () => {
    const overview = await as(brandUser).stats.overview(range);
    expect(overview.daily.map((d) => [d.day, d.impressions_total])).toEqual([
      ["2026-11-09", 1],
      ["2026-11-10", 1],
    ]);
    expect(overview.total).toMatchObject({ impressions_total: 2, clicks_total: 1 });
    const page = await as(brandUser).campaigns.get({ id: campaignId, ...range });
    expect(page.daily.map((d) => [d.day, d.impressions_total, d.clicks_total])).toEqual([
      ["2026-11-09", 1, 0],
      ["2026-11-10", 1, 1],
    ]);
    // The same events in UTC, asked for: both on the 10th.
    const inUtc = await as(brandUser).stats.overview({ ...range, timeZone: "UTC" });
    expect(inUtc.daily.map((d) => [d.day, d.impressions_total])).toEqual([
      ["2026-11-09", 0],
      ["2026-11-10", 2],
    ]);
  });
});
