import { beforeAll, describe, expect, it } from "vitest";
import type { Viewer } from "@/server/accounts/sessions";
import { db } from "@/server/db/client";
import { createCaller } from "@/server/trpc/root";
import { makeAdvertiser, makeCampaignWithAd, makePublisher } from "@/testing/fixtures";
import { MAX_BULK_CAMPAIGNS } from "./bulk-campaign-input";
import { bulkChangeCampaigns } from "./bulk-change-campaigns";

const staff: Viewer = { userId: "usr_bulk_staff", email: "staff@bulk.test", name: "Staff", role: "staff", accountId: null };
const member = (accountId: string, memberRole: "admin" | "viewer" = "admin"): Viewer => ({
  userId: `usr_${memberRole}_${accountId}`,
  email: `${memberRole}.${accountId}@bulk.test`,
  name: `${memberRole} of ${accountId}`,
  role: "member",
  accountId,
  memberRole,
});

let shop: Awaited<ReturnType<typeof makePublisher>>;
let brand: Awaited<ReturnType<typeof makeAdvertiser>>;
let rival: Awaited<ReturnType<typeof makeAdvertiser>>;

/** A campaign with one ad (so a member may make it active), made as the seed and the CLIs make them. */
async function campaign(advertiserId: string, status: "active" | "paused" | "draft" = "active", dailyBudget?: number) {
  const made = await makeCampaignWithAd({ advertiserId, publisherIds: [shop.id], status, bid: 2, dailyBudget });
  return made.campaign.id;
}

const statusOf = async (ids: string[]) =>
  Object.fromEntries((await db.campaign.findMany({ where: { id: { in: ids } }, select: { id: true, status: true } })).map((c) => [c.id, c.status]));
const entriesOf = (ids: string[]) => db.activityEntry.findMany({ where: { campaignId: { in: ids } }, orderBy: { id: "asc" } });

beforeAll(async () => {
  [shop, brand, rival] = [await makePublisher(), await makeAdvertiser(), await makeAdvertiser()];
});

