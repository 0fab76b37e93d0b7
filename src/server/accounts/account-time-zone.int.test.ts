// An account's time zone, called directly: who may change it, how a bad zone and the cap on kept
// zones are refused, that the change is logged and its zone kept in report_zones from a start in
// the future (a zone already kept keeps its own), and that the operator's default zone is kept too.
process.env.TALLY_REPORT_ZONES_MAX = "4";
process.env.TALLY_DEFAULT_TIME_ZONE = "europe/berlin";

import { beforeAll, describe, expect, it } from "vitest";
import { db } from "@/server/db/client";
import { metricsText } from "@/server/upkeep/prometheus";
import { makeAdvertiser, makePublisher } from "@/testing/fixtures";
import { keepOperatorTimeZone, operatorTimeZone, setAccountTimeZone } from "./account-time-zone";
import { OPERATOR } from "./actor";
import type { Viewer } from "./sessions";

const staff: Viewer = { userId: "usr_staff", email: "staff@zones.test", name: "Sam Staff", role: "staff", accountId: null };
const member = (accountId: string, memberRole: "admin" | "viewer"): Viewer => ({
  userId: `usr_${memberRole}_${accountId}`,
  email: `${memberRole}@${accountId}.test`,
  name: `${memberRole} of ${accountId}`,
  role: "member",
  accountId,
  memberRole,
});
const HOUR = 3_600_000;
const DAY = 24 * HOUR;

let brand: Awaited<ReturnType<typeof makeAdvertiser>>;
let shop: Awaited<ReturnType<typeof makePublisher>>;

beforeAll(async () => {
  [brand, shop] = [await makeAdvertiser(), await makePublisher()];
});

const zoneOf = async (accountId: string) => (await db.account.findUniqueOrThrow({ where: { id: accountId } })).timeZone;
const kept = (zone: string) => db.reportZone.findUnique({ where: { zone } });
const entries = (accountId: string) => db.activityEntry.findMany({ where: { accountId, action: "account.time_zone.set" }, orderBy: { id: "asc" } });

