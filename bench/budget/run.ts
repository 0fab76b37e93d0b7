// `npm run bench:budget`: how far past its daily budget a campaign is served, with accept-then-
// settle. The ad query reads settled spend, so once a budget is spent the campaign keeps being
// served until the settle loop has billed the click that spent it: the exposure is bounded by
// the traffic of one settle interval plus the time one settle pass takes. Billing itself stops at
// the budget (at most one click over: each click is charged in order under the advertiser's lock).
//
// One process: the /v1 handlers called in-process (the ad query, then a click beacon per served
// ad, each from its own session), at a steady rate, and the settle loop every interval, as a
// long-running server runs it. Prints, per run: the clicks billed against the budget, the clicks
// served past it (counted, unbilled), how long after the budget was spent the campaign was still
// served, and that time against the settle interval (the bound). Options: -- --rate N (clicks/s,
// default 200), --interval S (settle interval in seconds, default 1), --budget-clicks N (500),
// --runs N (5: each run a new campaign whose budget is spent at another moment of the interval).
// Exits non-zero when billing went more than one click past the budget, or the exposure passed
// one interval and one settle pass.
import { parseArgs } from "node:util";
import { BENCH_RATE_LIMITS, log, startSeededDatabase, stopDatabase } from "../lib/stack";

const { values } = parseArgs({
  options: {
    rate: { type: "string", default: "200" },
    interval: { type: "string", default: "1" },
    "budget-clicks": { type: "string", default: "500" },
    runs: { type: "string", default: "5" },
  },
});
const RATE = Number(values.rate);
const INTERVAL_S = Number(values.interval);
const BUDGET_CLICKS = Number(values["budget-clicks"]);
const RUNS = Number(values.runs);
const BID = 0.5;

Object.assign(process.env, BENCH_RATE_LIMITS, { TALLY_SETTLE_INTERVAL_SECONDS: String(INTERVAL_S) });

interface RunResult {
  overBilled: number;
  unbilled: number;
  exposureSeconds: number;
}

