// POST /oauth/token as a client meets it: both ways of authenticating, every refusal of RFC 6749
// §5.2, the same answer for an unknown client as for a wrong secret, rotation and revocation, and
// the limits per client and source address counted in Postgres.
process.env.TALLY_OAUTH_TOKEN_REQUESTS_PER_MINUTE = "6";
process.env.TALLY_OAUTH_TOKEN_FAILURES_PER_ADDRESS = "3";
process.env.TALLY_OAUTH_TOKEN_FAILURES_PER_CLIENT = "8";
// Clients are told apart by the X-Forwarded-For entry a (pretend) proxy appends.
process.env.TALLY_TRUSTED_PROXY_HOPS = "1";

import { describe, expect, it } from "vitest";
import { OPERATOR } from "@/server/accounts/actor";
import { createOauthClient, revokeOauthClient, rotateOauthClientSecret } from "@/server/accounts/oauth-clients";
import { authenticateAccessToken } from "@/server/accounts/oauth-tokens";
import { db } from "@/server/db/client";
import { pgPool } from "@/server/db/pg-pool";
import { metricsText } from "@/server/upkeep/prometheus";
import { handleTokenRequest } from "@/testing/api/checked-report-routes";
import { makeAdvertiser } from "@/testing/fixtures";
import { startReportServer } from "@/testing/second-server";
import { answerTokenRequest } from "./oauth-token";

const FORM = "application/x-www-form-urlencoded";
const STRANGER = "203.0.113.7";
const OWNER = "198.51.100.1";
const basic = (id: string, secret: string) => `Basic ${Buffer.from(`${encodeURIComponent(id)}:${encodeURIComponent(secret)}`).toString("base64")}`;

function tokenRequest(body: string, headers: Record<string, string> = {}): Request {
  return new Request("http://localhost:3000/oauth/token", { method: "POST", headers: { "Content-Type": FORM, ...headers }, body });
}

async function ask(body: string, headers: Record<string, string> = {}) {
  const response = await handleTokenRequest(tokenRequest(body, headers));
  return { status: response.status, headers: Object.fromEntries(response.headers), body: (await response.json()) as Record<string, unknown> };
}

async function makeClient(scopes: ("reports:read" | "reports:jobs")[] = ["reports:read", "reports:jobs"]) {
  const advertiser = await makeAdvertiser();
  return createOauthClient({ actor: OPERATOR, accountId: advertiser.id, name: "bid tool", scopes });
}

