// `npm run bench:settle`: how fast accepted beacons are settled (decided, billed, written to
// ad_events and the rollups), by one worker process and by two at once, against the storage
// ceiling: a plain COPY of the same rows into a table without indexes, in the same run on the
// same database. Each run settles its own backlog of fresh events appended to the log beforehand
// (80% impressions, 10% views, 10% clicks; one session in four repeats an impression, a
// duplicate), spread over the ads of 64 advertisers: spend is applied under each advertiser's row
// lock, so traffic of a handful of advertisers would measure that one lock, not the workers.
// Options: -- --events N (per run, default 200,000), --advertisers N (default 64).
// Exits non-zero when anything accepted is not settled, or is settled twice.
import { type ChildProcess, spawn } from "node:child_process";
import { randomUUID } from "node:crypto";
import { tmpdir } from "node:os";
import path from "node:path";
import { parseArgs } from "node:util";
import pg from "pg";
import { log, startDatabase } from "../lib/stack";

const { values } = parseArgs({ options: { events: { type: "string", default: "200000" }, advertisers: { type: "string", default: "64" } } });
const EVENTS = Number(values.events);
const ADVERTISERS = Number(values.advertisers);

interface DemoAd {
  ad_id: string;
  campaign_id: string;
  advertiser_id: string;
  publisher_id: string;
  site: string;
  ad_type: "product" | "banner" | "video";
  ad_size: string | null;
}

async function appendBacklog(url: string, ads: DemoAd[], events: number, label: string): Promise<void> {
  process.env.DATABASE_URL = url;
  const { appendBeaconBatch } = await import("@/server/ingest/append-beacons.sql");
  const { shardOf } = await import("@/server/settle/shards");
  const started = Date.now();
  for (let done = 0; done < events; ) {
    const batch = [];
    for (let i = 0; i < 1000 && done < events; i++, done++) {
      const ad = ads[done % ads.length]!;
      const repeat = done % 4 === 1;
      const sessionId = repeat ? `${label}-${done - 1}` : `${label}-${done}`;
      const roll = done % 10;
      const kind = repeat || roll < 8 ? "impression" : roll === 8 ? "view" : "click";
      batch.push({
        eventId: randomUUID(),
        shard: shardOf(ad.ad_id, sessionId),
        claims: {
          kind: kind as "impression" | "view" | "click",
          requestId: randomUUID(),
          adId: ad.ad_id,
          campaignId: ad.campaign_id,
          advertiserId: ad.advertiser_id,
          publisherId: ad.publisher_id,
          site: ad.site,
          placementName: "bench",
          context: "home",
          adType: ad.ad_type,
          adSize: ad.ad_size,
          issuedAt: Math.floor(Date.now() / 1000),
          sessionHash: "",
        },
        sessionId,
        userId: null,
        userAgent: "Mozilla/5.0 (X11; Linux x86_64) Chrome/140.0 Safari/537.36",
        isBot: false,
        sessionMatches: true,
        clientHash: null,
        pinnedAt: null,
      });
    }
    await appendBeaconBatch(batch);
  }
  log(`${label}: ${events.toLocaleString("en")} events appended to the log in ${((Date.now() - started) / 1000).toFixed(1)} s`);
}

function startWorker(url: string): ChildProcess {
  return spawn(process.execPath, ["--import", "tsx", "src/cli/worker.ts"], {
    env: {
      ...process.env,
      DATABASE_URL: url,
      TALLY_SETTLE_INTERVAL_SECONDS: "0.05",
      TALLY_ATTRIBUTION_INTERVAL_SECONDS: "3600",
      TALLY_EXPORT_INTERVAL_SECONDS: "86400",
      TALLY_LOG_LEVEL: "warn",
    },
    stdio: ["ignore", "ignore", "inherit"],
  });
}

