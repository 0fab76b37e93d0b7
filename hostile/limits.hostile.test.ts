// The /v1 rate limits across processes, and client addresses nobody can forge, as a hostile client
// meets them over HTTP. This file starts servers of its own against the stack's database: two
// collectors and one Tally Next.js server with low limits (behind one pretend proxy, as the
// stack's), one Tally Next.js server with no proxy in front (TALLY_TRUSTED_PROXY_HOPS=0), and one
// plain `next start` with no proxy. The stack's Next.js server settles what they accept.
import type { ChildProcess } from "node:child_process";
import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { freePort } from "@/cli/local/embedded-postgres";
import { nextServerArgs } from "@/cli/next-server";
import { advanceOf } from "@/server/db/shared-limiter";
import { makeAdvertiser, makeCampaignWithAd, makePublisher } from "@/testing/fixtures";
import { type Answer, closeSql, floodAddress, freshAddress, type Host, post, serve, settled, sql, stack, startExtraServer, stopServers } from "./client";
import { legitimateTrafficGoesThrough } from "./legitimate-traffic";

const WINDOW_MS = 10_000;
/** The limits of this file's servers, a 10 s window's worth: per address, per publisher. */
const PER_ADDRESS = 200;
const PER_PUBLISHER = 300;
const LIGHT = 5;
const LIMITED_ENV = {
  TALLY_V1_RATE_PER_ADDRESS: String(PER_ADDRESS / 10),
  TALLY_V1_RATE_PER_PUBLISHER: String(PER_PUBLISHER / 10),
  TALLY_V1_RATE_PER_PUBLISHER_ADDRESS: "1000",
  TALLY_V1_LIGHT_ADDRESS_REQUESTS: String(LIGHT),
  // The flood replays one beacon address: its own hourly allowance per process (20 by default)
  // would refuse it first, and this file measures the address limit.
  TALLY_BEACONS_PER_TOKEN_PER_HOUR: "100000",
  TALLY_BEACONS_PER_SESSION_PER_HOUR: "100000",
};
// The stack's Next.js server settles for every server here.
const NO_JOBS = { TALLY_SETTLE_INTERVAL_SECONDS: "0", TALLY_ATTRIBUTION_INTERVAL_SECONDS: "0", TALLY_EXPORT_INTERVAL_SECONDS: "0" };

const servers: ChildProcess[] = [];
let limited: Host[] = [];
let direct: Host;
let plain: Host;
let fixture: { advertiserId: string; floodPublisher: string; victimPublisher: string; clickPublisher: string };

async function start(name: Host["name"], kind: "collector" | "tally-next" | "plain-next", env: Record<string, string>): Promise<Host> {
  const port = await freePort();
  const args =
    kind === "collector"
      ? ["--import", "tsx", "src/collector/server.ts", String(port)]
      : kind === "tally-next"
        ? nextServerArgs("start", "--port", String(port), "--hostname", "127.0.0.1")
        : ["node_modules/next/dist/bin/next", "start", "--port", String(port), "--hostname", "127.0.0.1"];
  const child = await startExtraServer(name, args, { ...NO_JOBS, ...env }, kind === "collector" ? "/v1/ads" : "/api/health", port);
  servers.push(child);
  return { name, url: `http://127.0.0.1:${port}`, pid: child.pid! };
}

beforeAll(async () => {
  const advertiser = await makeAdvertiser({ wallet: 1000 });
  const [floodPublisher, victimPublisher, clickPublisher] = [await makePublisher(), await makePublisher(), await makePublisher()];
  await makeCampaignWithAd({
    advertiserId: advertiser.id,
    publisherIds: [floodPublisher.id, victimPublisher.id, clickPublisher.id],
    bidModel: "cpc",
    bid: 0.5,
  });
  fixture = { advertiserId: advertiser.id, floodPublisher: floodPublisher.id, victimPublisher: victimPublisher.id, clickPublisher: clickPublisher.id };
  const started = await Promise.all([
    start("collector", "collector", LIMITED_ENV),
    start("collector", "collector", LIMITED_ENV),
    start("next start", "tally-next", LIMITED_ENV),
    start("next start", "tally-next", { TALLY_TRUSTED_PROXY_HOPS: "0" }),
    start("next start", "plain-next", { TALLY_TRUSTED_PROXY_HOPS: "0" }),
  ]);
  limited = started.slice(0, 3);
  [direct, plain] = [started[3]!, started[4]!];
});

afterAll(async () => {
  await stopServers(servers);
  await closeSql();
});

/**
 * Runs `attempt` from the start of a window and returns what it gave, if it ended inside that
 * window; a machine slowed by other work gets another window (three at most).
 */
async function withinOneWindow<T>(attempt: () => Promise<T>): Promise<T> {
  for (let tries = 0; tries < 3; tries += 1) {
    await new Promise((resolve) => setTimeout(resolve, WINDOW_MS - (Date.now() % WINDOW_MS) + 50));
    const windowEnd = Math.floor(Date.now() / WINDOW_MS) * WINDOW_MS + WINDOW_MS;
    const result = await attempt();
    if (Date.now() < windowEnd) return result;
  }
  throw new Error("three attempts in a row did not fit in a window");
}

