// Shared by bench:settle and bench:growth: the ads a backlog spreads over, a backlog of fresh
// events appended to the log as the beacon route does, and settling it with worker processes.
import { type ChildProcess, spawn } from "node:child_process";
import { randomUUID } from "node:crypto";
import type pg from "pg";
import { log } from "../lib/stack";

export interface DemoAd {
  ad_id: string;
  campaign_id: string;
  advertiser_id: string;
  publisher_id: string;
  site: string;
  ad_type: "product" | "banner" | "video";
  ad_size: string | null;
}

/**
 * Appends `events` fresh events over `ads` to the log, one session in four repeating an impression;
 * `sessionOf` puts every event in a session of the caller's choosing instead.
 */
export async function appendBacklog(url: string, ads: DemoAd[], events: number, label: string, sessionOf?: (n: number) => string): Promise<number> {
  process.env.DATABASE_URL = url;
  const { appendBeaconBatch } = await import("@/server/pipeline/accept/beacons/append-beacons.sql");
  const { shardOf } = await import("@/server/core/shards");
  const started = Date.now();
  for (let done = 0; done < events; ) {
    const batch = [];
    for (let i = 0; i < 1000 && done < events; i++, done++) {
      const ad = ads[done % ads.length]!;
      const repeat = done % 4 === 1;
      const sessionId = sessionOf ? sessionOf(done) : repeat ? `${label}-${done - 1}` : `${label}-${done}`;
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
          searchTerm: null,
          category: null,
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
  const seconds = (Date.now() - started) / 1000;
  log(`${label}: ${events.toLocaleString("en")} events appended to the log in ${seconds.toFixed(1)} s`);
  return Math.round(events / seconds);
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
export async function settleWith(client: pg.Client, url: string, count: number, target: number): Promise<number> {
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

/**
 * Makes `count` advertisers with one campaign and ad each on the demo publisher, lifts every
 * wallet and budget so each billable event is charged, and returns every (ad, site) pair.
 */
export async function prepareAds(client: pg.Client, count: number): Promise<DemoAd[]> {
  const { makeAdvertiser, makeCampaignWithAd } = await import("@/testing/fixtures");
  for (let n = 0; n < count; n++) {
    const advertiser = await makeAdvertiser();
    await makeCampaignWithAd({ advertiserId: advertiser.id, publisherIds: ["pub_demo_market"], bidModel: n % 2 === 0 ? "cpm" : "cpc", bid: 1 });
  }
  await client.query("UPDATE accounts SET wallet_balance_micros = 1000000000000000, daily_budget_micros = NULL");
  await client.query("UPDATE campaigns SET daily_budget_micros = NULL");
  const { rows } = await client.query<DemoAd>(
    `SELECT a.id AS ad_id, c.id AS campaign_id, c.advertiser_id, cp.publisher_id, s.name AS site, a.type::text AS ad_type, a.size AS ad_size
       FROM ads a JOIN campaigns c ON c.id = a.campaign_id JOIN campaign_publishers cp ON cp.campaign_id = c.id
       JOIN sites s ON s.publisher_id = cp.publisher_id`,
  );
  log(`${rows.length} (ad, publisher site) pairs, ${count} advertisers besides the demo's`);
  return rows;
}