/** One campaign served at RATE until its budget stops it; what it was billed and served past the budget. */
async function oneRun(run: number, budgetClicks: number): Promise<RunResult> {
  const { makeAdvertiser, makeCampaignWithAd, makePublisher } = await import("@/testing/fixtures");
  const { askForAds, postBeacon } = await import("@/testing/events-client");
  const { settleAll } = await import("@/testing/settle");
  const { startSettleLoop } = await import("@/server/pipeline/settle/settle-loop");
  const { pgPool } = await import("@/server/db/pg-pool");
  const publisher = await makePublisher();
  const advertiser = await makeAdvertiser({ wallet: 1_000_000 });
  const { campaign } = await makeCampaignWithAd({
    advertiserId: advertiser.id,
    publisherIds: [publisher.id],
    bidModel: "cpc",
    bid: BID,
    dailyBudget: BID * budgetClicks,
  });

  const loop = startSettleLoop(INTERVAL_S * 1000, () => {});
  let sent = 0;
  let served = 0;
  let unservedSince = 0;
  const started = Date.now();
  const inFlight = new Set<Promise<void>>();
  // A click per served ad, each from a new session; one ad query every 1/RATE s, never more than
  // 64 at once (the rate is what the bound is stated for, so it must hold).
  const oneShopper = async (n: number) => {
    const session = `run-${run}-shopper-${n}`;
    const { body } = await askForAds({ publisher_id: publisher.id, session_id: session, context: "home", placements: [{ name: "slot", types: ["banner"] }] });
    const ad = body.ads.slot?.[0];
    if (!ad) {
      unservedSince ||= Date.now();
      return;
    }
    served++;
    unservedSince = 0;
    const response = await postBeacon(ad.click_url, { session_id: session }, { settle: false });
    if (response.status !== 202) throw new Error(`click answered ${response.status}`);
  };
  while (Date.now() - started < 120_000) {
    const due = Math.floor(((Date.now() - started) / 1000) * RATE);
    while (sent < due && inFlight.size < 64) {
      const request = oneShopper(sent++).finally(() => inFlight.delete(request));
      inFlight.add(request);
    }
    // Stop once the campaign has been left out for two intervals and a second.
    if (unservedSince !== 0 && Date.now() - unservedSince > 2 * INTERVAL_S * 1000 + 1000) break;
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
  await Promise.all(inFlight);
  loop.stop();
  await settleAll(60_000);
  const seconds = (Date.now() - started) / 1000;

  // Clicks in the order they were accepted: the budget pays for the first budgetClicks; every
  // click accepted after the last of those was served past the budget.
  const { rows } = await pgPool().query<{ billed: number; unbilled: number; spend: string; budget: string; paid_through: Date; last_click: Date }>(
    `SELECT count(*) FILTER (WHERE e.spend_micros > 0)::int AS billed,
            count(*) FILTER (WHERE e.spend_micros = 0)::int AS unbilled,
            (SELECT coalesce(sum(spend_micros), 0)::text FROM campaign_daily_spend WHERE campaign_id = $1) AS spend,
            (SELECT daily_budget_micros::text FROM campaigns WHERE id = $1) AS budget,
            (SELECT created_at FROM ad_events WHERE campaign_id = $1 AND kind = 'click' AND status = 'counted'
              ORDER BY created_at, event_id OFFSET $2 - 1 LIMIT 1) AS paid_through,
            max(e.created_at) AS last_click
       FROM ad_events e WHERE e.campaign_id = $1 AND e.kind = 'click' AND e.status = 'counted'`,
    [campaign.id, budgetClicks],
  );
  const r = rows[0]!;
  const result = {
    overBilled: (Number(r.spend) - Number(r.budget)) / (BID * 1e6),
    unbilled: r.unbilled,
    exposureSeconds: (r.last_click.getTime() - r.paid_through.getTime()) / 1000,
  };
  log(
    `run ${run}: ${sent.toLocaleString("en")} ad queries in ${seconds.toFixed(1)} s (${Math.round(sent / seconds)}/s), ${served} clicks; billed ${r.billed} (${(Number(r.spend) / 1e6).toFixed(2)} of ${(Number(r.budget) / 1e6).toFixed(2)}), ` +
      `${r.unbilled} served past the budget, the last accepted ${result.exposureSeconds.toFixed(2)} s after the budget's last paid click`,
  );
  return result;
}

async function main(): Promise<void> {
  const { postgres } = await startSeededDatabase("budget");
  let failed = false;
  try {
    log(`CPC ${BID}, budgets of about ${BUDGET_CLICKS} clicks; ${RATE} clicks/s; settle every ${INTERVAL_S} s; ${RUNS} runs`);
    const results: RunResult[] = [];
    // Budgets a few clicks apart, so each run's budget runs out at another point of the settle interval.
    for (let run = 1; run <= RUNS; run++) results.push(await oneRun(run, BUDGET_CLICKS + (run - 1) * Math.round((RATE * INTERVAL_S) / RUNS / 2)));
    const worst = (pick: (r: RunResult) => number) => Math.max(...results.map(pick));
    const mean = (pick: (r: RunResult) => number) => results.reduce((sum, r) => sum + pick(r), 0) / results.length;
    const bound = INTERVAL_S + 1;
    log(`billing past the budget: at most ${worst((r) => r.overBilled).toFixed(0)} clicks (target ≤ 1)`);
    log(
      `served past the budget: at most ${worst((r) => r.unbilled)} clicks (mean ${mean((r) => r.unbilled).toFixed(0)}), the last at most ${worst((r) => r.exposureSeconds).toFixed(2)} s after the budget was used up ` +
        `(mean ${mean((r) => r.exposureSeconds).toFixed(2)} s) = ${(worst((r) => r.exposureSeconds) / INTERVAL_S).toFixed(2)} settle intervals; bound one interval and one settle pass (${bound} s, ${RATE * bound} clicks at this rate)`,
    );
    if (worst((r) => r.overBilled) > 1 || worst((r) => r.exposureSeconds) > bound) failed = true;
  } finally {
    await stopDatabase(postgres);
  }
  if (failed) log("MISSED: a target above");
  process.exit(failed ? 1 : 0);
}

await main();
