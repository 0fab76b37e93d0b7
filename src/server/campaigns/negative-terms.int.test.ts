// A campaign's negative terms through the domain functions and the dashboard's procedures: who
// may add, remove and list them, how a term is kept, the limit, and the activity log.
import { beforeAll, describe, expect, it } from "vitest";
import { OPERATOR } from "@/server/accounts/actor";
import { createUser } from "@/server/accounts/create-user";
import { signIn, type Viewer } from "@/server/accounts/sessions";
import { db } from "@/server/db/client";
import { createCaller } from "@/server/trpc/root";
import { makeAdvertiser, makeCampaignWithAd, makePublisher } from "@/testing/fixtures";
import { addNegativeTerm, listNegativeTerms, NEGATIVE_TERMS_PER_CAMPAIGN, removeNegativeTerm } from "./negative-terms";

const PASSWORD = "correct horse battery";
let brand: Awaited<ReturnType<typeof makeAdvertiser>>;
let rival: Awaited<ReturnType<typeof makeAdvertiser>>;
let shop: Awaited<ReturnType<typeof makePublisher>>;
let staff: Viewer;
let admin: Viewer;
let viewer: Viewer;
let rivalAdmin: Viewer;

async function user(email: string, role: "staff" | "member", accountId?: string, memberRole?: "admin" | "viewer"): Promise<Viewer> {
  await createUser({ email, name: email.split("@")[0]!, password: PASSWORD, role, accountId, memberRole });
  return (await signIn(email, PASSWORD)).viewer;
}
const as = (v: Viewer) => createCaller({ viewer: v });
const campaignOf = async (advertiserId: string) => (await makeCampaignWithAd({ advertiserId, publisherIds: [shop.id] })).campaign;
const entriesOf = (campaignId: string) =>
  db.activityEntry.findMany({ where: { campaignId, action: { startsWith: "campaign.negative_term." } }, orderBy: { id: "asc" } });

beforeAll(async () => {
  [brand, rival, shop] = [await makeAdvertiser(), await makeAdvertiser(), await makePublisher()];
  staff = await user("staff@negative.test", "staff");
  admin = await user("admin@negative.test", "member", brand.id, "admin");
  viewer = await user("viewer@negative.test", "member", brand.id, "viewer");
  rivalAdmin = await user("rival@negative.test", "member", rival.id, "admin");
});

