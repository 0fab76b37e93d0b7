// The contract check fails on an answer off the document: this is what makes it worth calling.
import { describe, expect, it } from "vitest";
import { METRIC_FIELDS } from "@/server/store/metrics";
import { checkAnswer } from "./contract";

const ORIGIN = "http://tally.test";
const get = (path: string) => ({ method: "GET", url: `${ORIGIN}${path}` });
const json = (status: number, body: unknown, headers: Record<string, string> = {}) =>
  Response.json(body, { status, headers: { "Cache-Control": "private, no-store", "Tally-Time-Zone": "UTC", ...headers } });

const ADVERTISER_ROW: Record<string, unknown> = {
  advertiser: "Acme",
  advertiser_id: "adv_1",
  seller_id: null,
  wallet_balance: 100,
  daily_budget: null,
  currency: "BRL",
  ...Object.fromEntries(METRIC_FIELDS.map((field) => [field, 0])),
};
const PAGE = { data: [ADVERTISER_ROW], page: 1, per_page: 50, total: 1 };

describe("checkAnswer", () => {
  it("accepts an answer as the document describes it", async () => {
    await checkAnswer(get("/report/v2/advertisers?page=1"), json(200, PAGE));
    await checkAnswer(get("/report/v2/advertisers"), json(429, { error: { code: "too_many_requests", message: "slow down" } }, { "Retry-After": "3" }));
    await checkAnswer({ method: "POST", url: `${ORIGIN}/v1/beacon/click/abc` }, new Response(null, { status: 202 }));
    await checkAnswer({ method: "GET", url: `${ORIGIN}/v1/ads` }, new Response(null, { status: 405, headers: { Allow: "POST, OPTIONS" } }));
  });

  it("fails on a status the operation does not declare", async () => {
    await expect(checkAnswer(get("/report/v2/advertisers"), json(418, PAGE))).rejects.toThrow(/status not in the document/);
  });

  it("fails on a row missing a field, and on a field of the wrong type", async () => {
    const { ntb_rate: _gone, ...withoutNtbRate } = ADVERTISER_ROW;
    await expect(checkAnswer(get("/report/v2/advertisers"), json(200, { ...PAGE, data: [withoutNtbRate] }))).rejects.toThrow(/ntb_rate/);
    await expect(checkAnswer(get("/report/v2/advertisers"), json(200, { ...PAGE, data: [{ ...ADVERTISER_ROW, clicks_total: "7" }] }))).rejects.toThrow(
      /clicks_total must be integer/,
    );
    await expect(checkAnswer(get("/report/v2/advertisers"), json(200, { ...PAGE, total: 1.5 }))).rejects.toThrow(/total must be integer/);
  });

  it("fails on an undeclared field, a missing required header, a bad header, an undeclared content type", async () => {
    await expect(checkAnswer(get("/report/v2/advertisers"), json(200, { ...PAGE, data: [{ ...ADVERTISER_ROW, extra: 1 }] }))).rejects.toThrow(
      /additional properties/,
    );
    await expect(checkAnswer(get("/report/v2/advertisers"), json(429, { error: { code: "too_many_requests", message: "x" } }))).rejects.toThrow(
      /Retry-After is missing/,
    );
    await expect(
      checkAnswer(get("/report/v2/advertisers"), json(429, { error: { code: "too_many_requests", message: "x" } }, { "Retry-After": "soon" })),
    ).rejects.toThrow(/header Retry-After/);
    // A report's answer that does not name its time zone.
    await expect(checkAnswer(get("/report/v2/advertisers"), Response.json(PAGE, { headers: { "Cache-Control": "private, no-store" } }))).rejects.toThrow(
      /Tally-Time-Zone is missing/,
    );
    await expect(
      checkAnswer(get("/campaign/v2"), new Response("<html>", { headers: { "Content-Type": "text/html", "Cache-Control": "x", "Tally-Time-Zone": "UTC" } })),
    ).rejects.toThrow(/content type text\/html is not declared/);
  });

  it("checks the shared RateLimit fields and an OAuth error body", async () => {
    const fields = { "RateLimit-Policy": '"per-second";q=10;w=1, "burst";q=50;w=10', RateLimit: '"per-second";r=9;t=1' };
    await checkAnswer(get("/report/v2/advertisers"), json(200, PAGE, fields));
    await expect(checkAnswer(get("/report/v2/advertisers"), json(200, PAGE, { ...fields, RateLimit: "9 left" }))).rejects.toThrow(/header RateLimit/);
    const token = { method: "POST", url: `${ORIGIN}/oauth/token` };
    const oauth = (status: number, body: unknown, headers: Record<string, string> = {}) =>
      Response.json(body, { status, headers: { "Cache-Control": "no-store", Pragma: "no-cache", ...headers } });
    await checkAnswer(token, oauth(400, { error: "invalid_scope", error_description: "no" }));
    await expect(checkAnswer(token, oauth(400, { error: "unknown_error", error_description: "no" }))).rejects.toThrow(/error must be equal to one of/);
    await expect(checkAnswer(token, oauth(429, { error: "too_many_requests", error_description: "slow" }))).rejects.toThrow(/Retry-After is missing/);
  });

  it("fails on a body where none is declared, an unknown path not 404, a wrong method not 405", async () => {
    await expect(checkAnswer({ method: "POST", url: `${ORIGIN}/v1/beacon/click/abc` }, new Response("ok", { status: 202 }))).rejects.toThrow(
      /declares no body/,
    );
    await expect(checkAnswer(get("/report/v3/everything"), json(200, {}))).rejects.toThrow(/only 404/);
    await expect(checkAnswer({ method: "DELETE", url: `${ORIGIN}/campaign/v2` }, json(200, PAGE))).rejects.toThrow(/only a 405/);
  });
});
