// `npm run campaigns` as an operator runs it: a child process against this file's database.
import { describe, expect, it } from "vitest";
import { db } from "@/server/db/client";
import { makeAdvertiser, makeCampaignWithAd, makePublisher } from "@/testing/fixtures";
import { runCli } from "@/testing/run-cli";

const campaigns = (args: string[]) => runCli("campaigns.ts", args);

// Each command starts a process (tsx, Prisma): a few seconds each on a busy machine.
const SPAWNS = { timeout: 120_000 };

describe("npm run campaigns -- negative-term", () => {
  it("adds, lists and removes a campaign's negative terms as the operator, logging each change", SPAWNS, async () => {
    const { campaign } = await makeCampaignWithAd({ advertiserId: (await makeAdvertiser()).id, publisherIds: [(await makePublisher()).id] });
    const term = (verb: string, ...rest: string[]) => campaigns(["negative-term", verb, "--campaign", campaign.id, ...rest]);

    const added = await term("add", "--term", "Running  Shoes", "--match", "phrase");
    expect(added).toEqual({
      code: 0,
      err: "",
      out: `tally: campaign ${campaign.id} is no longer served for search terms holding the phrase "running shoes"\n`,
    });
    expect((await term("add", "--term", "running shoes", "--match", "phrase")).out).toContain('already has the phrase negative term "running shoes"');
    const listed = await term("list");
    expect(listed.out).toMatch(/^phrase\t"running shoes"\tadded \d{4}-\d\d-\d\dT[\d:.]+Z by operator\n$/);

    const removed = await term("remove", "--term", "RUNNING shoes", "--match", "phrase");
    expect(removed.out).toBe(`tally: campaign ${campaign.id} no longer has the phrase negative term "running shoes"\n`);
    expect((await term("list")).out).toBe(`tally: campaign ${campaign.id} has no negative terms\n`);

    const entries = await db.activityEntry.findMany({
      where: { campaignId: campaign.id, action: { startsWith: "campaign.negative_term." } },
      orderBy: { id: "asc" },
    });
    expect(entries.map((e) => [e.action, e.actorName])).toEqual([
      ["campaign.negative_term.added", "operator"],
      ["campaign.negative_term.removed", "operator"],
    ]);
  });

  it("says why it refuses, and prints the usage for a command line it does not know", SPAWNS, async () => {
    const refused = await campaigns(["negative-term", "remove", "--campaign", "no-such-campaign", "--term", "x", "--match", "exact"]);
    expect(refused).toMatchObject({ code: 1, err: "tally: no such campaign\n" });
    const usage = await campaigns(["negative-term", "add", "--campaign", "c", "--term", "x", "--match", "broad"]);
    expect(usage.code).toBe(2);
    expect(usage.err).toMatch(/^tally: usage: npm run campaigns -- negative-term add\|remove/);
  });
});
