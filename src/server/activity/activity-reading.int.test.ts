// Reading the activity log through the dashboard's procedure: a member reads their own account's
// entries only, whatever they ask for; pages walk back by id without gaps or repeats; the filters
// narrow; a change that fails leaves no entry, as an entry that fails undoes its change; and a
// member reads staff's changes as "Tally staff", never their names; the ids an entry's fields hold
// come with the names of what they point at, as they are now.
import { beforeAll, describe, expect, it } from "vitest";
import { createUser } from "@/server/accounts/create-user";
import { setDailyBudget, topUpWallet } from "@/server/accounts/manage-account";
import { signIn, type Viewer } from "@/server/accounts/sessions";
import { campaignSettings, updateCampaign } from "@/server/campaigns/update-campaign";
import { db } from "@/server/db/client";
import { setAttributionWindows } from "@/server/pipeline/attribute/attribution-windows";
import { createCaller } from "@/server/trpc/root";
import { makeAdvertiser, makeCampaignWithAd, makePublisher } from "@/testing/fixtures";

let staff: Viewer;
let brandMember: Viewer;
let otherMember: Viewer;
let brandId: string;
let otherId: string;
let campaignId: string;
const as = (viewer: Viewer) => createCaller({ viewer });

async function viewer(email: string, name: string, role: "staff" | "member", accountId?: string): Promise<Viewer> {
  await createUser({ email, name, password: "correct horse battery", role, accountId });
  return (await signIn(email, "correct horse battery")).viewer;
}

beforeAll(async () => {
  const publisher = await makePublisher();
  brandId = (await makeAdvertiser()).id;
  otherId = (await makeAdvertiser()).id;
  campaignId = (await makeCampaignWithAd({ advertiserId: brandId, publisherIds: [publisher.id] })).campaign.id;
  await makeCampaignWithAd({ advertiserId: otherId, publisherIds: [publisher.id] });
  staff = await viewer("lee@tally.test", "Lee Manager", "staff");
  brandMember = await viewer("kim@brand.test", "Kim Brand", "member", brandId);
  otherMember = await viewer("sam@other.test", "Sam Other", "member", otherId);
  await setAttributionWindows({ actor: staff, campaignType: "video", clickDays: 5, viewDays: 5, viewThrough: "views_only" });
  for (const budget of [11, 12, 13, 14, 15, 16, 17]) await setDailyBudget({ actor: brandMember, accountId: brandId, dailyBudget: budget });
  await topUpWallet({ actor: staff, accountId: otherId, amount: 5 });
});

describe("who reads what", () => {
  it("a member reads their own account's entries only: never another account's nor the platform's", async () => {
    const own = await as(brandMember).activity.list({ limit: 200 });
    expect(own.entries.length).toBeGreaterThanOrEqual(10);
    expect(new Set(own.entries.map((entry) => entry.accountId))).toEqual(new Set([brandId]));
    expect(own.entries[0]).toMatchObject({ accountName: expect.stringMatching(/^Brand /), currency: "USD" });
    // Asking for another account, or another account's campaign, reads as nothing.
    expect((await as(otherMember).activity.list({ accountId: brandId })).entries).toEqual([]);
    expect((await as(otherMember).activity.list({ campaignId })).entries).toEqual([]);
    expect((await as(otherMember).activity.list({})).entries.map((entry) => entry.action)).toEqual(
      expect.arrayContaining(["account.wallet.topped_up", "campaign.created", "ad.created", "account.created"]),
    );
  });

  it("staff read every account's entries and the platform's", async () => {
    const all = await as(staff).activity.list({ limit: 200 });
    const accounts = new Set(all.entries.map((entry) => entry.accountId));
    expect(accounts.has(brandId) && accounts.has(otherId) && accounts.has(null)).toBe(true);
  });
});

describe("paging and filters", () => {
  it("pages walk back by id, newest first, each entry once, and the last page says so", async () => {
    const every = (await as(staff).activity.list({ accountId: brandId, limit: 200 })).entries.map((entry) => entry.id);
    const paged: string[] = [];
    let cursor: string | null = null;
    let pages = 0;
    do {
      const page: { entries: { id: string }[]; next: string | null } = await as(staff).activity.list({ accountId: brandId, limit: 3, cursor });
      expect(page.entries.length).toBeLessThanOrEqual(3);
      paged.push(...page.entries.map((entry) => entry.id));
      cursor = page.next;
      pages += 1;
    } while (cursor !== null && pages < 50);
    expect(paged).toEqual(every);
    expect(pages).toBe(Math.ceil(every.length / 3));
    expect(paged.map(BigInt)).toEqual([...paged.map(BigInt)].sort((a, b) => (a > b ? -1 : a < b ? 1 : 0)));
  });

  it("narrow by kind of change, campaign, who and text", async () => {
    const budgets = await as(staff).activity.list({ accountId: brandId, actionPrefix: "account.daily_budget" });
    expect(budgets.entries.map((entry) => (entry.after as { dailyBudget: number }).dailyBudget)).toEqual([17, 16, 15, 14, 13, 12, 11]);
    expect(budgets.entries[0]!.before).toEqual({ dailyBudget: 16 });

    const ofCampaign = await as(brandMember).activity.list({ campaignId });
    expect(ofCampaign.entries.map((entry) => entry.action).sort()).toEqual(["ad.created", "campaign.created"]);

    const byKim = await as(staff).activity.list({ actorQuery: "KIM brand" });
    expect(byKim.entries).toHaveLength(7);
    expect((await as(staff).activity.list({ actorQuery: "kim@brand.test" })).entries).toHaveLength(7);

    const text = await as(staff).activity.list({ text: campaignId });
    expect(text.entries.map((entry) => entry.action)).toEqual(["campaign.created"]);
    // Wildcards are letters like any other.
    expect((await as(staff).activity.list({ text: "%" })).entries).toEqual([]);
    expect((await as(staff).activity.list({ actorQuery: "_" })).entries).toEqual([]);
  });
});

