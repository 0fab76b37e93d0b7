// The conversion side of the browser SDK, run in Node with the few browser globals it touches
// stubbed: where it sends, what it fills in, and which transport it uses.
import { afterEach, describe, expect, it, vi } from "vitest";
import type { TallyApi, TallyOrder } from "./tally";

const order: TallyOrder = {
  publisher_id: "pub_demo_market",
  order_id: "o-1",
  created_at: "2025-01-02T03:04:05.000Z",
  channel: "online store",
  items: [{ sku: "SKU-1", quantity: 2, price: 10, promotional_price: 8 }],
  email_hashed: "a".repeat(64),
};

/** A fresh copy of the SDK module, as a page loading the script gets, with these globals. */
async function loadSdk(globals: Record<string, unknown>): Promise<typeof import("./tally")> {
  vi.resetModules();
  for (const [name, value] of Object.entries(globals)) vi.stubGlobal(name, value);
  return import("./tally");
}

async function blobJson(blob: unknown): Promise<unknown> {
  expect(blob).toBeInstanceOf(Blob);
  expect((blob as Blob).type).toBe("application/json");
  return JSON.parse(await (blob as Blob).text());
}

afterEach(() => {
  vi.unstubAllGlobals();
});

describe("tracker.conversion", () => {
  it("sends a beacon to <eventsUrl>/v1/beacon/conversion with the tracker's ids where the order has none", async () => {
    const sendBeacon = vi.fn(() => true);
    const sdk = await loadSdk({ navigator: { sendBeacon } });
    const tracker = sdk.init({ sessionId: "s-1", userId: "u-1", eventsUrl: "https://events.example/" });

    expect(tracker.conversion(order)).toBeUndefined();
    tracker.conversion({ ...order, order_id: "o-2", session_id: "s-own", user_id: "u-own" });

    expect(sendBeacon).toHaveBeenCalledTimes(2);
    const [url, blob] = sendBeacon.mock.calls[0] as unknown as [string, Blob];
    expect(url).toBe("https://events.example/v1/beacon/conversion");
    expect(await blobJson(blob)).toEqual({ ...order, session_id: "s-1", user_id: "u-1" });
    const second = await blobJson((sendBeacon.mock.calls[1] as unknown as [string, Blob])[1]);
    expect(second).toMatchObject({ order_id: "o-2", session_id: "s-own", user_id: "u-own" });
  });

  it("defaults eventsUrl to the origin of the script's own src, else the page's origin", async () => {
    const sendBeacon = vi.fn((_url: string, _body: Blob) => true);
    let sdk = await loadSdk({
      navigator: { sendBeacon },
      document: { currentScript: { src: "https://cdn.tally.example/sdk/tally.js?v=2" }, cookie: "" },
      location: { origin: "https://shop.example", protocol: "https:" },
    });
    sdk.init({ sessionId: "s" }).conversion(order);
    expect(sendBeacon.mock.calls[0]?.[0]).toBe("https://cdn.tally.example/v1/beacon/conversion");

    sdk = await loadSdk({ document: { currentScript: null, cookie: "" } });
    sdk.init({ sessionId: "s" }).conversion(order);
    expect(sendBeacon.mock.calls[1]?.[0]).toBe("https://shop.example/v1/beacon/conversion");
  });

  it("falls back to fetch with keepalive when the beacon is refused, and never throws into the page", async () => {
    const fetch = vi.fn(() => Promise.resolve(new Response(null, { status: 202 })));
    const sdk = await loadSdk({ navigator: { sendBeacon: () => false }, fetch });
    const tracker = sdk.init({ sessionId: "s", eventsUrl: "https://events.example" });
    tracker.conversion(order);
    expect(fetch).toHaveBeenCalledWith(
      "https://events.example/v1/beacon/conversion",
      expect.objectContaining({ method: "POST", keepalive: true, headers: { "Content-Type": "application/json" } }),
    );

    const circular: Record<string, unknown> = { ...order };
    circular.self = circular;
    expect(() => tracker.conversion(circular as unknown as TallyOrder)).not.toThrow();
    expect(() => tracker.conversion(null as unknown as TallyOrder)).not.toThrow();
  });

  it("with waitForReply, posts with fetch and resolves with the status and the JSON of the reply", async () => {
    const replies = [
      new Response(JSON.stringify({ messages: ["will be processed soon"] }), { status: 202 }),
      new Response(JSON.stringify([{ instancePath: "", message: "must have required property 'email_hashed'" }]), { status: 422 }),
      new Response("<html>bad gateway</html>", { status: 502 }),
    ];
    const fetch = vi.fn((_url: string, _init: RequestInit) => Promise.resolve(replies.shift()!));
    const sendBeacon = vi.fn(() => true);
    const sdk = await loadSdk({ navigator: { sendBeacon }, fetch });
    const tracker = sdk.init({ sessionId: "s-1", eventsUrl: "https://events.example" });

    expect(await tracker.conversion(order, { waitForReply: true })).toEqual({ status: 202, body: { messages: ["will be processed soon"] } });
    expect(await tracker.conversion(order, { waitForReply: true })).toMatchObject({ status: 422, body: [{ instancePath: "" }] });
    expect(await tracker.conversion(order, { waitForReply: true })).toEqual({ status: 502, body: null });
    expect(sendBeacon).not.toHaveBeenCalled();

    const [url, init] = fetch.mock.calls[0]!;
    expect(url).toBe("https://events.example/v1/beacon/conversion");
    expect(init).toMatchObject({ method: "POST", headers: { "Content-Type": "application/json", Accept: "application/json" } });
    expect(init.keepalive).toBeUndefined();
    expect(JSON.parse(init.body as string)).toEqual({ ...order, session_id: "s-1" });
  });

  it("sends the order_token the publisher's server signed exactly as given, and no Authorization header", async () => {
    const fetch = vi.fn((_url: string, _init: RequestInit) => Promise.resolve(new Response(JSON.stringify({ messages: [], verified: true }), { status: 202 })));
    const sendBeacon = vi.fn((_url: string, _body: Blob) => true);
    const sdk = await loadSdk({ navigator: { sendBeacon }, fetch });
    const tracker = sdk.init({ sessionId: "s-1", eventsUrl: "https://events.example" });
    const token = "AB".repeat(32);
    tracker.conversion({ ...order, order_token: token });
    expect(await blobJson(sendBeacon.mock.calls[0]![1])).toMatchObject({ order_id: order.order_id, order_token: token });
    expect(await tracker.conversion({ ...order, order_token: token }, { waitForReply: true })).toEqual({ status: 202, body: { messages: [], verified: true } });
    const init = fetch.mock.calls[0]![1];
    expect(JSON.parse(init.body as string).order_token).toBe(token);
    expect(Object.keys(init.headers as Record<string, string>).sort()).toEqual(["Accept", "Content-Type"]);
  });

  it("with waitForReply, rejects when the service cannot be reached or the order is not JSON", async () => {
    const sdk = await loadSdk({ fetch: () => Promise.reject(new TypeError("Failed to fetch")) });
    const tracker = sdk.init({ sessionId: "s", eventsUrl: "https://events.example" });
    await expect(tracker.conversion(order, { waitForReply: true })).rejects.toThrow("Failed to fetch");
    await expect(tracker.conversion({ ...order, bad: 1n } as unknown as TallyOrder, { waitForReply: true })).rejects.toThrow();
  });
});

describe("window.Tally", () => {
  it("exposes conversion, hashIdentity and sha256Hex beside the ad calls", async () => {
    const window: { Tally?: TallyApi } = {};
    const sendBeacon = vi.fn(() => true);
    await loadSdk({ window, navigator: { sendBeacon }, location: { origin: "https://shop.example", protocol: "https:" } });
    const tally = window.Tally!;
    expect(Object.keys(tally).sort()).toEqual(["click", "conversion", "hashIdentity", "impression", "init", "sessionId", "sha256Hex", "track"].sort());
    expect(await tally.hashIdentity({ email: " A@B.CO ", phone: "11 98765-4321" }, { countryCode: "55" })).toEqual({
      email_hashed: await tally.sha256Hex("a@b.co"),
      phone_hashed: await tally.sha256Hex("+5511987654321"),
    });
    tally.init({ sessionId: "s-default" });
    tally.conversion(order);
    expect(sendBeacon).toHaveBeenCalledWith("https://shop.example/v1/beacon/conversion", expect.any(Blob));
  });
});
