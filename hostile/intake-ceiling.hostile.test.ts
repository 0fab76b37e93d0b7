// The daily ceilings on unproven intake, as a flood meets them over HTTP: large orders without proof
// and beacons, from two addresses, spread over a collector and a Tally Next.js server of this file
// that share one small ceiling through the stack's database. Past it every answer is 429 with
// Retry-After until 00:00 UTC, what was stored stays within the ceiling, the refusals are on
// /api/metrics, and proven orders and other publishers' beacons still go through.
import type { ChildProcess } from "node:child_process";
import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { freePort } from "@/cli/local/embedded-postgres";
import { nextServerArgs } from "@/cli/next-server";
import { OPERATOR } from "@/server/accounts/actor";
import { createApiKey } from "@/server/accounts/api-keys";
import { maxLeaseOf } from "@/server/db/shared-limiter";
import { makeAdvertiser, makeCampaignWithAd, makePublisher } from "@/testing/fixtures";
import { type Answer, closeSql, floodAddress, type Host, post, serve, sql, startExtraServer, stopServers } from "./client";
import { HOSTILE_ENV } from "./global-stack";
import { legitimateTrafficGoesThrough } from "./legitimate-traffic";

const ORDER_MIB = 2;
const BEACONS_A_DAY = 40;
const CEILING_ENV = {
  TALLY_UNPROVEN_ORDERS_PER_PUBLISHER_DAY: "100000",
  TALLY_UNPROVEN_ORDER_MB_PER_PUBLISHER_DAY: String(ORDER_MIB),
  TALLY_BEACONS_PER_PUBLISHER_DAY: String(BEACONS_A_DAY),
  TALLY_BEACON_MB_PER_PUBLISHER_DAY: "1",
  // The flood replays a few beacon addresses: their hourly allowances would refuse it first.
  TALLY_BEACONS_PER_TOKEN_PER_HOUR: "100000",
  TALLY_BEACONS_PER_SESSION_PER_HOUR: "100000",
  // The stack's Next.js server settles for these servers.
  TALLY_SETTLE_INTERVAL_SECONDS: "0",
  TALLY_ATTRIBUTION_INTERVAL_SECONDS: "0",
  TALLY_EXPORT_INTERVAL_SECONDS: "0",
};

const servers: ChildProcess[] = [];
let hosts: Host[] = [];
let fixture: { floodPublisher: string; otherPublisher: string; key: string };

async function start(name: Host["name"]): Promise<Host> {
  const port = await freePort();
  const args =
    name === "collector"
      ? ["--import", "tsx", "src/collector/server.ts", String(port)]
      : nextServerArgs("start", "--port", String(port), "--hostname", "127.0.0.1");
  const child = await startExtraServer(name, args, CEILING_ENV, name === "collector" ? "/v1/ads" : "/api/health", port);
  servers.push(child);
  return { name, url: `http://127.0.0.1:${port}`, pid: child.pid! };
}

beforeAll(async () => {
  const advertiser = await makeAdvertiser({ wallet: 1000 });
  const [floodPublisher, otherPublisher] = [await makePublisher(), await makePublisher()];
  await makeCampaignWithAd({ advertiserId: advertiser.id, publisherIds: [floodPublisher.id, otherPublisher.id], bidModel: "cpm", bid: 1 });
  const { key } = await createApiKey({ actor: OPERATOR, accountId: floodPublisher.id, name: "checkout server" });
  fixture = { floodPublisher: floodPublisher.id, otherPublisher: otherPublisher.id, key };
  hosts = await Promise.all([start("collector"), start("next start")]);
});

afterAll(async () => {
  await stopServers(servers);
  await closeSql();
});

/** An order of 300 lines, about 125 KB as stored: as large as the flood's that filled a day (about 110 KB). */
function largeOrder(publisherId: string) {
  return {
    publisher_id: publisherId,
    user_id: `flood-${randomUUID()}`,
    session_id: `flood-${randomUUID()}`,
    order_id: `flood-${randomUUID()}`,
    created_at: new Date().toISOString(),
    channel: "web",
    email_hashed: "f".repeat(64),
    items: Array.from({ length: 300 }, (_, i) => ({ sku: `${i}-`.padEnd(150, "s"), product_id: "p".repeat(150), quantity: 1, price: 1, promotional_price: 1 })),
  };
}

/** `count` requests, `parallel` at a time, each made by `send(i)`. */
async function flood(count: number, parallel: number, send: (i: number) => Promise<Answer>): Promise<{ host: number; answer: Answer }[]> {
  const answers: { host: number; answer: Answer }[] = [];
  let next = 0;
  await Promise.all(
    Array.from({ length: parallel }, async () => {
      for (let i = next++; i < count; i = next++) answers.push({ host: i % hosts.length, answer: await send(i) });
    }),
  );
  return answers;
}

