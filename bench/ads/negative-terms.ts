// `npm run bench:negative-terms`: what a publisher's campaigns' negative terms cost the ad query.
// Two publishers alike (CAMPAIGNS campaigns each, of several advertisers, half display with a
// banner, half product ads whose products the terms find), one whose campaigns hold no negative
// term and one whose campaigns hold 1,000 each (half exact, half phrase, none blocking the terms
// asked, so both answers serve the same ads). The ad query's route handler (handleAdQuery: rate
// limits, parsing, the candidates' statement, ranking, signing) is called in-process, one request
// of each publisher per turn, in turns, so whatever else the machine does falls on both alike;
// p99 of each per round, and their ratio. A second pair asks with the longest term a shopper can
// send (40 one-character words: the most keys the statement looks up, 356). Exits non-zero
// when the median round's p99 with 1,000 terms is more than 1.10 × without.
// Options: -- --rounds N (3) --turns N (1500 per round) --campaigns N (30).
import { parseArgs } from "node:util";
import { BENCH_RATE_LIMITS, log, startDatabase, stopDatabase } from "../lib/stack";
import { percentile, round } from "../reports/timing";

const { values } = parseArgs({
  options: {
    rounds: { type: "string", default: "3" },
    turns: { type: "string", default: "1500" },
    campaigns: { type: "string", default: "30" },
  },
});
const ROUNDS = Number(values.rounds);
const TURNS = Number(values.turns);
const CAMPAIGNS = Number(values.campaigns);
const TERMS_PER_CAMPAIGN = 1_000;
const TARGET = 1.1;
const WARM_UP_TURNS = 200;

Object.assign(process.env, BENCH_RATE_LIMITS);

// What shoppers search for; product names hold these words so product ads match (rank-ads.ts).
const TERMS = ["running shoes", "red running shoes sale", "trail running shoes women size 38", "coffee beans", "organic coffee beans 1kg", "smart tv 55"];
const PRODUCT_NAMES = ["Running shoes red sale", "Trail running shoes women size 38", "Organic coffee beans 1kg", "Smart TV 55"];
const LONGEST_TERM = Array.from({ length: 40 }, (_, i) => String.fromCodePoint(0x4e00 + i)).join(" ");

/** A negative term no asked term holds: brands and words the shoppers above never type. */
const negativeOf = (i: number) =>
  i % 2 === 0 ? { term: `rival${i} boots`, match: "exact" as const } : { term: `cheap rival${i} sandals`, match: "phrase" as const };

async function makeShop(withTerms: boolean): Promise<string> {
  const { makeAdvertiser, makeCampaignWithAd, makePublisher } = await import("@/testing/fixtures");
  const { db } = await import("@/server/db/client");
  const { normaliseNegativeTerm } = await import("@/server/core/search-terms");
  const { negativeTermKey } = await import("@/server/core/negative-term-keys");
  const publisher = await makePublisher();
  const advertisers = [await makeAdvertiser({ wallet: 1_000_000 }), await makeAdvertiser({ wallet: 1_000_000 }), await makeAdvertiser({ wallet: 1_000_000 })];
  for (let i = 0; i < CAMPAIGNS; i += 1) {
    const advertiserId = advertisers[i % advertisers.length]!.id;
    const product = i % 2 === 1;
    const { campaign } = await makeCampaignWithAd({
      advertiserId,
      publisherIds: [publisher.id],
      type: product ? "product" : "display",
      bidModel: i % 3 === 0 ? "cpc" : "cpm",
      bid: 1 + (i % 7) / 10,
      ...(product ? { products: [{ sku: `SKU-${publisher.id}-${i}`, name: PRODUCT_NAMES[i % PRODUCT_NAMES.length]! }] } : {}),
    });
    if (!withTerms) continue;
    // Written as negative-terms.ts keeps them (the same normalisation and key), in one statement
    // rather than 1,000 transactions each.
    await db.campaignNegativeTerm.createMany({
      data: Array.from({ length: TERMS_PER_CAMPAIGN }, (_, k) => {
        const { term: raw, match } = negativeOf(k);
        const term = normaliseNegativeTerm(raw);
        return { campaignId: campaign.id, term, match, matchKey: negativeTermKey({ term, match }), createdBy: "operator" };
      }),
    });
  }
  return publisher.id;
}

