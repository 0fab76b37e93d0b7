// The collector over a real socket: same answers as the Next.js routes, no Next.js in the path.
import http from "node:http";
import net, { type AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { db } from "@/server/db/client";
import { clientAddressHash } from "@/server/http/client-address";
import { makeAdvertiser, makeCampaignWithAd, makePublisher } from "@/testing/fixtures";
import { settleAll } from "@/testing/settle";
import { createCollectorServer } from "./server";

const server = createCollectorServer();
let base = "";

beforeAll(async () => {
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

/** An ad of a new campaign, served by the collector's own ad query to `sessionId`. */
async function serveThroughCollector(sessionId: string) {
  const publisher = await makePublisher();
  const advertiser = await makeAdvertiser();
  const { ad } = await makeCampaignWithAd({ advertiserId: advertiser.id, publisherIds: [publisher.id] });
  const answer = await fetch(`${base}/v1/ads`, {
    method: "POST",
    headers: { "Content-Type": "application/json" },
    body: JSON.stringify({ publisher_id: publisher.id, session_id: sessionId, context: "home", placements: [{ name: "x", types: ["banner"] }] }),
  });
  return { ad, served: ((await answer.json()) as { ads: { x: { impression_url: string }[] } }).ads.x[0]! };
}

describe("standalone collector", () => {
  it("serves the ad query and stores beacons posted to the addresses it hands out", async () => {
    const publisher = await makePublisher();
    const advertiser = await makeAdvertiser();
    const { ad } = await makeCampaignWithAd({ advertiserId: advertiser.id, publisherIds: [publisher.id] });
    const answer = await fetch(`${base}/v1/ads`, {
      method: "POST",
      headers: { "Content-Type": "application/json", Origin: "https://shop.example" },
      body: JSON.stringify({ publisher_id: publisher.id, session_id: "c-1", context: "home", placements: [{ name: "x", types: ["banner"] }] }),
    });
    expect(answer.status).toBe(200);
    expect(answer.headers.get("access-control-allow-origin")).toBe("https://shop.example");
    const { ads } = (await answer.json()) as { ads: { x: { impression_url: string; click_url: string }[] } };
    const served = ads.x[0]!;
    // The addresses point at the host that was asked.
    expect(served.impression_url.startsWith(`${base}/v1/beacon/impression/`)).toBe(true);

    const impression = await fetch(served.impression_url, { method: "POST", headers: { "Content-Type": "text/plain" }, body: '{"session_id":"c-1"}' });
    expect(impression.status).toBe(202);
    const click = await fetch(served.click_url, { method: "POST", headers: { "Content-Type": "application/json" }, body: '{"session_id":"c-1"}' });
    expect(click.status).toBe(202);
    // 202 means stored: both are in the log before anything settles them.
    const logged = await db.$queryRaw<{ kind: string }[]>`SELECT kind::text FROM beacon_log WHERE ad_id = ${ad.id} ORDER BY kind`;
    expect(logged.map((row) => row.kind)).toEqual(["click", "impression"]);
    await settleAll();
    expect((await db.adEvent.findMany({ where: { adId: ad.id } })).map((e) => e.kind).sort()).toEqual(["click", "impression"]);
  });

  it("answers beacons on its direct path with the handler's headers, a length, and the socket's address whatever X-Forwarded-For says", async () => {
    const { ad, served } = await serveThroughCollector("direct");
    const headers = { "Content-Type": "application/json", Origin: "https://shop.example", "X-Forwarded-For": "6.6.6.6" };
    const accepted = await fetch(served.impression_url, { method: "POST", headers, body: '{"session_id":"direct"}' });
    expect(accepted.status).toBe(202);
    expect(await accepted.text()).toBe("");
    expect(Object.fromEntries([...accepted.headers].filter(([name]) => !["date", "connection", "keep-alive"].includes(name)))).toEqual({
      "cache-control": "no-store",
      "access-control-allow-origin": "https://shop.example",
      "access-control-allow-credentials": "true",
      vary: "Origin",
      "x-request-id": expect.stringMatching(/^[0-9a-f-]{36}$/),
      "content-length": "0",
      "x-content-type-options": "nosniff",
    });
    await settleAll();
    const [event] = await db.adEvent.findMany({ where: { adId: ad.id } });
    expect(event?.clientHash).toBe(clientAddressHash("127.0.0.1"));

    const wrongMethod = await fetch(served.impression_url, { headers });
    expect(wrongMethod.status).toBe(405);
    expect(wrongMethod.headers.get("allow")).toBe("POST, OPTIONS");
    expect(await wrongMethod.json()).toEqual({ error: { code: "method_not_allowed", message: "use POST" } });
    const notJson = await fetch(served.impression_url, { method: "POST", headers, body: "{" });
    expect(notJson.status).toBe(400);
    await settleAll();
    expect(await db.adEvent.count({ where: { adId: ad.id } })).toBe(1);
  });

  it("answers a path that is not valid percent-encoding with a 400, as Next.js's routes do, and stores nothing", async () => {
    const before = await db.$queryRaw<{ n: bigint }[]>`SELECT count(*) AS n FROM beacon_log`;
    for (const path of ["/v1/beacon/click/%E0%A4%A", "/v1/beacon/impression/%", "/v1/ads/%ZZ", "/v1/beacon/conversion%C0"]) {
      const answer = await fetch(`${base}${path}`, {
        method: "POST",
        headers: { "Content-Type": "application/json", Origin: "https://shop.example" },
        body: "{}",
      });
      expect({ path, status: answer.status }).toEqual({ path, status: 400 });
      expect(answer.headers.get("access-control-allow-origin")).toBe("https://shop.example");
      expect(answer.headers.get("x-content-type-options")).toBe("nosniff");
      expect(await answer.json()).toEqual({ error: { code: "bad_request", message: "the path is not valid percent-encoding" } });
    }
    // A valid escape is a path like any other: here, no such beacon address.
    expect((await fetch(`${base}/v1/beacon/impression/%41`, { method: "POST", body: "{}" })).status).toBe(404);
    expect(await db.$queryRaw<{ n: bigint }[]>`SELECT count(*) AS n FROM beacon_log`).toEqual(before);
  });

  it("answers preflights, unknown routes, wrong methods and oversized bodies", async () => {
    const preflight = await fetch(`${base}/v1/beacon/impression/x`, {
      method: "OPTIONS",
      headers: { Origin: "https://a.example", "Access-Control-Request-Method": "POST" },
    });
    expect(preflight.status).toBe(204);
    expect(preflight.headers.get("access-control-allow-credentials")).toBe("true");
    expect((await fetch(`${base}/v2/nothing`, { method: "POST", body: "{}" })).status).toBe(404);
    expect((await fetch(`${base}/v1/ads`)).status).toBe(405);
    expect((await fetch(`${base}/v1/beacon/impression/x.y.z`, { method: "POST", body: "x".repeat(20_000) })).status).toBe(404);
    expect((await fetch(`${base}/v1/ads`, { method: "POST", headers: { "Content-Type": "application/json" }, body: "x".repeat(20_000) })).status).toBe(413);
    expect(
      (
        await fetch(`${base}/v1/ads`, { method: "POST", headers: { "Content-Type": "application/json" }, body: "x".repeat(2_000_000) }).catch(() => ({
          status: 413,
        }))
      ).status,
    ).toBe(413);
  });

  it("stores conversions, refuses invalid ones with Ajv's array, and bodies over 256 KiB", async () => {
    const publisher = await makePublisher();
    const order = {
      publisher_id: publisher.id,
      user_id: "u-1",
      session_id: "c-2",
      order_id: "collector-1",
      created_at: new Date().toISOString(),
      channel: "app",
      email_hashed: "a".repeat(64),
      items: [{ sku: "S-1", quantity: 1, price: 2.5, promotional_price: 2 }],
    };
    const post = (body: string, contentType = "application/json") =>
      fetch(`${base}/v1/beacon/conversion`, { method: "POST", headers: { "Content-Type": contentType, Origin: "https://shop.example" }, body });
    const accepted = await post(JSON.stringify(order), "text/plain");
    expect(accepted.status).toBe(202);
    expect(accepted.headers.get("access-control-allow-origin")).toBe("https://shop.example");
    expect(await accepted.json()).toEqual({ messages: ["The conversion was received and will be processed soon."], verified: false });
    await settleAll();
    const stored = await db.conversion.findFirstOrThrow({ where: { publisherId: publisher.id, orderId: "collector-1" } });
    expect(stored.items).toEqual([
      { sku: "S-1", product_id: null, seller_id: null, quantity: 1, price_micros: 2_500_000, promotional_price_micros: 2_000_000 },
    ]);

    const invalid = await post(JSON.stringify({ ...order, order_id: 7 }));
    expect(invalid.status).toBe(422);
    expect(await invalid.json()).toEqual([
      { instancePath: "/order_id", schemaPath: "#/properties/order_id/type", keyword: "type", params: { type: "string" }, message: "must be string" },
    ]);
    const big = await post(JSON.stringify({ ...order, order_id: "collector-2", note: "x".repeat(300 * 1024) }));
    expect(big.status).toBe(413);
    // The conversion route's own path (not the Fetch adapter) answers the rest of the /v1 rules too.
    const preflight = await fetch(`${base}/v1/beacon/conversion`, {
      method: "OPTIONS",
      headers: { Origin: "https://shop.example", "Access-Control-Request-Method": "POST" },
    });
    expect(preflight.status).toBe(204);
    expect(preflight.headers.get("access-control-allow-origin")).toBe("https://shop.example");
    const wrongMethod = await fetch(`${base}/v1/beacon/conversion`);
    expect(wrongMethod.status).toBe(405);
    expect(wrongMethod.headers.get("allow")).toBe("POST, OPTIONS");
    expect(wrongMethod.headers.get("x-request-id")).toBeTruthy();
    const wrongType = await post(JSON.stringify({ ...order, order_id: "collector-3" }), "application/xml");
    expect(wrongType.status).toBe(415);
    expect(await wrongType.json()).toMatchObject({ error: { code: "unsupported_media_type" } });
    const notJson = await post("{");
    expect(notJson.status).toBe(400);
    await settleAll();
    expect(await db.conversion.count({ where: { publisherId: publisher.id } })).toBe(1);
  });

  it("counts a chunked body while it reads it: each route's own limit, a 413 as soon as it is passed, nothing stored", async () => {
    const { ad, served } = await serveThroughCollector("chunky");
    // A client that sends 4 KiB chunks without a length and would never stop.
    const endless = (url: string) =>
      new Promise<{ status: number; sentBytes: number }>((resolve, reject) => {
        let sentBytes = 0;
        let answered = false;
        const request = http.request(url, { method: "POST", headers: { "Content-Type": "application/json" } }, (response) => {
          answered = true;
          response.resume();
          resolve({ status: response.statusCode ?? 0, sentBytes });
          request.destroy();
        });
        request.on("error", (error) => (answered ? undefined : reject(error)));
        const chunk = Buffer.alloc(4096, 0x20);
        const pump = () => {
          while (!answered && sentBytes < 64 * 1024 * 1024 && request.write(chunk)) sentBytes += chunk.length;
          if (!answered && sentBytes < 64 * 1024 * 1024) request.once("drain", pump);
        };
        request.write("{");
        pump();
      });
    const beacon = await endless(served.impression_url);
    expect(beacon.status).toBe(413);
    expect(beacon.sentBytes).toBeLessThan(8 * 1024 * 1024); // answered long before the client gave up
    const conversion = await endless(`${base}/v1/beacon/conversion`);
    expect(conversion.status).toBe(413);
    expect(await db.$queryRaw`SELECT 1 FROM beacon_log WHERE ad_id = ${ad.id}`).toEqual([]);
    // The same 20 KiB body is too large for a beacon (16 KiB) and welcome at the conversion route
    // (256 KiB), where it is judged on its content instead.
    const body = JSON.stringify({ session_id: "chunky", pad: "x".repeat(20 * 1024) });
    expect((await fetch(served.impression_url, { method: "POST", headers: { "Content-Type": "application/json" }, body })).status).toBe(413);
    expect((await fetch(`${base}/v1/beacon/conversion`, { method: "POST", headers: { "Content-Type": "application/json" }, body })).status).toBe(422);
  });

  it("after a 413 reads no more of a body that keeps coming, lets the client read the answer, then closes the connection", async () => {
    const { port } = server.address() as AddressInfo;
    const socket = net.connect(port, "127.0.0.1");
    await new Promise((resolve) => socket.once("connect", resolve));
    socket.write("POST /v1/beacon/conversion HTTP/1.1\r\nHost: collector\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n");
    let answer = "";
    socket.on("data", (chunk: Buffer) => (answer += chunk.toString("latin1")));
    const closed = new Promise<number>((resolve) => socket.once("close", () => resolve(Date.now())));
    socket.on("error", () => {}); // a reset at the end is the server closing with input unread
    // Keep sending 64 KiB chunks for as long as the socket takes them.
    const chunk = `${(64 * 1024).toString(16)}\r\n${" ".repeat(64 * 1024)}\r\n`;
    let accepted = 0;
    const started = Date.now();
    while (!socket.destroyed && Date.now() - started < 1500) {
      if (socket.write(chunk)) accepted += 64 * 1024;
      else await new Promise((resolve) => setTimeout(resolve, 20));
    }
    expect(answer).toMatch(/^HTTP\/1\.1 413 /);
    // The server stopped reading: the client's writes back up at a few socket buffers, far below
    // what a second of loopback would carry (gigabytes).
    expect(accepted).toBeLessThan(64 * 1024 * 1024);
    const closedAt = await closed;
    expect(closedAt - started).toBeLessThan(5_000);
  });
});
