// The token endpoint and tokens under attack at the production build (`next start`): wrong
// secrets from many addresses and from one are held back where they come from, while the owner's
// address gets its token and reads a report with it; malformed, oversized and repeated forms
// are refused as RFC 6749 says; forged tokens read nothing. Every answer is held to the API
// document (checkedFetch).
import { afterAll, describe, expect, it } from "vitest";
import { OPERATOR } from "@/server/accounts/actor";
import { createOauthClient } from "@/server/accounts/oauth-clients";
import { disconnectDb } from "@/server/db/client";
import { closePgPool } from "@/server/db/pg-pool";
import { makeAdvertiser } from "@/testing/fixtures";
import { checkedFetch, closeSql, floodAddress, freshAddress, sql, stack } from "./client";

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
  it("holds wrong secrets back where they come from: the owner's address gets its token and reads a report while strangers keep guessing", async () => {
    const client = await createOauthClient({ actor: OPERATOR, accountId: (await makeAdvertiser()).id, name: "guessed", scopes: ["reports:read"] });
    const failing = floodAddress();
    let owner = floodAddress();
    while (owner === failing) owner = floodAddress();
    const guess = async (address: string, secret = "tls_guess") => {
      const answer = await token(`grant_type=client_credentials&client_id=${client.id}&client_secret=${secret}`, { "X-Forwarded-For": address });
      await answer.arrayBuffer();
      return answer;
    };
    // Thirty wrong secrets in a few seconds, each from an address of its own: far past what the
    // count per client id alone allowed in a minute.
    const strangers = Array.from({ length: 30 }, () => freshAddress());
    const spread = [];
    for (const address of strangers) spread.push((await guess(address)).status);
    expect(spread).toEqual(Array(30).fill(401));
    // One address guessing on: five wrong secrets, then it is refused, the right secret too.
    const fromOne = [];
    for (let i = 0; i < 7; i++) fromOne.push(await guess(failing, `tls_guess${i}`));
    expect(fromOne.map((answer) => answer.status)).toEqual([401, 401, 401, 401, 401, 429, 429]);
    const refused = fromOne[5]!;
    expect(Number(refused.headers.get("retry-after"))).toBeGreaterThanOrEqual(1);
    expect(refused.headers.get("ratelimit")).toMatch(/^"token-failures";r=0;t=\d+$/);
    expect(refused.headers.get("ratelimit-policy")).toContain('"token-failures";q=5;w=900');
    expect((await guess(failing, client.secret)).status).toBe(429);

    const right = await token("grant_type=client_credentials", { Authorization: basic(client.id, client.secret), "X-Forwarded-For": owner });
    expect(right.status).toBe(200);
    expect(right.headers.get("ratelimit")).toMatch(/^"token-requests";r=19;t=\d+$/);
    const { access_token: accessToken } = (await right.json()) as { access_token: string };
    const report = await checkedFetch(`${stack.nextUrl}/campaign/v2`, { headers: { Authorization: `Bearer ${accessToken}`, "X-Forwarded-For": owner } });
    expect(report.status).toBe(200);
    await report.arrayBuffer();

    // Past the client's 100 wrong secrets from everywhere, an address that failed once is refused
    // at once; the owner's, which never failed, still gets a token.
    for (let i = 0; i < 70; i++) expect((await guess(freshAddress())).status).toBe(401);
    const again = await guess(strangers[0]!);
    expect(again.status).toBe(429);
    expect(again.headers.get("ratelimit")).toMatch(/^"client-failures";r=0;t=\d+$/);
    const later = await token("grant_type=client_credentials", { Authorization: basic(client.id, client.secret), "X-Forwarded-For": owner });
    expect(later.status).toBe(200);
    await later.arrayBuffer();
    expect(await sql<{ n: number }>("SELECT count(*)::int AS n FROM oauth_access_tokens WHERE client_id = $1", [client.id])).toEqual([{ n: 2 }]);
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