/** Times the ad query of the two publishers in turns, and remembers how many ads each served for each term. */
async function inTurns(none: string, many: string) {
  const { handleAdQuery } = await import("@/server/http/events-routes");
  const served = new Map<string, number>();
  let asked = 0;
  const ask = async (publisherId: string, term: string): Promise<number> => {
    asked += 1;
    const body = JSON.stringify({
      publisher_id: publisherId,
      session_id: `s-${asked}`,
      context: "search",
      term,
      placements: [
        { name: "grid", types: ["product"], quantity: 4 },
        { name: "banner", types: ["banner"], quantity: 2 },
      ],
    });
    const started = performance.now();
    const response = await handleAdQuery(
      new Request("http://bench.test/v1/ads", { method: "POST", headers: { "Content-Type": "application/json", Origin: "http://bench.test" }, body }),
    );
    const answer = (await response.json()) as { ads: Record<string, unknown[]> };
    const ms = performance.now() - started;
    if (response.status !== 200) throw new Error(`the ad query answered ${response.status}`);
    served.set(`${publisherId === none ? "none" : "many"} ${term}`, (answer.ads.grid?.length ?? 0) + (answer.ads.banner?.length ?? 0));
    return ms;
  };
  /** p99 of each publisher over `turns` turns of `termOf(turn)`, after the warm-up; the first of a turn alternates. */
  const p99s = async (termOf: (turn: number) => string, turns: number): Promise<[number, number]> => {
    const times: [number[], number[]] = [[], []];
    for (let turn = 0; turn < WARM_UP_TURNS + turns; turn += 1) {
      const term = termOf(turn);
      for (const i of turn % 2 === 0 ? [0, 1] : [1, 0]) {
        const ms = await ask(i === 0 ? none : many, term);
        if (turn >= WARM_UP_TURNS) times[i]!.push(ms);
      }
    }
    return times.map((t) =>
      round(
        percentile(
          t.sort((x, y) => x - y),
          99,
        ),
        2,
      ),
    ) as [number, number];
  };
  /** Throws unless both publishers served as many ads for every term: else the comparison is not fair. */
  const assertSameAnswers = (terms: string[]) => {
    for (const term of terms) {
      const [without, withTerms] = [served.get(`none ${term}`), served.get(`many ${term}`)];
      if (without !== withTerms) throw new Error(`"${term}" served ${without} ads without negative terms, ${withTerms} with`);
    }
  };
  return { p99s, assertSameAnswers };
}

async function main(): Promise<void> {
  const { postgres, url } = await startDatabase("negative-terms");
  process.env.DATABASE_URL = url;
  let failed = false;
  try {
    const { pgPool } = await import("@/server/db/pg-pool");
    const none = await makeShop(false);
    const many = await makeShop(true);
    await pgPool().query("ANALYZE");
    const { rows } = await pgPool().query<{ count: number }>("SELECT count(*)::int AS count FROM campaign_negative_terms");
    log(`${CAMPAIGNS} campaigns a publisher; ${rows[0]!.count.toLocaleString("en")} negative terms, all on the second publisher's campaigns`);
    const { p99s, assertSameAnswers } = await inTurns(none, many);
    const ratios: number[] = [];
    for (let r = 1; r <= ROUNDS; r += 1) {
      const [p99None, p99Many] = await p99s((turn) => TERMS[turn % TERMS.length]!, TURNS);
      ratios.push(p99Many / p99None);
      log(
        `round ${r}: p99 ${p99None} ms without negative terms, ${p99Many} ms with 1,000 a campaign: ${(p99Many / p99None).toFixed(2)} × (${TURNS} requests each)`,
      );
    }
    const [longNone, longMany] = await p99s(() => LONGEST_TERM, Math.round(TURNS / 3));
    assertSameAnswers([...TERMS, LONGEST_TERM]);
    log(
      `the longest term (40 words, 356 keys looked up): p99 ${longNone} ms without negative terms, ${longMany} ms with: ${(longMany / longNone).toFixed(2)} ×`,
    );
    const median = [...ratios].sort((x, y) => x - y)[Math.floor(ratios.length / 2)]!;
    log(`median round: p99 with 1,000 negative terms a campaign = ${median.toFixed(2)} × without (target ≤ ${TARGET.toFixed(2)})`);
    if (median > TARGET) failed = true;
  } finally {
    await stopDatabase(postgres);
  }
  if (failed) log("MISSED: a target above");
  process.exit(failed ? 1 : 0);
}

await main();
