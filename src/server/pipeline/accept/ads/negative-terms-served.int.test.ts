// The ad query and a campaign's negative terms: a campaign is not served for a term one of its
// negatives blocks, from the next query on, and is served as before for every other term.
import { randomUUID } from "node:crypto";
import { describe, expect, it } from "vitest";
import { OPERATOR } from "@/server/accounts/actor";
import { addNegativeTerm, removeNegativeTerm } from "@/server/campaigns/negative-terms";
import { askForAds } from "@/testing/events-client";
import { makeAdvertiser, makeCampaignWithAd, makePublisher } from "@/testing/fixtures";

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
});