describe("POST /oauth/token", () => {
  it("issues an hour's token by HTTP Basic, uncached, with every scope the client may have", async () => {
    const client = await makeClient();
    const answer = await ask("grant_type=client_credentials", { Authorization: basic(client.id, client.secret) });
    expect(answer.status).toBe(200);
    expect(answer.body).toEqual({
      access_token: expect.stringMatching(/^tat_[A-Za-z0-9_-]{43}$/),
      token_type: "Bearer",
      expires_in: 3600,
      scope: "reports:read reports:jobs",
    });
    expect(answer.headers["cache-control"]).toBe("no-store");
    expect(answer.headers.pragma).toBe("no-cache");
    const token = answer.body.access_token as string;
    expect(await authenticateAccessToken(token)).toMatchObject({ clientId: client.id, accountId: client.accountId, scopes: ["reports:read", "reports:jobs"] });
    // Stored as its hash only, and the client's last use is the issue.
    expect(JSON.stringify(await db.oauthAccessToken.findMany({ where: { clientId: client.id } }))).not.toContain(token);
    expect((await db.oauthClient.findUniqueOrThrow({ where: { id: client.id } })).lastUsedAt).not.toBeNull();
  });

  it("issues a token by client_id and client_secret in the form, narrowed to the scope asked for", async () => {
    const client = await makeClient();
    const form = new URLSearchParams({ grant_type: "client_credentials", client_id: client.id, client_secret: client.secret, scope: "reports:jobs" });
    const answer = await ask(form.toString());
    expect(answer.status).toBe(200);
    expect(answer.body.scope).toBe("reports:jobs");
    expect((await authenticateAccessToken(answer.body.access_token as string))?.scopes).toEqual(["reports:jobs"]);
  });

  it("answers a wrong secret and an unknown client alike: 401 invalid_client with a Basic challenge", async () => {
    const client = await makeClient();
    // The secret's last character changed: to "x", unless it is one already (one secret in 64).
    const wrongSecret = `${client.secret.slice(0, -1)}${client.secret.endsWith("x") ? "y" : "x"}`;
    const wrong = await ask("grant_type=client_credentials", { Authorization: basic(client.id, wrongSecret) });
    const unknown = await ask("grant_type=client_credentials", { Authorization: basic("tlc_AAAAAAAAAAAAAAAAAAAAAA", client.secret) });
    const malformed = await ask("grant_type=client_credentials", { Authorization: basic("someone", client.secret) });
    expect(wrong.status).toBe(401);
    expect(wrong.body).toEqual({ error: "invalid_client", error_description: "client authentication failed" });
    expect(wrong.headers["www-authenticate"]).toBe('Basic realm="tally"');
    // A well-formed id is counted whether or not it names a client, so both say where it stands;
    // an id that cannot be one is not counted (it would only fill the limiter's table).
    expect(wrong.headers.ratelimit).toBe('"token-failures";r=2;t=900');
    expect(unknown.headers.ratelimit).toBe(wrong.headers.ratelimit);
    expect(malformed.headers.ratelimit).toBeUndefined();
    const { ratelimit: _r, "ratelimit-policy": _p, ...wrongHeaders } = wrong.headers;
    for (const other of [unknown, malformed]) {
      const { ratelimit: _or, "ratelimit-policy": _op, ...otherHeaders } = other.headers;
      expect({ ...other, headers: otherHeaders }).toEqual({ ...wrong, headers: { ...wrongHeaders, "content-length": other.headers["content-length"] } });
    }
    const inForm = (id: string, secret: string) =>
      ask(new URLSearchParams({ grant_type: "client_credentials", client_id: id, client_secret: secret }).toString());
    const wrongInForm = await inForm(client.id, "tls_nope");
    expect(wrongInForm.status).toBe(401);
    expect(wrongInForm.body).toEqual(wrong.body);
    expect((await inForm("tlc_AAAAAAAAAAAAAAAAAAAAAA", "tls_nope")).body).toEqual(wrongInForm.body);
    // No credentials at all, or Basic that is not id:secret: invalid_client too.
    expect((await ask("grant_type=client_credentials")).status).toBe(401);
    expect(await ask("grant_type=client_credentials", { Authorization: "Basic %%%" })).toMatchObject({
      status: 401,
      body: { error: "invalid_client" },
      headers: { "www-authenticate": 'Basic realm="tally"' },
    });
  });

  it("refuses malformed requests: 400 invalid_request, unsupported_grant_type or invalid_scope", async () => {
    const client = await makeClient(["reports:read"]);
    const auth = { Authorization: basic(client.id, client.secret) };
    const refusals: [string, Record<string, string>, string][] = [
      ["grant_type=password&username=a&password=b", auth, "unsupported_grant_type"],
      ["grant_type=authorization_code&code=x", auth, "unsupported_grant_type"],
      ["scope=reports:read", auth, "invalid_request"],
      ["grant_type=client_credentials&grant_type=client_credentials", auth, "invalid_request"],
      [`grant_type=client_credentials&client_id=${client.id}&client_secret=${client.secret}`, auth, "invalid_request"],
      [`grant_type=client_credentials&client_id=${client.id}`, auth, "invalid_request"],
      [JSON.stringify({ grant_type: "client_credentials" }), { ...auth, "Content-Type": "application/json" }, "invalid_request"],
      ["grant_type=client_credentials", { ...auth, "Content-Type": "text/plain" }, "invalid_request"],
      [`grant_type=client_credentials&pad=${"x".repeat(5000)}`, auth, "invalid_request"],
      ["grant_type=client_credentials&scope=reports:jobs", auth, "invalid_scope"],
      ["grant_type=client_credentials&scope=reports:read%20reports:write", auth, "invalid_scope"],
    ];
    for (const [body, headers, error] of refusals) {
      const answer = await ask(body, headers);
      expect(answer.status, body.slice(0, 80)).toBe(400);
      expect(answer.body.error, body.slice(0, 80)).toBe(error);
      expect(answer.body.error_description).toEqual(expect.any(String));
      expect(answer.headers["cache-control"]).toBe("no-store");
    }
    // A charset parameter on the right type is fine, as is asking for exactly what is allowed.
    const ok = await ask("grant_type=client_credentials&scope=reports:read", { ...auth, "Content-Type": `${FORM}; charset=UTF-8` });
    expect(ok).toMatchObject({ status: 200, body: { scope: "reports:read" } });
    expect(await db.oauthAccessToken.count({ where: { clientId: client.id } })).toBe(1);
  });

  it("stops a revoked client's secret and tokens, and a rotated client's old secret and tokens, at once", async () => {
    const client = await makeClient();
    const grant = async (secret: string) => ask("grant_type=client_credentials", { Authorization: basic(client.id, secret) });
    const first = (await grant(client.secret)).body.access_token as string;
    const rotated = await rotateOauthClientSecret({ actor: OPERATOR, clientId: client.id });
    expect(rotated.secret).not.toBe(client.secret);
    expect(rotated.secretRotatedAt).not.toBeNull();
    expect((await grant(client.secret)).status).toBe(401);
    expect(await authenticateAccessToken(first)).toBeNull();
    const second = await grant(rotated.secret);
    expect(second.status).toBe(200);
    expect(await authenticateAccessToken(second.body.access_token as string)).not.toBeNull();

    await revokeOauthClient({ actor: OPERATOR, clientId: client.id });
    expect(await authenticateAccessToken(second.body.access_token as string)).toBeNull();
    expect(await grant(rotated.secret)).toMatchObject({ status: 401, body: { error: "invalid_client", error_description: "client authentication failed" } });
    await expect(rotateOauthClientSecret({ actor: OPERATOR, clientId: client.id })).rejects.toMatchObject({ code: "bad_request" });
  });

  it("refuses a source after its wrong secrets for a client, right secret too, while the owner's address gets its token", async () => {
    const client = await makeClient();
    const from = (address: string, secret: string) =>
      answerTokenRequest(tokenRequest("grant_type=client_credentials", { Authorization: basic(client.id, secret), "X-Forwarded-For": address }));
    const guesses = [];
    for (let i = 0; i < 3; i++) guesses.push(await from(STRANGER, `tls_guess${i}`));
    expect(guesses.map((answer) => answer.status)).toEqual([401, 401, 401]);
    expect(guesses.map((answer) => answer.rateLimit?.states.map((state) => [state.policy.name, state.remaining]))).toEqual([
      [["token-failures", 2]],
      [["token-failures", 1]],
      [["token-failures", 0]],
    ]);
    const refused = await handleTokenRequest(
      tokenRequest("grant_type=client_credentials", { Authorization: basic(client.id, client.secret), "X-Forwarded-For": STRANGER }),
    );
    expect(refused.status).toBe(429);
    expect(await refused.json()).toMatchObject({ error: "too_many_requests", error_description: expect.stringContaining("from this address") });
    expect(Number(refused.headers.get("retry-after"))).toBeGreaterThan(800);
    expect(Number(refused.headers.get("retry-after"))).toBeLessThanOrEqual(900);
    expect(refused.headers.get("ratelimit-policy")).toBe('"token-requests";q=6;w=60, "token-failures";q=3;w=900, "client-failures";q=8;w=900');
    expect(refused.headers.get("ratelimit")).toMatch(/^"token-failures";r=0;t=(8\d\d|900)$/);
    // The owner, from an address that never failed, gets a token and spends only its own allowance.
    const owner = await handleTokenRequest(
      tokenRequest("grant_type=client_credentials", { Authorization: basic(client.id, client.secret), "X-Forwarded-For": OWNER }),
    );
    expect(owner.status).toBe(200);
    expect(owner.headers.get("ratelimit")).toBe('"token-requests";r=5;t=60');
    // Counted in Postgres for every process, under the address's keyed hash: the table holds no address.
    const { rows } = await pgPool().query<{ key: string; points: number }>("SELECT key, points FROM rate_limits WHERE key LIKE $1", [
      `oauth-token%${client.id}%`,
    ]);
    expect(rows.map((row) => row.key.split(":")[0]).sort()).toEqual(["oauth-token", "oauth-token-client", "oauth-token-source"]);
    expect(JSON.stringify(rows)).not.toContain(STRANGER);
    expect(rows.find((row) => row.key.startsWith("oauth-token-client:"))?.points).toBe(3);
    expect(await db.oauthAccessToken.count({ where: { clientId: client.id } })).toBe(1);
  });

  it("never holds back a machine's workers asking at once from one address; wrong secrets sent at once all count", async () => {
    const client = await makeClient();
    const from = (address: string, secret: string) =>
      handleTokenRequest(tokenRequest("grant_type=client_credentials", { Authorization: basic(client.id, secret), "X-Forwarded-For": address }));
    const together = await Promise.all(Array.from({ length: 6 }, () => from(OWNER, client.secret)));
    expect(together.map((answer) => answer.status)).toEqual(Array(6).fill(200));
    const guesses = await Promise.all(Array.from({ length: 5 }, (_, i) => from(STRANGER, `tls_burst${i}`)));
    expect(guesses.map((answer) => answer.status)).toEqual(Array(5).fill(401));
    expect((await from(STRANGER, client.secret)).status).toBe(429);
    const { rows } = await pgPool().query<{ points: number }>("SELECT points FROM rate_limits WHERE key = $1", [`oauth-token-client:${client.id}`]);
    expect(rows[0]?.points).toBe(5);
  });

  it("past the client's wrong secrets from everywhere, refuses every source that failed, and still lets a source with none authenticate", async () => {
    const client = await makeClient();
    const from = async (address: string, secret: string) =>
      (await handleTokenRequest(tokenRequest("grant_type=client_credentials", { Authorization: basic(client.id, secret), "X-Forwarded-For": address }))).status;
    const spread = [];
    for (let i = 1; i <= 8; i++) spread.push(await from(`192.0.2.${i}`, "tls_guess"));
    expect(spread).toEqual(Array(8).fill(401));
    // Each of them failed once, under its own limit of 3, yet is refused now, the right secret too.
    expect(await from("192.0.2.1", "tls_guess again")).toBe(429);
    expect(await from("192.0.2.2", client.secret)).toBe(429);
    // A new source gets one guess, no more.
    expect(await from("192.0.2.100", "tls_guess")).toBe(401);
    expect(await from("192.0.2.100", "tls_guess")).toBe(429);
    // The owner's address has no failure: its secret is checked, and it gets its token.
    expect(await from(OWNER, client.secret)).toBe(200);
    expect(await from(OWNER, client.secret)).toBe(200);
    const metrics = (await metricsText()).body;
    expect(metrics).toMatch(/tally_oauth_token_refusals_total\{limit="client"\} [1-9]/);
  });

  it("counts a client's right secrets a minute, which a stranger's wrong ones never spend: 429 with Retry-After past the limit", async () => {
    const [client, other] = [await makeClient(), await makeClient()];
    for (let i = 1; i <= 4; i++) {
      const stranger = await answerTokenRequest(
        tokenRequest("grant_type=client_credentials", { Authorization: basic(client.id, "tls_wrong"), "X-Forwarded-For": `198.51.100.${i + 10}` }),
      );
      expect(stranger.status).toBe(401);
    }
    const states = [];
    for (let i = 0; i < 6; i++) {
      const answer = await answerTokenRequest(
        tokenRequest("grant_type=client_credentials", { Authorization: basic(client.id, client.secret), "X-Forwarded-For": OWNER }),
      );
      expect(answer.status).toBe(200);
      states.push(answer.rateLimit?.states[0]);
    }
    expect(states.map((state) => state?.remaining)).toEqual([5, 4, 3, 2, 1, 0]);
    expect(states[0]?.policy).toEqual({ name: "token-requests", quota: 6, windowSeconds: 60 });
    const refused = await answerTokenRequest(
      tokenRequest("grant_type=client_credentials", { Authorization: basic(client.id, client.secret), "X-Forwarded-For": OWNER }),
    );
    expect(refused.status).toBe(429);
    expect(JSON.parse(refused.body)).toMatchObject({ error: "too_many_requests", error_description: expect.stringContaining("at most 6 a minute") });
    expect(Number(refused.headers["Retry-After"])).toBeGreaterThanOrEqual(1);
    expect(Number(refused.headers["Retry-After"])).toBeLessThanOrEqual(60);
    expect(refused.rateLimit?.states[0]).toMatchObject({ remaining: 0, policy: { name: "token-requests" } });
    const { rows } = await pgPool().query<{ points: number }>("SELECT points FROM rate_limits WHERE key = $1", [`oauth-token:${client.id}`]);
    expect(rows[0]?.points).toBeGreaterThanOrEqual(6);
    // A wrong secret from the same address is still only a wrong secret, and another client is not held back.
    expect(
      (await answerTokenRequest(tokenRequest("grant_type=client_credentials", { Authorization: basic(client.id, "tls_wrong"), "X-Forwarded-For": OWNER })))
        .status,
    ).toBe(401);
    expect((await ask("grant_type=client_credentials", { Authorization: basic(other.id, other.secret) })).status).toBe(200);
  });

  it("hold one count across two server processes sharing the database: the 429 comes at the same request", async () => {
    const client = await makeClient();
    const servers = await Promise.all([startReportServer(), startReportServer()]);
    try {
      const take = (origin: string) =>
        fetch(`${origin}/oauth/token`, {
          method: "POST",
          headers: { "Content-Type": "application/x-www-form-urlencoded", Authorization: basic(client.id, client.secret) },
          body: "grant_type=client_credentials",
        });
      const answers = [];
      for (let i = 0; i < 8; i++) answers.push(await take(servers[i % 2]!.origin));
      expect(answers.map((answer) => answer.status)).toEqual([200, 200, 200, 200, 200, 200, 429, 429]);
      expect(answers.map((answer) => /r=(\d+)/.exec(answer.headers.get("ratelimit") ?? "")?.[1])).toEqual(["5", "4", "3", "2", "1", "0", "0", "0"]);
    } finally {
      for (const { child } of servers) child.kill();
    }
  });
});
