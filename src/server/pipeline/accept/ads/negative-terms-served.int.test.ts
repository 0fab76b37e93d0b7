// The ad query and a campaign's negative terms: a campaign is not served for a term one of its
// negatives blocks, from the next query on, and is served as before for every other term.
import { randomUUID } from "node:crypto";
import sql from "sql-template-tag";
import { describe, expect, it } from "vitest";
import { OPERATOR } from "@/server/accounts/actor";
import { addNegativeTerm, removeNegativeTerm } from "@/server/campaigns/negative-terms";
import { blockingKeys, negativeTermKey } from "@/server/core/negative-term-keys";
import { db } from "@/server/db/client";
import { pgPool } from "@/server/db/pg-pool";
import { askForAds } from "@/testing/events-client";
import { makeAdvertiser, makeCampaignWithAd, makePublisher } from "@/testing/fixtures";
import { candidateAdsStatement } from "./candidate-ads.sql";

/** Two banner campaigns on one new publisher, each of another advertiser. */
async function twoCampaigns() {
  const publisher = await makePublisher();
  const first = (await makeCampaignWithAd({ advertiserId: (await makeAdvertiser()).id, publisherIds: [publisher.id] })).campaign;
  const second = (await makeCampaignWithAd({ advertiserId: (await makeAdvertiser()).id, publisherIds: [publisher.id] })).campaign;
  /** The campaigns served for `term` (none: no term), by id. */
  const servedFor = async (term?: string) => {
    const { status, body } = await askForAds({
      publisher_id: publisher.id,
      session_id: `s-${randomUUID()}`,
      context: "search",
      ...(term === undefined ? {} : { term }),
      placements: [{ name: "top", types: ["banner"], quantity: 5 }],
    });
    expect(status).toBe(200);
    return new Set(body.ads.top!.map((ad) => ad.campaign_id));
  };
  return { first: first.id, second: second.id, servedFor };
}

const negative = (campaignId: string, term: string, match: "exact" | "phrase") => addNegativeTerm({ actor: OPERATOR, campaignId, term, match });

describe("negative terms in the ad query", () => {
  it("exact: stop the campaign for that term however it is typed, and for no other term nor the other campaign", async () => {
    const { first, second, servedFor } = await twoCampaigns();
    await negative(first, "Running Shoes", "exact");
    expect(await servedFor("running shoes")).toEqual(new Set([second]));
    expect(await servedFor("  RUNNING\u00A0shoes ")).toEqual(new Set([second]));
    for (const term of ["red running shoes", "running shoe", "shoes running", "running"]) {
      expect(await servedFor(term), term).toEqual(new Set([first, second]));
    }
    expect(await servedFor()).toEqual(new Set([first, second]));
  });

  it("phrase: stop the campaign where the words come together and in order, nowhere else", async () => {
    const { first, second, servedFor } = await twoCampaigns();
    await negative(second, "running shoes", "phrase");
    for (const term of ["running shoes", "red running shoes sale", "Red, RUNNING shoes!"]) {
      expect(await servedFor(term), term).toEqual(new Set([first]));
    }
    for (const term of ["running shoe", "shoes running", "running red shoes", "shoes"]) {
      expect(await servedFor(term), term).toEqual(new Set([first, second]));
    }
    // One word: a whole word, never part of one.
    await negative(first, "tv", "phrase");
    expect(await servedFor("smart tv 55")).toEqual(new Set([second]));
    expect(await servedFor("tvs 55")).toEqual(new Set([first, second]));
  });

  it("hold from the query after the change, in both directions, and never match a private-data marker", async () => {
    const { first, second, servedFor } = await twoCampaigns();
    expect(await servedFor("free delivery")).toEqual(new Set([first, second]));
    await negative(first, "free", "phrase");
    expect(await servedFor("free delivery")).toEqual(new Set([second]));
    await removeNegativeTerm({ actor: OPERATOR, campaignId: first, term: "free", match: "phrase" });
    expect(await servedFor("free delivery")).toEqual(new Set([first, second]));
    // A term holding an e-mail address is kept as "(email)", which no negative matches ("email" included).
    await negative(first, "email", "phrase");
    await negative(first, "(email)", "exact");
    expect(await servedFor("joao@example.com")).toEqual(new Set([first, second]));
  });

  it("stop a campaign with a full list only for its own terms", async () => {
    const { first, second, servedFor } = await twoCampaigns();
    for (let i = 0; i < 50; i += 1) await negative(first, `brand${i} shoes`, i % 2 === 0 ? "exact" : "phrase");
    expect(await servedFor("brand7 shoes outlet")).toEqual(new Set([second]));
    expect(await servedFor("brand8 shoes")).toEqual(new Set([second]));
    expect(await servedFor("brand8 shoes outlet")).toEqual(new Set([first, second]));
  });

  it("probe each campaign's terms by key, never reading its whole list nor the table", async () => {
    const publisher = await makePublisher();
    const advertiserId = (await makeAdvertiser()).id;
    for (let c = 0; c < 10; c += 1) {
      const { campaign } = await makeCampaignWithAd({ advertiserId, publisherIds: [publisher.id] });
      await db.campaignNegativeTerm.createMany({
        data: Array.from({ length: 1_000 }, (_, i) => {
          const negative = i % 2 === 0 ? { term: `rival${i} boots`, match: "exact" as const } : { term: `cheap rival${i} sandals`, match: "phrase" as const };
          return { campaignId: campaign.id, ...negative, matchKey: negativeTermKey(negative), createdBy: "operator" };
        }),
      });
    }
    await pgPool().query("ANALYZE");
    const statement = candidateAdsStatement([publisher.id], new Date(), ["banner"], blockingKeys("red running shoes sale"));
    const { rows } = await pgPool().query<{ "QUERY PLAN": [{ Plan: PlanNode }] }>(sql`EXPLAIN (ANALYZE, FORMAT JSON) ${statement}`);
    const probes = nodesOf(rows[0]!["QUERY PLAN"][0].Plan).filter(
      (node) => node["Relation Name"] === "campaign_negative_terms" || node["Index Name"]?.startsWith("campaign_negative_terms"),
    );
    // An index scan, or a bitmap scan and its index scan: either way the index finds the keys, and no row is read to be thrown away.
    expect(probes.map((node) => node["Index Cond"] ?? "").join(" ")).toMatch(/campaign_id = .*match_key = ANY/);
    expect(probes.reduce((sum, node) => sum + (node["Rows Removed by Filter"] ?? 0) + (node["Rows Removed by Index Recheck"] ?? 0), 0)).toBe(0);
  });
});

interface PlanNode {
  "Relation Name"?: string;
  "Index Name"?: string;
  "Rows Removed by Index Recheck"?: number;
  "Index Cond"?: string;
  "Rows Removed by Filter"?: number;
  Plans?: PlanNode[];
}
const nodesOf = (node: PlanNode): PlanNode[] => [node, ...(node.Plans ?? []).flatMap(nodesOf)];
