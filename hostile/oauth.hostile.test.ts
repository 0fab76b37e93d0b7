// The token endpoint and tokens under attack at the production build (`next start`): guessing one
// client's secret from many addresses meets the client's limit, shared by every process, and the
// right secret gets nothing more until the window ends; malformed, oversized and repeated forms
// are refused as RFC 6749 says; forged tokens read nothing. Every answer is held to the API
// document (checkedFetch).
import { afterAll, describe, expect, it } from "vitest";
import { OPERATOR } from "@/server/accounts/actor";
import { createOauthClient } from "@/server/accounts/oauth-clients";
import { disconnectDb } from "@/server/db/client";
import { closePgPool } from "@/server/db/pg-pool";
import { makeAdvertiser } from "@/testing/fixtures";
import { checkedFetch, closeSql, freshAddress, sql, stack } from "./client";

const FORM = "application/x-www-form-urlencoded";
const basic = (id: string, secret: string) => `Basic ${Buffer.from(`${id}:${secret}`).toString("base64")}`;

function token(body: string | Blob, headers: Record<string, string> = {}) {
  return checkedFetch(`${stack.nextUrl}/oauth/token`, {
    method: "POST",
    headers: { "Content-Type": FORM, "X-Forwarded-For": freshAddress(), ...headers },
    body,
  });
}

afterAll(async () => {
  await closeSql();
  await disconnectDb();
  await closePgPool();
});

describe("the token endpoint under attack", () => {
  it("meets a secret guessed from many addresses with the client's limit; the right secret waits for the window too", async () => {
    const client = await createOauthClient({ actor: OPERATOR, accountId: (await makeAdvertiser()).id, name: "guessed", scopes: ["reports:read"] });
    const statuses: number[] = [];
    for (let guess = 0; guess < 24; guess++) {
      const answer = await token(`grant_type=client_credentials&client_id=${client.id}&client_secret=tls_guess${guess}`);
      statuses.push(answer.status);
      await answer.arrayBuffer();
    }
    const limit = statuses.indexOf(429);
    expect(limit).toBeGreaterThan(0);
    expect(statuses.slice(0, limit).every((status) => status === 401)).toBe(true);
    expect(statuses.slice(limit).every((status) => status === 429)).toBe(true);
    const right = await token("grant_type=client_credentials", { Authorization: basic(client.id, client.secret) });
    expect(right.status).toBe(429);
    expect(Number(right.headers.get("retry-after"))).toBeGreaterThanOrEqual(1);
    expect(right.headers.get("ratelimit")).toMatch(/^"token-requests";r=0;t=\d+$/);
    expect(((await right.json()) as { error: string }).error).toBe("too_many_requests");
    // No token was stored for any of it.
    expect(await sql("SELECT 1 FROM oauth_access_tokens WHERE client_id = $1", [client.id])).toEqual([]);
  });

  it("refuses odd forms at once, and stores nothing", async () => {
    const before = await sql<{ n: number }>("SELECT count(*)::int AS n FROM oauth_access_tokens");
    const refusals: [string, Response][] = [
      ["a megabyte of form", await token(`grant_type=client_credentials&scope=${"a".repeat(1024 * 1024)}`)],
      ["bytes that are not UTF-8", await token(new Blob([new Uint8Array([0x67, 0x3d, 0xff, 0xfe])]))],
      ["grant_type twice", await token("grant_type=client_credentials&grant_type=client_credentials")],
      ["JSON", await token(JSON.stringify({ grant_type: "client_credentials" }), { "Content-Type": "application/json" })],
      ["a password grant", await token("grant_type=password&username=staff&password=x")],
      ["Basic of no colon", await token("grant_type=client_credentials", { Authorization: `Basic ${Buffer.from("x".repeat(2000)).toString("base64")}` })],
    ];
    for (const [what, answer] of refusals) {
      expect([400, 401], what).toContain(answer.status);
      expect(answer.headers.get("cache-control"), what).toBe("no-store");
      const body = (await answer.json()) as { error: string };
      expect(["invalid_request", "invalid_client", "unsupported_grant_type"], what).toContain(body.error);
    }
    expect(await sql<{ n: number }>("SELECT count(*)::int AS n FROM oauth_access_tokens")).toEqual(before);
  });

  it("reads nothing with a forged or truncated token", async () => {
    for (const forged of [`tat_${"A".repeat(43)}`, "tat_", `tat_${"x".repeat(5000)}`, "tat_../../etc/passwd"]) {
      const answer = await checkedFetch(`${stack.nextUrl}/campaign/v2`, { headers: { Authorization: `Bearer ${forged}` } });
      expect(answer.status, forged.slice(0, 20)).toBe(401);
      expect(answer.headers.get("www-authenticate")).toContain('error="invalid_token"');
      await answer.arrayBuffer();
    }
  });
});