describe("negative terms", () => {
  it("are added normalised, listed, removed as typed, and each change is logged with who made it", async () => {
    const campaign = await campaignOf(brand.id);
    expect(await addNegativeTerm({ actor: admin, campaignId: campaign.id, term: "  Açúcar   ORGÂNICO ", match: "phrase" })).toEqual({
      term: "acucar organico",
      match: "phrase",
      added: true,
    });
    await addNegativeTerm({ actor: OPERATOR, campaignId: campaign.id, term: "Free", match: "exact" });
    // The same term in another form is the same negative: nothing added, nothing logged.
    expect(await addNegativeTerm({ actor: admin, campaignId: campaign.id, term: "ACUCAR organico", match: "phrase" })).toMatchObject({ added: false });
    // The same words as exact are another negative.
    await addNegativeTerm({ actor: admin, campaignId: campaign.id, term: "acucar organico", match: "exact" });

    const listed = await listNegativeTerms({ actor: viewer, campaignId: campaign.id });
    expect(listed.map(({ term, match, createdBy }) => ({ term, match, createdBy }))).toEqual(
      expect.arrayContaining([
        { term: "acucar organico", match: "phrase", createdBy: "admin <admin@negative.test>" },
        { term: "free", match: "exact", createdBy: "operator" },
        { term: "acucar organico", match: "exact", createdBy: "admin <admin@negative.test>" },
      ]),
    );
    expect(listed).toHaveLength(3);

    await removeNegativeTerm({ actor: staff, campaignId: campaign.id, term: "Açúcar Orgânico", match: "phrase" });
    expect((await listNegativeTerms({ actor: admin, campaignId: campaign.id })).map((n) => `${n.match} ${n.term}`).sort()).toEqual([
      "exact acucar organico",
      "exact free",
    ]);
    await expect(removeNegativeTerm({ actor: admin, campaignId: campaign.id, term: "acucar organico", match: "phrase" })).rejects.toMatchObject({
      code: "not_found",
    });

    const entries = await entriesOf(campaign.id);
    expect(entries.map(({ action, actorName, accountId, subject, before, after }) => ({ action, actorName, accountId, subject, before, after }))).toEqual([
      {
        action: "campaign.negative_term.added",
        actorName: "admin <admin@negative.test>",
        accountId: brand.id,
        subject: `campaign ${campaign.name} (${campaign.id})`,
        before: null,
        after: { term: "acucar organico", match: "phrase" },
      },
      expect.objectContaining({ action: "campaign.negative_term.added", actorName: "operator", after: { term: "free", match: "exact" } }),
      expect.objectContaining({ action: "campaign.negative_term.added", after: { term: "acucar organico", match: "exact" } }),
      expect.objectContaining({
        action: "campaign.negative_term.removed",
        actorName: "staff <staff@negative.test>",
        before: { term: "acucar organico", match: "phrase" },
        after: null,
      }),
    ]);
  });

  it("refuse terms that are empty, private data, or phrases without a word or too long", async () => {
    const campaign = await campaignOf(brand.id);
    for (const [term, match, message] of [
      [" \u200B ", "exact", /empty/],
      ["joao@example.com", "phrase", /e-mail address/],
      ["!!!", "phrase", /add it as exact/],
      ["one two three four five six seven eight nine ten eleven", "phrase", /at most 10 words/],
    ] as const) {
      await expect(addNegativeTerm({ actor: admin, campaignId: campaign.id, term, match })).rejects.toMatchObject({ code: "bad_request", message });
    }
    await addNegativeTerm({ actor: admin, campaignId: campaign.id, term: "!!!", match: "exact" });
    expect(await listNegativeTerms({ actor: admin, campaignId: campaign.id })).toHaveLength(1);
    expect(await entriesOf(campaign.id)).toHaveLength(1);
  });

  it(`keep at most ${NEGATIVE_TERMS_PER_CAMPAIGN} a campaign, refusing more with a clear message`, async () => {
    const campaign = await campaignOf(brand.id);
    await db.campaignNegativeTerm.createMany({
      data: Array.from({ length: NEGATIVE_TERMS_PER_CAMPAIGN }, (_, i) => ({
        campaignId: campaign.id,
        term: `term ${i}`,
        match: "exact" as const,
        matchKey: `term ${i}`,
        createdBy: "operator",
      })),
    });
    await expect(addNegativeTerm({ actor: admin, campaignId: campaign.id, term: "one more", match: "exact" })).rejects.toMatchObject({
      code: "bad_request",
      message: `campaign ${campaign.id} already has 1,000 negative terms, the most a campaign keeps: remove one first`,
    });
    // One it has already is no addition; after a removal there is room again.
    expect(await addNegativeTerm({ actor: admin, campaignId: campaign.id, term: "Term 7", match: "exact" })).toMatchObject({ added: false });
    await removeNegativeTerm({ actor: admin, campaignId: campaign.id, term: "term 7", match: "exact" });
    expect(await addNegativeTerm({ actor: admin, campaignId: campaign.id, term: "one more", match: "exact" })).toMatchObject({ added: true });
  });

  it("answer another advertiser's campaign as one that does not exist, and change nothing of it", async () => {
    const campaign = await campaignOf(brand.id);
    await addNegativeTerm({ actor: admin, campaignId: campaign.id, term: "free", match: "exact" });
    const input = { campaignId: campaign.id, term: "free", match: "exact" } as const;
    await expect(addNegativeTerm({ actor: rivalAdmin, ...input, term: "cheap" })).rejects.toMatchObject({ code: "not_found", message: "no such campaign" });
    await expect(removeNegativeTerm({ actor: rivalAdmin, ...input })).rejects.toMatchObject({ code: "not_found", message: "no such campaign" });
    await expect(listNegativeTerms({ actor: rivalAdmin, campaignId: campaign.id })).rejects.toMatchObject({ code: "not_found" });
    await expect(addNegativeTerm({ actor: admin, ...input, campaignId: "no-such-campaign" })).rejects.toMatchObject({ code: "not_found" });
    expect((await listNegativeTerms({ actor: admin, campaignId: campaign.id })).map((n) => n.term)).toEqual(["free"]);
    expect(await entriesOf(campaign.id)).toHaveLength(1);
  });
});

describe("negative term procedures", () => {
  it("let admins and staff add and remove, viewers only list, and other advertisers nothing", async () => {
    const campaign = await campaignOf(brand.id);
    const input = { campaignId: campaign.id, term: "Running Shoes", match: "phrase" } as const;
    await expect(as(viewer).negativeTerms.add(input)).rejects.toMatchObject({ code: "FORBIDDEN" });
    await as(admin).negativeTerms.add(input);
    await as(staff).negativeTerms.add({ ...input, term: "socks", match: "exact" });
    // A member reads a staff member's addition as Tally staff's, as in the activity log; staff read the name.
    expect((await as(viewer).negativeTerms.list({ campaignId: campaign.id })).map((n) => [n.term, n.createdBy]).sort()).toEqual([
      ["running shoes", "admin <admin@negative.test>"],
      ["socks", "Tally staff"],
    ]);
    expect((await as(staff).negativeTerms.list({ campaignId: campaign.id })).find((n) => n.term === "socks")?.createdBy).toBe("staff <staff@negative.test>");
    await expect(as(viewer).negativeTerms.remove(input)).rejects.toMatchObject({ code: "FORBIDDEN" });
    await expect(as(rivalAdmin).negativeTerms.list({ campaignId: campaign.id })).rejects.toMatchObject({ code: "NOT_FOUND" });
    await expect(as(rivalAdmin).negativeTerms.remove(input)).rejects.toMatchObject({ code: "NOT_FOUND" });
    await as(admin).negativeTerms.remove(input);
    expect((await as(staff).negativeTerms.list({ campaignId: campaign.id })).map((n) => n.term)).toEqual(["socks"]);
    // Only the changes that were made are in the log: the viewer's attempts wrote nothing.
    expect((await entriesOf(campaign.id)).map((e) => e.action)).toEqual([
      "campaign.negative_term.added",
      "campaign.negative_term.added",
      "campaign.negative_term.removed",
    ]);
  });
});
