import http from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { errorResponse } from "@/server/http/respond";
import { toFetchRequest, writeFetchResponse } from "./fetch-adapter";

let handler: (request: Request) => Promise<Response>;
const server = http.createServer(async (req, res) => {
  try {
    await writeFetchResponse(req, res, await handler(toFetchRequest(req, "http://collector.test", 64)));
  } catch (error) {
    await writeFetchResponse(req, res, errorResponse(error));
  }
});
let base = "";
beforeAll(async () => {
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise((resolve) => server.close(resolve)));

describe("the collector's lazy Fetch request", () => {
  it("serves method, url, headers and the body as Fetch does", async () => {
    handler = async (request) =>
      Response.json({
        isRequest: request instanceof Request,
        method: request.method,
        url: request.url,
        type: request.headers.get("Content-Type"),
        missing: request.headers.get("x-none"),
        hasOrigin: request.headers.has("origin"),
        body: await request.text(),
        bodyUsed: request.bodyUsed,
      });
    const response = await fetch(`${base}/v1/x?y=1`, { method: "POST", headers: { "Content-Type": "text/plain", Origin: "https://a.example" }, body: "hello" });
    expect(await response.json()).toEqual({
      isRequest: true,
      method: "POST",
      url: "http://collector.test/v1/x?y=1",
      type: "text/plain",
      missing: null,
      hasOrigin: true,
      body: "hello",
      bodyUsed: true,
    });
  });

  it("joins repeated headers with a comma, as Fetch does, where Node keeps only the first", async () => {
    handler = async (request) => new Response(request.headers.get("authorization"));
    const raw = await new Promise<string>((resolve, reject) => {
      const req = http.request(`${base}/`, { method: "GET", headers: { Authorization: ["a", "b"] } }, (res) => {
        let text = "";
        res.on("data", (chunk: Buffer) => (text += chunk.toString()));
        res.on("end", () => resolve(text));
      });
      req.on("error", reject);
      req.end();
    });
    expect(raw).toBe("a, b");
  });

  it("falls back to a real Request for members it does not serve, and refuses a second read", async () => {
    handler = async (request) => {
      const names = [...request.headers.keys()].filter((name) => name.startsWith("x-"));
      const body = await request.text();
      const second = await request.text().then(
        () => "read twice",
        (error: Error) => error.name,
      );
      return Response.json({ names, body, second, cache: request.cache });
    };
    const response = await fetch(`${base}/`, { method: "POST", headers: { "x-a": "1", "x-b": "2" }, body: "abc" });
    expect(await response.json()).toEqual({ names: ["x-a", "x-b"], body: "abc", second: "TypeError", cache: "default" });
  });

  it("refuses a body over the limit with 413, declared or not, and answers an empty 202 with a length", async () => {
    handler = async (request) => new Response(await request.text());
    expect((await fetch(`${base}/`, { method: "POST", body: "x".repeat(65) })).status).toBe(413);
    const chunked = new ReadableStream({
      start(c) {
        c.enqueue(new TextEncoder().encode("x".repeat(40)));
        c.enqueue(new TextEncoder().encode("x".repeat(40)));
        c.close();
      },
    });
    expect((await fetch(`${base}/`, { method: "POST", body: chunked, duplex: "half" } as RequestInit)).status).toBe(413);
    handler = async () => new Response(null, { status: 202 });
    const empty = await fetch(`${base}/`, { method: "POST", body: "{}" });
    expect(empty.status).toBe(202);
    expect(empty.headers.get("content-length")).toBe("0");
    expect(empty.headers.get("transfer-encoding")).toBeNull();
  });
});