describe("a change and its entry stand or fall together", () => {
  it("a refused change leaves no entry", async () => {
    const before = await db.activityEntry.count();
    await expect(topUpWallet({ actor: brandMember, accountId: brandId, amount: 5 })).rejects.toMatchObject({ code: "forbidden" });
    await expect(topUpWallet({ actor: staff, accountId: brandId, amount: 999_999_999 })).rejects.toMatchObject({ code: "bad_request" });
    await expect(setDailyBudget({ actor: otherMember, accountId: brandId, dailyBudget: 5 })).rejects.toMatchObject({ code: "not_found" });
    expect(await db.activityEntry.count()).toBe(before);
    expect((await db.account.findUniqueOrThrow({ where: { id: brandId } })).dailyBudgetMicros).toBe(17_000_000n);
  });

  it("an entry that cannot be written undoes its change", async () => {
    // Postgres itself refuses this one entry, after the campaign's rows were written in its transaction.
    await db.$executeRawUnsafe(`
      CREATE FUNCTION refuse_entry() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN IF NEW.subject LIKE '%Refused name%' THEN RAISE EXCEPTION 'entry refused'; END IF; RETURN NEW; END $$`);
    await db.$executeRawUnsafe("CREATE TRIGGER refuse_entry BEFORE INSERT ON activity_log FOR EACH ROW EXECUTE FUNCTION refuse_entry()");
    const { id: _id, advertiserId: _advertiser, ...settings } = await campaignSettings({ actor: brandMember, id: campaignId });
    const entries = await db.activityEntry.count();
    await expect(updateCampaign({ actor: brandMember, id: campaignId, settings: { ...settings, name: "Refused name", bid: 9 } })).rejects.toThrow(
      /entry refused/,
    );
    expect(await campaignSettings({ actor: brandMember, id: campaignId })).toMatchObject({ name: settings.name, bid: settings.bid });
    expect(await db.activityEntry.count()).toBe(entries);
    await db.$executeRawUnsafe("DROP TRIGGER refuse_entry ON activity_log");
  });
});

describe("whose names a member reads", () => {
  it("a member reads a staff member's change as Tally staff, never the name or e-mail, nor finds it by them; staff read the name", async () => {
    const read = await as(otherMember).activity.list({ limit: 200 });
    const topUp = read.entries.find((entry) => entry.action === "account.wallet.topped_up");
    expect(topUp?.actor).toBe("Tally staff");
    expect(JSON.stringify(read)).not.toMatch(/Lee Manager|lee@tally\.test/);
    // Searching by the staff member's name or e-mail finds nothing; by "staff", their changes.
    for (const query of ["lee", "Manager", "tally.test"]) expect((await as(otherMember).activity.list({ actorQuery: query })).entries).toEqual([]);
    expect((await as(otherMember).activity.list({ actorQuery: "tally STAFF" })).entries.map((entry) => entry.id)).toEqual([topUp?.id]);
    // A member's own changes keep their name; staff read every name.
    const own = await as(brandMember).activity.list({ actorQuery: "kim" });
    expect(own.entries.length).toBeGreaterThanOrEqual(7);
    expect(new Set(own.entries.map((entry) => entry.actor))).toEqual(new Set(["Kim Brand <kim@brand.test>"]));
    const staffRead = await as(staff).activity.list({ accountId: otherId, actorQuery: "lee" });
    expect(staffRead.entries.map((entry) => [entry.id, entry.actor])).toEqual([[topUp?.id, "Lee Manager <lee@tally.test>"]]);
    expect((await as(staff).activity.list({ accountId: otherId, actorQuery: "Tally staff" })).entries).toEqual([]);
  });

  it("a staff member's change to a member's campaign reads as Tally staff on the campaign's page too", async () => {
    const { campaign } = await makeCampaignWithAd({ advertiserId: brandId, publisherIds: [(await makePublisher()).id] });
    const { id: _id, advertiserId: _advertiser, ...settings } = await campaignSettings({ actor: staff, id: campaign.id });
    await updateCampaign({ actor: staff, id: campaign.id, settings: { ...settings, name: "Renamed by staff" } });
    const onPage = await as(brandMember).activity.list({ campaignId: campaign.id });
    expect(onPage.entries[0]).toMatchObject({ action: "campaign.updated", actor: "Tally staff" });
    expect(JSON.stringify(onPage)).not.toMatch(/Lee Manager|lee@tally\.test/);
    expect((await as(staff).activity.list({ campaignId: campaign.id })).entries[0]?.actor).toBe("Lee Manager <lee@tally.test>");
  });
});

describe("names beside ids", () => {
  it("an entry's fields' ids come with the name of the publisher they point at, as they are now; other values have none", async () => {
    const publisher = await makePublisher();
    const { campaign } = await makeCampaignWithAd({ advertiserId: brandId, publisherIds: [publisher.id] });
    await db.account.update({ where: { id: publisher.id }, data: { name: "Corner Shop, renamed" } });
    const [created] = (await as(brandMember).activity.list({ campaignId: campaign.id, actionPrefix: "campaign.created" })).entries;
    expect((created!.after as { publisherIds: string[] }).publisherIds).toEqual([publisher.id]);
    expect(created!.names).toEqual({ [publisher.id]: "Corner Shop, renamed" });
    const [budget] = (await as(brandMember).activity.list({ actionPrefix: "account.daily_budget" })).entries;
    expect(budget!.names).toEqual({});
  });
});