describe("setting an account's time zone", () => {
  it("lets staff set it: stored canonically, logged with before and after, and kept from the next UTC midnight (hours: the next whole hour)", async () => {
    const before = Date.now();
    const set = await setAccountTimeZone({ actor: staff, accountId: brand.id, timeZone: "america/sao_paulo" });
    const after = Date.now();
    expect(set).toMatchObject({ accountId: brand.id, accountName: brand.name, timeZone: "America/Sao_Paulo", previous: "UTC", changed: true });
    expect(set.offset).toMatch(/^UTC−0[23]:00$/);
    expect(await zoneOf(brand.id)).toBe("America/Sao_Paulo");

    const row = await kept("America/Sao_Paulo");
    expect(row).not.toBeNull();
    const since = row!.since.getTime();
    expect(since % DAY).toBe(0);
    expect(since).toBeGreaterThan(before);
    expect(since).toBeLessThanOrEqual(after - (after % DAY) + DAY);
    const hours = row!.hoursSince.getTime();
    expect(hours % HOUR).toBe(0);
    expect(hours).toBeGreaterThan(before);
    expect(hours).toBeLessThanOrEqual(after - (after % HOUR) + HOUR);
    expect(set.since).toEqual(row!.since);

    const [entry, ...others] = await entries(brand.id);
    expect(others).toEqual([]);
    expect(entry).toMatchObject({
      actorName: "Sam Staff <staff@zones.test>",
      actorStaff: true,
      subject: `time zone of ${brand.name}`,
      before: { timeZone: "UTC" },
      after: { timeZone: "America/Sao_Paulo" },
    });
  });

  it("logs nothing when the zone is the one the account has, and a kept zone keeps its start", async () => {
    const start = (await kept("America/Sao_Paulo"))!.since;
    const again = await setAccountTimeZone({ actor: staff, accountId: brand.id, timeZone: "America/Sao_Paulo" });
    expect(again).toMatchObject({ changed: false, previous: "America/Sao_Paulo", since: start });
    expect(await entries(brand.id)).toHaveLength(1);

    // Upkeep moves a zone's start back over days still held raw: a later choice of it leaves that alone.
    const movedBack = new Date("2026-09-01T00:00:00Z");
    await db.reportZone.update({ where: { zone: "America/Sao_Paulo" }, data: { since: movedBack } });
    const other = await setAccountTimeZone({ actor: OPERATOR, accountId: shop.id, timeZone: "America/Sao_Paulo" });
    expect(other.since).toEqual(movedBack);
    expect((await kept("America/Sao_Paulo"))!.since).toEqual(movedBack);
    expect((await entries(shop.id))[0]).toMatchObject({ actorName: "operator", before: { timeZone: "UTC" }, after: { timeZone: "America/Sao_Paulo" } });
  });

  it("lets the account's admins change their own, refuses its viewers, and answers another account's as not found", async () => {
    await setAccountTimeZone({ actor: member(shop.id, "admin"), accountId: shop.id, timeZone: "Asia/Kathmandu" });
    // Stored by its current name (Node's ICU resolves it to the older Asia/Katmandu), and kept under it.
    expect(await zoneOf(shop.id)).toBe("Asia/Kathmandu");
    expect(await kept(await zoneOf(shop.id))).not.toBeNull();

    await expect(setAccountTimeZone({ actor: member(shop.id, "viewer"), accountId: shop.id, timeZone: "UTC" })).rejects.toMatchObject({
      code: "forbidden",
      message: "viewers of an account may not change it; ask one of its admins",
    });
    await expect(setAccountTimeZone({ actor: member(shop.id, "admin"), accountId: brand.id, timeZone: "UTC" })).rejects.toMatchObject({
      code: "not_found",
      message: "no such account",
    });
    await expect(setAccountTimeZone({ actor: staff, accountId: "adv_nobody", timeZone: "UTC" })).rejects.toMatchObject({ code: "not_found" });
    expect(await zoneOf(brand.id)).toBe("America/Sao_Paulo");
    expect(await zoneOf(shop.id)).toMatch(/^Asia\/Kath?mandu$/);
  });

  it("refuses a name that is no zone on the timeZone field, keeping nothing", async () => {
    const zonesBefore = await db.reportZone.count();
    for (const name of ["+05:30", "EST", "Atlantis/Capital"]) {
      await expect(setAccountTimeZone({ actor: staff, accountId: brand.id, timeZone: name })).rejects.toMatchObject({
        code: "bad_request",
        details: { fieldErrors: { timeZone: expect.stringContaining("America/Sao_Paulo") } },
      });
    }
    expect(await db.reportZone.count()).toBe(zonesBefore);
    expect(await entries(brand.id)).toHaveLength(1);
  });

  it("keeps at most TALLY_REPORT_ZONES_MAX zones, UTC counted: a new zone past it is refused, a kept one still chosen", async () => {
    // UTC, São Paulo and Kathmandu are kept: one more fills the four.
    await setAccountTimeZone({ actor: staff, accountId: brand.id, timeZone: "Europe/Lisbon" });
    expect(await db.reportZone.count()).toBe(4);
    await expect(setAccountTimeZone({ actor: staff, accountId: brand.id, timeZone: "Asia/Tokyo" })).rejects.toMatchObject({
      code: "bad_request",
      details: { fieldErrors: { timeZone: expect.stringContaining("at most 4 time zones") } },
    });
    expect(await kept("Asia/Tokyo")).toBeNull();
    expect(await zoneOf(brand.id)).toBe("Europe/Lisbon");
    const back = await setAccountTimeZone({ actor: staff, accountId: brand.id, timeZone: "America/Sao_Paulo" });
    expect(back).toMatchObject({ changed: true, previous: "Europe/Lisbon", timeZone: "America/Sao_Paulo" });
    expect((await metricsText()).body).toMatch(/^tally_report_zones 4$/m);
  });
});

describe("the operator's default zone", () => {
  it("is read canonically from TALLY_DEFAULT_TIME_ZONE and kept at start whatever the cap, once", async () => {
    expect(operatorTimeZone()).toBe("Europe/Berlin");
    const first = await keepOperatorTimeZone();
    expect(first).toMatchObject({ zone: "Europe/Berlin", added: true });
    expect(await db.reportZone.count()).toBe(5);
    const second = await keepOperatorTimeZone();
    expect(second).toMatchObject({ zone: "Europe/Berlin", added: false, since: first!.since });
    expect((await metricsText()).body).toMatch(/^tally_report_zones 5$/m);
  });
});