describe("bulkChangeCampaigns", () => {
  it("pauses an admin's two campaigns, refuses another account's as not found and leaves it running, and logs each change", async () => {
    const [first, second, theirs] = [await campaign(brand.id), await campaign(brand.id), await campaign(rival.id)];
    const before = await entriesOf([first, second, theirs]);
    const answer = await bulkChangeCampaigns({ actor: member(brand.id), ids: [first, theirs, second, first, "cmp_missing"], change: { action: "pause" } });
    expect(answer).toEqual({
      changed: 2,
      results: [
        { id: first, outcome: "changed" },
        { id: theirs, outcome: "refused", reason: "no such campaign" },
        { id: second, outcome: "changed" },
        { id: "cmp_missing", outcome: "refused", reason: "no such campaign" },
      ],
    });
    expect(await statusOf([first, second, theirs])).toEqual({ [first]: "paused", [second]: "paused", [theirs]: "active" });
    const written = (await entriesOf([first, second, theirs])).slice(before.length);
    expect(written.map((e) => ({ campaignId: e.campaignId, action: e.action, accountId: e.accountId, before: e.before, after: e.after }))).toEqual([
      { campaignId: first, action: "campaign.status.set", accountId: brand.id, before: { status: "active" }, after: { status: "paused" } },
      { campaignId: second, action: "campaign.status.set", accountId: brand.id, before: { status: "active" }, after: { status: "paused" } },
    ]);
    expect(written.every((e) => e.actorName === `admin of ${brand.id} <admin.${brand.id}@bulk.test>`)).toBe(true);
  });

  it("refuses every campaign to the account's viewer and changes nothing", async () => {
    const [first, second] = [await campaign(brand.id), await campaign(brand.id)];
    const answer = await bulkChangeCampaigns({ actor: member(brand.id, "viewer"), ids: [first, second], change: { action: "pause" } });
    expect(answer.changed).toBe(0);
    expect(answer.results.map((r) => [r.outcome, r.reason])).toEqual([
      ["refused", "viewers of an account may not change it; ask one of its admins"],
      ["refused", "viewers of an account may not change it; ask one of its admins"],
    ]);
    expect(await statusOf([first, second])).toEqual({ [first]: "active", [second]: "active" });
    // Only their creation is in the log.
    // Nothing but how they were made (each campaign and its ad): the viewer changed none.
    expect((await entriesOf([first, second])).map((e) => e.action).filter((action) => action.startsWith("campaign."))).toEqual([
      "campaign.created",
      "campaign.created",
    ]);
  });

  it("resumes only a paused campaign: an active one is left as it is, a draft is refused", async () => {
    const [paused, active, draft] = [await campaign(brand.id, "paused"), await campaign(rival.id), await campaign(brand.id, "draft")];
    const answer = await bulkChangeCampaigns({ actor: staff, ids: [paused, active, draft], change: { action: "resume" } });
    expect(answer.results).toEqual([
      { id: paused, outcome: "changed" },
      { id: active, outcome: "unchanged", reason: "already active" },
      { id: draft, outcome: "refused", reason: expect.stringMatching(/^only a paused campaign can be resumed.*\(this one is draft\)$/) },
    ]);
    expect(await statusOf([paused, active, draft])).toEqual({ [paused]: "active", [active]: "active", [draft]: "draft" });
    expect((await entriesOf([paused, active, draft])).filter((e) => e.action === "campaign.status.set").map((e) => e.campaignId)).toEqual([paused]);
  });

  it("refuses to resume a paused campaign whose ads are all archived: it would be active with nothing to serve", async () => {
    const made = await makeCampaignWithAd({ advertiserId: brand.id, publisherIds: [shop.id], status: "paused" });
    await db.ad.update({ where: { id: made.ad.id }, data: { status: "archived" } });
    const answer = await bulkChangeCampaigns({ actor: member(brand.id), ids: [made.campaign.id], change: { action: "resume" } });
    expect(answer).toEqual({ changed: 0, results: [{ id: made.campaign.id, outcome: "refused", reason: expect.stringMatching(/^status: add an ad first/) }] });
    expect(await statusOf([made.campaign.id])).toEqual({ [made.campaign.id]: "paused" });
  });

  it("gives every campaign one daily budget, logs what it was, and leaves one that already has it", async () => {
    const [none, some] = [await campaign(brand.id), await campaign(brand.id, "paused", 10)];
    const answer = await bulkChangeCampaigns({ actor: staff, ids: [none, some], change: { action: "daily_budget", dailyBudget: 25.5 } });
    expect(answer.changed).toBe(2);
    const stored = await db.campaign.findMany({ where: { id: { in: [none, some] } }, select: { dailyBudgetMicros: true } });
    expect(stored.map((c) => c.dailyBudgetMicros)).toEqual([25_500_000n, 25_500_000n]);
    const updates = (await entriesOf([none, some])).filter((e) => e.action === "campaign.updated");
    expect(updates.map((e) => [e.campaignId, e.before, e.after])).toEqual([
      [none, { dailyBudget: null }, { dailyBudget: 25.5 }],
      [some, { dailyBudget: 10 }, { dailyBudget: 25.5 }],
    ]);
    const again = await bulkChangeCampaigns({ actor: staff, ids: [none], change: { action: "daily_budget", dailyBudget: 25.5 } });
    expect(again.results).toEqual([{ id: none, outcome: "unchanged", reason: "already has this daily budget" }]);
  });

  it("refuses a budget out of bounds and more than the bound of campaigns, before changing any", async () => {
    const id = await campaign(brand.id, "active", 10);
    await expect(bulkChangeCampaigns({ actor: staff, ids: [id], change: { action: "daily_budget", dailyBudget: 0 } })).rejects.toThrow(/must be above 0/);
    await expect(bulkChangeCampaigns({ actor: staff, ids: [id], change: { action: "daily_budget", dailyBudget: 2e9 } })).rejects.toThrow(/at most/);
    const tooMany = [id, ...Array.from({ length: MAX_BULK_CAMPAIGNS }, (_, i) => `cmp_none_${i}`)];
    await expect(bulkChangeCampaigns({ actor: staff, ids: tooMany, change: { action: "pause" } })).rejects.toThrow(/at most 200 campaigns/);
    await expect(createCaller({ viewer: staff }).campaigns.bulkChange({ ids: tooMany, change: { action: "pause" } })).rejects.toMatchObject({
      code: "BAD_REQUEST",
    });
    await expect(createCaller({ viewer: null }).campaigns.bulkChange({ ids: [id], change: { action: "pause" } })).rejects.toMatchObject({
      code: "UNAUTHORIZED",
    });
    expect(await statusOf([id])).toEqual({ [id]: "active" });
    expect((await db.campaign.findUniqueOrThrow({ where: { id } })).dailyBudgetMicros).toBe(10_000_000n);
  });
});
