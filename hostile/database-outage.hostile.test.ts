// The fault test: Postgres is stopped in the middle of a load of beacons and conversions at both
// hosts, and started again. Every 202 has its row, every other request got 503 (never a 500, never
// a hang), and the jobs of the long-running server (attribution, export) recover on their own.
// This file has its own database, servers and bucket: it stops its database on purpose.
import { type ChildProcess, spawn } from "node:child_process";
import { randomUUID } from "node:crypto";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { ensureDatabase, freePort, type LocalPostgres, startLocalPostgres, temporaryDataDir } from "@/cli/local/embedded-postgres";
import { type LocalS3, startLocalS3 } from "@/cli/local/local-s3";
import { migrateDeploy } from "@/cli/local/prisma-cli";
import { nextServerArgs } from "@/cli/next-server";
import { OPERATOR } from "@/server/accounts/actor";
import { HOSTILE_ENV } from "./global-stack";
import { WAITING_SQL } from "./waiting";

const stackEnv = inject("hostile").serverEnv;
const dataDir = temporaryDataDir("hostile-outage");
const s3Directory = temporaryDataDir("hostile-outage-s3");
let port = 0;
let postgres: LocalPostgres;
let s3: LocalS3;
let databaseUrl = "";
const servers: ChildProcess[] = [];
/** What the servers wrote to stderr, and their logged warnings and errors, printed when the test fails. */
const serverErrors: string[] = [];
let nextUrl = "";
let collectorUrl = "";
let pool: pg.Pool;
const sql = async <Row extends object>(text: string, values: unknown[] = []) => (await pool.query<Row>(text, values)).rows;

/**
 * The test's own pool. pool.end() resolves before its clients' sockets close, so stopping Postgres
 * right after can still terminate one (57P01): the pool then emits "error", which with no
 * listener would end the test run as an uncaught exception.
 */
function testPool(connectionString: string): pg.Pool {
  const created = new pg.Pool({ connectionString, max: 2 });
  created.on("error", () => {});
  return created;
}

async function startServer(args: string[], env: Record<string, string>, readyUrl: string): Promise<ChildProcess> {
  const child = spawn(process.execPath, args, { env: { ...process.env, ...env }, stdio: ["ignore", "pipe", "pipe"] });
  child.stderr?.on("data", (chunk: Buffer) => serverErrors.push(`${args.at(-1)}: ${chunk.toString().trim()}`));
  // The servers' structured logs: warnings and errors (pino levels 40 and up) join what is shown.
  child.stdout?.on("data", (chunk: Buffer) => {
    for (const line of chunk.toString().split("\n")) if (/"level":[4-6]\d/.test(line)) serverErrors.push(`${args.at(-1)}: ${line}`);
  });
  servers.push(child);
  const deadline = Date.now() + 90_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`${args.join(" ")} exited with ${child.exitCode}`);
    try {
      await fetch(readyUrl);
      return child;
    } catch {
      if (Date.now() > deadline) throw new Error(`${args.join(" ")} did not start`);
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
  }
}

let fixture: { publisherId: string; site: string; adId: string; campaignId: string; advertiserId: string; sku: string };

beforeAll(async () => {
  port = await freePort();
  // Persistent (not deleted on stop) so that it can be started again on the same data.
  postgres = await startLocalPostgres({ dataDir, port, ephemeral: false, unsafeFastWrites: true });
  await ensureDatabase(postgres.adminUrl, "tally");
  databaseUrl = postgres.urlFor("tally");
  await migrateDeploy(databaseUrl);
  process.env.DATABASE_URL = databaseUrl;
  for (const [name, value] of Object.entries(stackEnv)) if (name !== "DATABASE_URL") process.env[name] = value;
  const { makeAdvertiser, makeCampaignWithAd, makePublisher } = await import("@/testing/fixtures");
  const publisher = await makePublisher();
  const advertiser = await makeAdvertiser({ wallet: 100_000 });
  const sku = `OUTAGE-${randomUUID()}`;
  const { ad, campaign } = await makeCampaignWithAd({
    advertiserId: advertiser.id,
    publisherIds: [publisher.id],
    bidModel: "cpc",
    bid: 0.01,
    products: [{ sku, name: "Outage" }],
  });
  fixture = { publisherId: publisher.id, site: publisher.sites[0]!.name, adId: ad.id, campaignId: campaign.id, advertiserId: advertiser.id, sku };
  s3 = await startLocalS3({ directory: s3Directory, buckets: ["outage"] });
  pool = testPool(databaseUrl);
  const { disconnectDb } = await import("@/server/db/client");
  await disconnectDb();

  const env = {
    ...stackEnv,
    DATABASE_URL: databaseUrl,
    // The load comes from one address for one publisher.
    TALLY_V1_RATE_PER_ADDRESS: "0",
    TALLY_V1_RATE_PER_PUBLISHER_ADDRESS: "0",
    TALLY_EXPORT_INTERVAL_SECONDS: "2",
    TALLY_ATTRIBUTION_INTERVAL_SECONDS: "1",
    TALLY_EXPORT_ALLOW_PRIVATE_ENDPOINTS: "1",
  };
  const nextPort = await freePort();
  await startServer(nextServerArgs("start", "--port", String(nextPort), "--hostname", "127.0.0.1"), env, `http://127.0.0.1:${nextPort}/api/health`);
  nextUrl = `http://127.0.0.1:${nextPort}`;
  const collectorPort = await freePort();
  await startServer(["--import", "tsx", "src/collector/server.ts", String(collectorPort)], env, `http://127.0.0.1:${collectorPort}/v1/ads`);
  collectorUrl = `http://127.0.0.1:${collectorPort}`;
});