/** A beacon address sent to `host` (the ad query names the stack's events host). */
const at = (host: Host, url: string) => url.replace(/^http:\/\/[^/]+/, host.url);
const secondsToMidnight = () => Math.ceil((Math.floor(Date.now() / 86_400_000 + 1) * 86_400_000 - Date.now()) / 1000);
const refusalsAt = async (host: Host, intake: string, limit: string) => {
  const text = await (await fetch(`${host.url}/api/metrics`, { headers: { Authorization: `Bearer ${HOSTILE_ENV.TALLY_METRICS_TOKEN}` } })).text();
  const series = `tally_intake_ceiling_refusals_total{intake="${intake}",limit="${limit}"} `;
  const line = text.split("\n").find((l) => l.startsWith(series));
  return line === undefined ? 0 : Number(line.slice(series.length));
};
const expectRefusedUntilMidnight = (answer: Answer, what: string) => {
  expect(answer.status).toBe(429);
  expect(Math.abs(Number(answer.headers.get("Retry-After")) - secondsToMidnight())).toBeLessThanOrEqual(5);
  expect(answer.text).toContain(`reached today's ceiling of ${what}`);
};

describe("a flood of unproven intake against one publisher", () => {
  it("stores large unproven orders up to the day's MiB across both servers, then answers 429 until 00:00 UTC and counts each refusal", async () => {
    const addresses = [floodAddress(), floodAddress()];
    const started = Date.now();
    const answers = await flood(80, 8, (i) =>
      post(`${hosts[i % 2]!.url}/v1/beacon/conversion`, largeOrder(fixture.floodPublisher), { address: addresses[i % 2] }),
    );
    const seconds = (Date.now() - started) / 1000;
    const accepted = answers.filter(({ answer }) => answer.status === 202).length;
    const refused = answers.filter(({ answer }) => answer.status === 429);
    expect(accepted + refused.length).toBe(80);
    for (const { answer } of refused) expectRefusedUntilMidnight(answer, "unproven orders");
    const [logged] = await sql<{ n: number; bytes: number }>(
      "SELECT count(*)::int AS n, coalesce(sum(bytes), 0)::int AS bytes FROM conversion_log WHERE conversion->>'publisher_id' = $1",
      [fixture.floodPublisher],
    );
    // Every 202 is stored, and together they stay within the ceiling, which takes about 16 such orders.
    expect(logged!.n).toBe(accepted);
    expect(logged!.bytes).toBeLessThanOrEqual(ORDER_MIB * 1024 * 1024);
    expect(accepted).toBeGreaterThanOrEqual(Math.floor((ORDER_MIB * 1024 * 1024) / (logged!.bytes / logged!.n)) - 2);
    // The Next.js server's /api/metrics counts the refusals it answered.
    const next = hosts.findIndex((host) => host.name === "next start");
    expect(await refusalsAt(hosts[next]!, "orders", "bytes")).toBe(refused.filter(({ host }) => host === next).length);
    console.log(
      `intake ceiling: 80 orders of ${Math.round(logged!.bytes / logged!.n)} B in ${seconds.toFixed(1)} s: ${accepted} stored (${logged!.bytes} B), ${refused.length} refused`,
    );

    // The publisher's own server, proving its orders with its key, is still heard at both servers.
    for (const host of hosts) {
      const proven = await post(`${host.url}/v1/beacon/conversion`, largeOrder(fixture.floodPublisher), {
        headers: { Authorization: `Bearer ${fixture.key}` },
      });
      expect(proven.status).toBe(202);
      expect(proven.json()).toMatchObject({ verified: true });
    }
  });

  it("stores the day's beacons of the flooded publisher and no more, and another publisher's beacons still go through", async () => {
    const ads = await Promise.all(hosts.map((host, i) => serve(host, fixture.floodPublisher, `beacon-flood-${i}`)));
    const addresses = [floodAddress(), floodAddress()];
    const answers = await flood(100, 8, (i) =>
      post(at(hosts[i % 2]!, ads[i % 2]!.impression_url), { session_id: `beacon-flood-${i % 2}` }, { address: addresses[i % 2] }),
    );
    const accepted = answers.filter(({ answer }) => answer.status === 202).length;
    const refused = answers.filter(({ answer }) => answer.status === 429);
    // A process may end holding part of its last lease, unused: at most a lease less one each.
    expect(accepted).toBeLessThanOrEqual(BEACONS_A_DAY);
    expect(accepted).toBeGreaterThanOrEqual(BEACONS_A_DAY - hosts.length * (maxLeaseOf(BEACONS_A_DAY) - 1));
    expect(refused).toHaveLength(100 - accepted);
    for (const { answer } of refused) expectRefusedUntilMidnight(answer, "beacons");
    const [logged] = await sql<{ n: number }>("SELECT count(*)::int AS n FROM beacon_log WHERE publisher_id = $1", [fixture.floodPublisher]);
    expect(logged!.n).toBe(accepted);
    const next = hosts.findIndex((host) => host.name === "next start");
    expect(await refusalsAt(hosts[next]!, "beacons", "count")).toBe(refused.filter(({ host }) => host === next).length);

    for (const host of hosts) {
      const session = `other-${randomUUID()}`;
      const ad = await serve(host, fixture.otherPublisher, session);
      expect((await post(at(host, ad.impression_url), { session_id: session })).status).toBe(202);
    }
    await legitimateTrafficGoesThrough();
  });
});