/** `count` requests, `wave` at a time, the nth to `targets[n % targets.length]`. */
async function inWaves(count: number, wave: number, send: (n: number) => Promise<Answer>): Promise<Answer[]> {
  const answers: Answer[] = [];
  for (let n = 0; n < count; n += wave) answers.push(...(await Promise.all(Array.from({ length: Math.min(wave, count - n) }, (_, i) => send(n + i)))));
  return answers;
}

function statusCounts(answers: Answer[]): Record<number, number> {
  const counts: Record<number, number> = {};
  for (const answer of answers) counts[answer.status] = (counts[answer.status] ?? 0) + 1;
  return counts;
}
const messageOf = (answer: Answer) => (answer.json() as { error: { message: string } }).error.message;

describe("limits shared by two collectors and an app server", () => {
  it("refuses a flood from one address spread over all three at the count one process would, and accepts and settles another address's beacon", async () => {
    const { session, answers } = await withinOneWindow(async () => {
      const address = floodAddress();
      const session = `flood-${randomUUID()}`;
      const token = (await serve(limited[0]!, fixture.floodPublisher, session)).impression_url.split("/").pop();
      const answers = await inWaves(600, 30, (n) => post(`${limited[n % 3]!.url}/v1/beacon/impression/${token}`, { session_id: session }, { address }));
      return { session, answers };
    });
    const counts = statusCounts(answers);
    console.log(`limits: a flood of 600 from one address over three processes: ${counts[202]} accepted, ${counts[429]} refused (limit ${PER_ADDRESS})`);
    expect(Object.keys(counts).sort()).toEqual(["202", "429"]);
    // One process alone accepts exactly the limit; three add at most one advance each (docs/decisions/0011-shared-limits-via-postgres-leases.md).
    expect(counts[202]).toBeGreaterThanOrEqual(PER_ADDRESS);
    expect(counts[202]).toBeLessThanOrEqual(PER_ADDRESS + 3 * advanceOf(PER_ADDRESS));
    const refused = answers.filter((a) => a.status === 429);
    expect(new Set(refused.map(messageOf))).toEqual(new Set(["too many requests from this address; retry later"]));
    expect(refused.every((a) => Number(a.headers.get("retry-after")) >= 1 && Number(a.headers.get("retry-after")) <= 10)).toBe(true);
    // Every process refused its part: the count is shared, not three counts of 200.
    const byServer = [0, 1, 2].map((s) => answers.filter((a, n) => n % 3 === s && a.status === 429).length);
    expect(byServer.every((n) => n > 0)).toBe(true);

    const legitimate = `legit-${randomUUID()}`;
    const legitimateAd = await serve(limited[1]!, fixture.floodPublisher, legitimate);
    expect((await post(legitimateAd.impression_url.replace(/^http:\/\/[^/]+/, limited[2]!.url), { session_id: legitimate })).status).toBe(202);
    await settled();
    expect(Number((await sql<{ n: string }>("SELECT count(*) AS n FROM beacon_log WHERE session_id = $1", [session]))[0]!.n)).toBe(counts[202]);
    expect(await sql("SELECT status::text FROM ad_events WHERE session_id = $1", [legitimate])).toEqual([{ status: "counted" }]);
  });

  it("keeps serving a publisher's shoppers after strangers naming that publisher have spent its limit", async () => {
    const query = (session: string) => ({
      publisher_id: fixture.victimPublisher,
      session_id: session,
      context: "search",
      term: "coffee",
      placements: [{ name: "slot", types: ["banner"] }],
    });
    const result = await withinOneWindow(async () => {
      // Three strangers, 150 anonymous ad queries each (inside their own limit): 450 for a publisher limited to 300.
      const strangers = [floodAddress(), floodAddress(), floodAddress()];
      const flood = await inWaves(450, 30, (n) => post(`${limited[n % 3]!.url}/v1/ads`, query(`stranger-${n}`), { address: strangers[n % 3] }));
      // Then the publisher's shoppers, each asking for ads, seeing one and clicking it, through every server.
      const shoppers = await Promise.all(
        Array.from({ length: 9 }, async (_, n) => {
          const address = freshAddress();
          const session = `shopper-${randomUUID()}`;
          const host = limited[n % 3]!;
          const asked = await post(`${host.url}/v1/ads`, query(session), { address });
          const ad = (asked.json() as { ads: Record<string, { impression_url: string; click_url: string }[]> }).ads?.slot?.[0];
          const seen = ad ? await post(ad.impression_url, { session_id: session }, { address }) : undefined;
          const clicked = ad ? await post(ad.click_url, { session_id: session }, { address }) : undefined;
          return { session, statuses: [asked.status, seen?.status, clicked?.status] };
        }),
      );
      const again = await post(`${limited[0]!.url}/v1/ads`, query("stranger-again"), { address: strangers[0] });
      return { flood, shoppers, again };
    });
    const counts = statusCounts(result.flood);
    console.log(
      `limits: 450 strangers' ad queries for one publisher over three processes: ${counts[200]} answered, ${counts[429]} refused (limit ${PER_PUBLISHER})`,
    );
    expect(Object.keys(counts).sort()).toEqual(["200", "429"]);
    expect(counts[429]).toBeGreaterThanOrEqual(450 - PER_PUBLISHER - 3 * advanceOf(PER_PUBLISHER));
    expect(new Set(result.flood.filter((a) => a.status === 429).map(messageOf))).toEqual(new Set(["too many requests from this publisher; retry later"]));
    expect(result.shoppers.map((s) => s.statuses)).toEqual(Array(9).fill([200, 202, 202]));
    expect(result.again.status).toBe(429);
    await settled();
    const stored = await sql<{ status: string; n: string }>("SELECT status::text, count(*)::text AS n FROM ad_events WHERE session_id = ANY($1) GROUP BY 1", [
      result.shoppers.map((s) => s.session),
    ]);
    expect(stored).toEqual([{ status: "counted", n: "18" }]);
  });
});