afterAll(async () => {
  for (const child of servers) child.kill("SIGKILL");
  await pool?.end().catch(() => {});
  await s3?.stop().catch(() => {});
  await postgres?.stop().catch(() => {});
  const { rm } = await import("node:fs/promises");
  await rm(dataDir, { recursive: true, force: true });
  await rm(s3Directory, { recursive: true, force: true });
});

interface Sent {
  kind: "beacon" | "order";
  id: string;
  host: string;
  status: number;
}

describe("Postgres stopped in the middle of a load and started again", () => {
  it("answers 202 only for what it stored, 503 for the rest, and its jobs recover alone", async () => {
    const { sessionHashOf, signBeaconToken } = await import("@/server/pipeline/accept/beacons/beacon-token");
    const key = { id: "hostile", secret: HOSTILE_ENV.BEACON_SIGNING_KEYS.split(":").slice(1).join(":") };
    const beacon = (session: string) => {
      const token = signBeaconToken(
        {
          kind: "click",
          requestId: randomUUID(),
          adId: fixture.adId,
          campaignId: fixture.campaignId,
          advertiserId: fixture.advertiserId,
          publisherId: fixture.publisherId,
          site: fixture.site,
          placementName: "slot",
          context: "search",
          adType: "banner",
          adSize: "300x250",
          searchTerm: null,
          category: null,
          issuedAt: Math.floor(Date.now() / 1000),
          sessionHash: sessionHashOf(session),
        },
        key,
      );
      return `/v1/beacon/click/${token}`;
    };
    const orderOf = (session: string, orderId: string) => ({
      publisher_id: fixture.publisherId,
      user_id: `u-${session}`,
      session_id: session,
      order_id: orderId,
      created_at: new Date().toISOString(),
      channel: "web",
      email_hashed: "e".repeat(64),
      items: [{ sku: fixture.sku, quantity: 1, price: 3, promotional_price: 2 }],
    });
    const headers = { "Content-Type": "application/json", "User-Agent": "Mozilla/5.0 (X11; Linux x86_64) Chrome/140.0" };

    const sent: Sent[] = [];
    let stop = false;
    let n = 0;
    const client = async (host: string) => {
      while (!stop) {
        n += 1;
        const session = `outage-${n}-${randomUUID()}`;
        const asOrder = n % 4 === 0;
        const id = asOrder ? `order-${randomUUID()}` : session;
        const response = await fetch(`${host}${asOrder ? "/v1/beacon/conversion" : beacon(session)}`, {
          method: "POST",
          headers,
          body: JSON.stringify(asOrder ? orderOf(session, id) : { session_id: session }),
          signal: AbortSignal.timeout(20_000),
        }).catch((error: unknown) => ({ status: -1, error }));
        sent.push({ kind: asOrder ? "order" : "beacon", id, host, status: response.status });
      }
    };
    const load = [...Array(6)].flatMap(() => [client(nextUrl), client(collectorUrl)]);
    await new Promise((resolve) => setTimeout(resolve, 3_000));
    await pool.end();
    await postgres.stop();
    const stoppedAt = Date.now();
    await new Promise((resolve) => setTimeout(resolve, 4_000));
    postgres = await startLocalPostgres({ dataDir, port, ephemeral: false, unsafeFastWrites: true });
    const restartedAt = new Date();
    pool = testPool(databaseUrl);
    await new Promise((resolve) => setTimeout(resolve, 4_000));
    stop = true;
    await Promise.all(load);

    const by = (status: number) => sent.filter((s) => s.status === status);
    const unexpected = sent.filter((s) => s.status !== 202 && s.status !== 503);
    if (unexpected.length > 0)
      console.error(
        `servers wrote:\n${[...new Set(serverErrors.flatMap((e) => e.split("\n")).map((l) => l.replace(/[0-9]+/g, "N")))].join("\n").slice(0, 6000)}`,
      );
    expect(unexpected.map((s) => `${s.kind} at ${s.host === nextUrl ? "next start" : "collector"}: ${s.status}`).slice(0, 20)).toEqual([]);
    expect(by(202).length).toBeGreaterThan(50);
    expect(by(503).length).toBeGreaterThan(0);
    console.log(
      `outage: ${sent.length} requests, ${by(202).length} answered 202, ${by(503).length} answered 503; the database was down ${((restartedAt.getTime() - stoppedAt) / 1000).toFixed(1)} s`,
    );

    const acceptedBeacons = by(202)
      .filter((s) => s.kind === "beacon")
      .map((s) => s.id);
    const acceptedOrders = by(202)
      .filter((s) => s.kind === "order")
      .map((s) => s.id);
    const storedBeacons = await sql<{ session_id: string }>("SELECT session_id FROM beacon_log WHERE session_id = ANY($1)", [acceptedBeacons]);
    const storedOrders = await sql<{ order_id: string }>(
      "SELECT conversion->>'order_id' AS order_id FROM conversion_log WHERE conversion->>'order_id' = ANY($1)",
      [acceptedOrders],
    );
    expect(acceptedBeacons.length - storedBeacons.length).toBe(0);
    expect(acceptedOrders.length - storedOrders.length).toBe(0);
    // And each accepted beacon is settled once: nothing lost or counted twice across the outage.
    await eventually("every accepted beacon and order is settled", async () => (await sql(WAITING_SQL)).length === 0);
    const settledOrders = await sql<{ n: string }>("SELECT count(DISTINCT order_id)::text AS n FROM conversions WHERE order_id = ANY($1)", [acceptedOrders]);
    expect(Number(settledOrders[0]!.n)).toBe(new Set(acceptedOrders).size);
    const settledBeacons = await sql<{ n: string }>("SELECT count(DISTINCT event_id)::text AS n FROM ad_events WHERE session_id = ANY($1)", [acceptedBeacons]);
    expect(Number(settledBeacons[0]!.n)).toBe(acceptedBeacons.length);
    // Answered 202 after the restart, too: the pools came back on their own.
    expect(sent.slice(-20).filter((s) => s.status === 202).length).toBeGreaterThan(0);

    // The long-running server's jobs, which failed while the database was away, work again without
    // anyone restarting anything: every order stored (some accepted after the restart) is
    // attributed, and a destination added after the restart gets its due batches.
    await eventually("attribution catches up", async () => (await sql("SELECT 1 FROM conversions WHERE attributed_at IS NULL")).length === 0);
    const { createDestination } = await import("@/server/pipeline/export/destinations/destinations");
    const destination = await createDestination(
      {
        accountId: fixture.publisherId,
        name: "outage bucket",
        bucket: "outage",
        region: "us-east-1",
        endpoint: s3.endpoint,
        forcePathStyle: true,
        credentials: { kind: "access_key", accessKeyId: "S3RVER", secretAccessKey: "S3RVER" },
        types: ["ad_events", "orders"],
      },
      { actor: OPERATOR },
    );
    // Created two days ago: its first day of events is due at once.
    await sql("UPDATE export_destinations SET created_at = now() - interval '2 days' WHERE id = $1", [destination.id]);
    await eventually(
      "the export job delivers to a destination added after the restart",
      async () =>
        (await sql("SELECT 1 FROM export_runs WHERE destination_id = $1 AND status = 'succeeded' AND finished_at > $2", [destination.id, restartedAt])).length >
        0,
    );
  });
});

async function eventually(what: string, check: () => Promise<boolean>, timeoutMs = 60_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      if (await check()) return;
    } catch {
      // the database may still be starting
    }
    if (Date.now() > deadline) throw new Error(`${what}: not within ${timeoutMs / 1000} s`);
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
}