/** Settles the waiting backlog with `count` workers; events per second from the first settled stretch to the last. */
async function settleWith(client: pg.Client, url: string, count: number, target: number): Promise<number> {
  const settled = async () => Number((await client.query("SELECT sum(settled_events)::bigint AS n FROM settle_cursors")).rows[0].n);
  const before = await settled();
  const workers = Array.from({ length: count }, () => startWorker(url));
  try {
    let first: { at: number; n: number } | null = null;
    for (;;) {
      const n = await settled();
      if (first === null && n > before) first = { at: Date.now(), n };
      if (n - before >= target) {
        const seconds = (Date.now() - first!.at) / 1000;
        return Math.round((n - first!.n) / seconds);
      }
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  } finally {
    for (const worker of workers) worker.kill("SIGKILL");
  }
}

async function main(): Promise<void> {
  const { postgres, url } = await startDatabase("settle");
  const { seedDemoData } = await import("../../prisma/seed");
  process.env.DATABASE_URL = url;
  await seedDemoData(() => {});
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  let failed = false;
  try {
    const { makeAdvertiser, makeCampaignWithAd } = await import("@/testing/fixtures");
    for (let n = 0; n < ADVERTISERS; n++) {
      const advertiser = await makeAdvertiser();
      await makeCampaignWithAd({ advertiserId: advertiser.id, publisherIds: ["pub_demo_market"], bidModel: n % 2 === 0 ? "cpm" : "cpc", bid: 1 });
    }
    const { rows: ads } = await client.query<DemoAd>(
      `SELECT a.id AS ad_id, c.id AS campaign_id, c.advertiser_id, cp.publisher_id, s.name AS site, a.type::text AS ad_type, a.size AS ad_size
         FROM ads a JOIN campaigns c ON c.id = a.campaign_id JOIN campaign_publishers cp ON cp.campaign_id = c.id
         JOIN sites s ON s.publisher_id = cp.publisher_id`,
    );
    log(`${ads.length} (ad, publisher site) pairs, ${ADVERTISERS} advertisers besides the demo's`);
    // Wallets large enough that every billable event is charged in every run.
    await client.query("UPDATE accounts SET wallet_balance_micros = 1000000000000000, daily_budget_micros = NULL");
    await client.query("UPDATE campaigns SET daily_budget_micros = NULL");

    await appendBacklog(url, ads, EVENTS, "one");
    const one = await settleWith(client, url, 1, EVENTS);
    log(`one worker: ${one.toLocaleString("en")} events settled/s`);
    await appendBacklog(url, ads, EVENTS, "two");
    const two = await settleWith(client, url, 2, EVENTS);
    log(`two workers: ${two.toLocaleString("en")} events settled/s (${(two / one).toFixed(2)} of one)`);

    // The storage ceiling: the rows settle wrote, copied back in by COPY, no indexes, no decisions.
    const file = path.join(tmpdir(), `tally-bench-settle-${process.pid}.copy`);
    await client.query(`COPY (SELECT * FROM ad_events WHERE session_id LIKE 'two-%') TO '${file}'`);
    await client.query("CREATE TABLE copy_ceiling (LIKE ad_events)");
    const started = Date.now();
    const copied = (await client.query(`COPY copy_ceiling FROM '${file}'`)).rowCount ?? 0;
    const ceiling = Math.round(copied / ((Date.now() - started) / 1000));
    log(
      `COPY into an unindexed table: ${ceiling.toLocaleString("en")} rows/s (one worker ${(one / ceiling).toFixed(2)}, two ${(two / ceiling).toFixed(2)} of it)`,
    );

    const { rows: checks } = await client.query<{ logged: string; settled: string; cursor_total: string }>(
      `SELECT (SELECT count(*) FROM beacon_log)::text AS logged,
              (SELECT count(*) FROM ad_events WHERE session_id LIKE 'one-%' OR session_id LIKE 'two-%')::text AS settled,
              (SELECT sum(settled_events) FROM settle_cursors)::text AS cursor_total`,
    );
    const check = checks[0]!;
    log(`log ${check.logged} rows, settled ${check.settled}, cursors ${check.cursor_total}`);
    if (check.logged !== check.settled || check.settled !== check.cursor_total) {
      log("MISSED: every logged event must be settled exactly once");
      failed = true;
    }
  } finally {
    await client.end();
    await postgres.stop();
  }
  process.exit(failed ? 1 : 0);
}

await main();