describe("client addresses a client cannot forge", () => {
  const walletOf = async () =>
    BigInt((await sql<{ w: string }>("SELECT wallet_balance_micros::text AS w FROM accounts WHERE id = $1", [fixture.advertiserId]))[0]!.w);

  /** 35 clicks, one after another, each on its own ad query, with a new X-Forwarded-For and peer header each time. */
  async function rotatingClicks(host: Host, label: string): Promise<string[]> {
    const sessions: string[] = [];
    for (let n = 0; n < 35; n += 1) {
      const session = `${label}-${n}-${randomUUID()}`;
      const forged = { address: `203.0.113.${n + 1}`, headers: { "X-Tally-Peer-Address": `198.51.100.${n + 1}` } };
      const asked = await post(
        `${host.url}/v1/ads`,
        { publisher_id: fixture.clickPublisher, session_id: session, context: "search", term: "coffee", placements: [{ name: "slot", types: ["banner"] }] },
        forged,
      );
      expect(asked.status).toBe(200);
      const ad = (asked.json() as { ads: Record<string, { click_url: string }[]> }).ads.slot![0]!;
      expect((await post(ad.click_url, { session_id: session }, forged)).status).toBe(202);
      sessions.push(session);
    }
    await settled();
    return sessions;
  }

  const clickStatuses = (sessions: string[]) =>
    sql<{ status: string; n: string; spend: string; hashes: string }>(
      `SELECT status::text, count(*)::text AS n, sum(spend_micros)::text AS spend, count(DISTINCT client_hash)::text AS hashes
         FROM ad_events WHERE session_id = ANY($1) AND kind = 'click' GROUP BY 1 ORDER BY 1`,
      [sessions],
    );

  it("counts 35 clicks from one connection with a rotating X-Forwarded-For as one address at a Tally Next.js server with no proxy: past 30 a minute, click_velocity, unbilled", async () => {
    const before = await walletOf();
    const sessions = await rotatingClicks(direct, "direct");
    expect(await clickStatuses(sessions)).toEqual([
      { status: "click_velocity", n: "5", spend: "0", hashes: "1" },
      { status: "counted", n: "30", spend: "15000000", hashes: "1" },
    ]);
    expect(before - (await walletOf())).toBe(15_000_000n);
  });

  it("still tells the clients apart by the proxy's entry at the stack's servers, which trust one hop", async () => {
    const sessions = await rotatingClicks({ name: "next start", url: stack.nextUrl, pid: stack.nextPid }, "proxied");
    expect(await clickStatuses(sessions)).toEqual([{ status: "counted", n: "35", spend: "17500000", hashes: "35" }]);
  });

  it("believes no peer header a client forges at a plain next start with no proxy: it knows no address at all", async () => {
    const sessions: string[] = [];
    for (let n = 0; n < 3; n += 1) {
      const session = `plain-${n}-${randomUUID()}`;
      const forged = { address: "203.0.113.77", headers: { "X-Tally-Peer-Address": "198.51.100.77" } };
      const ad = await serve(plain, fixture.clickPublisher, session);
      expect((await post(ad.click_url.replace(/^http:\/\/[^/]+/, plain.url), { session_id: session }, forged)).status).toBe(202);
      sessions.push(session);
    }
    await settled();
    expect(await sql("SELECT client_hash FROM ad_events WHERE session_id = ANY($1) AND kind = 'click'", [sessions])).toEqual(
      Array(3).fill({ client_hash: null }),
    );
  });
});

describe("after its floods of one address, of strangers naming a publisher, and of forged addresses", () => {
  it("a shopper's click and order are settled and attributed within 30 s, and health and the cron routes answer 200", async () => {
    await legitimateTrafficGoesThrough();
  });
});
