// The web app as a hostile client meets it, at the production build under `next start` (and the
// collector where it answers the same paths): sign-in guesses neither batch under any encoding nor
// lock the owner out from elsewhere, every answer carries the security headers, the session cookie
// is Secure over plain http, the public health answer tells nothing of backlogs, and a path that
// is not valid percent-encoding gets a clean 400. (The demo store is off in this stack; that it
// lists only the demo publisher's products is tested in src/app/demo/demo.int.test.ts.)
import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createUser } from "@/server/accounts/create-user";
import { type Answer, CHROME, closeSql, floodAddress, freshAddress, HOSTS, post, sql, stack } from "./client";
import { HOSTILE_ENV } from "./global-stack";
import { legitimateTrafficGoesThrough } from "./legitimate-traffic";

const PASSWORD = "hostile-web-owner-password";
let owner: string;

beforeAll(async () => {
  owner = `owner-${randomUUID()}@hostile.test`;
  await createUser({ email: owner, name: "Owner", password: PASSWORD, role: "staff" });
  const { disconnectDb } = await import("@/server/db/client");
  await disconnectDb();
});
afterAll(closeSql);

async function get(url: string, headers: Record<string, string> = {}): Promise<Answer> {
  const response = await fetch(url, { headers: { "User-Agent": CHROME, "X-Forwarded-For": freshAddress(), ...headers }, redirect: "manual" });
  const text = await response.text();
  return { status: response.status, headers: response.headers, text, json: () => JSON.parse(text) as unknown };
}

const signIn = (email: string, password: string, address: string) => post(`${stack.nextUrl}/api/trpc/auth.signIn`, { json: { email, password } }, { address });

const countRows = async () => {
  const [limits] = await sql<{ n: string }>("SELECT count(*) AS n FROM rate_limits WHERE key LIKE 'sign-in-%'");
  const [backoff] = await sql<{ n: string }>("SELECT count(*) AS n FROM sign_in_backoff");
  return [Number(limits!.n), Number(backoff!.n)];
};

describe("sign-in over HTTP", () => {
  it("refuses auth.signIn in a batch under every encoding of its path, and checks not one password", async () => {
    const guesses = Object.fromEntries(Array.from({ length: 10 }, (_, i) => [i, { json: { email: owner, password: `guess-${i}` } }]));
    const before = await countRows();
    const paths = [
      Array(10).fill("auth.signIn").join("%2C"),
      Array(10).fill("auth.signIn").join("%2c"),
      Array(10).fill("auth.signIn").join("%252C"),
      Array(10).fill("auth%2EsignIn").join(","),
      `${Array(9).fill("auth.signIn").join(",")},`,
      `auth.me,${Array(9).fill("AUTH.SIGNIN").join(",")}`,
      `${Array(10).fill("auth.signIn").join("%2C%20")}`,
    ];
    for (const path of paths) {
      for (const query of ["?batch=1", "?batch=%31", "?batch=1&batch=0"]) {
        const started = Date.now();
        const answer = await post(`${stack.nextUrl}/api/trpc/${path}${query}`, guesses, { address: floodAddress() });
        expect({ path, query, status: answer.status }).toEqual({ path, query, status: 400 });
        expect(answer.json()).toEqual({ error: { code: "bad_request", message: "auth.signIn cannot be batched: send it alone" } });
        // Refused before scrypt: ten password checks would take far longer.
        expect(Date.now() - started).toBeLessThan(1_000);
      }
    }
    expect(await countRows()).toEqual(before);
  });

  it("lets the owner in from their own address, with a Secure cookie, after a stranger's 50 wrong guesses from another", async () => {
    const stranger = floodAddress();
    const statuses: number[] = [];
    for (let i = 0; i < 50; i += 1) statuses.push((await signIn(owner, `stranger-guess-${i}`, stranger)).status);
    expect(statuses.slice(0, 5)).toEqual(Array(5).fill(401));
    expect(statuses.slice(5)).toEqual(Array(45).fill(429));
    // The stranger's address is held back even with the right password...
    expect((await signIn(owner, PASSWORD, stranger)).status).toBe(429);
    // ...and the owner, elsewhere, is not.
    const home = freshAddress();
    const signedIn = await signIn(owner, PASSWORD, home);
    expect(signedIn.status).toBe(200);
    const cookie = signedIn.headers.get("set-cookie")!;
    expect(cookie).toMatch(/^tally_session=[\w-]{43}; Path=\/; HttpOnly; SameSite=Lax; Secure; Expires=/);

    const session = cookie.split(";")[0]!;
    const me = await get(`${stack.nextUrl}/api/trpc/auth.me`, { Cookie: session });
    expect(me.status).toBe(200);
    expect(JSON.stringify(me.json())).toContain(owner);
    const signedOut = await post(`${stack.nextUrl}/api/trpc/auth.signOut`, {}, { address: home, headers: { Cookie: session } });
    expect(signedOut.status).toBe(200);
    expect(signedOut.headers.get("set-cookie")).toBe("tally_session=; Path=/; HttpOnly; SameSite=Lax; Secure; Max-Age=0");
  });
});

const PAGES = ["/", "/sign-in", "/docs", "/docs/ingest", "/dashboard", "/dashboard/campaigns", "/demo", "/no-such-page"];
const API = ["/api/health", "/api/metrics", "/api/trpc/auth.me", "/campaign/v2", "/ad/results/v2", "/report/v2/advertisers", "/v1/ads", "/sdk/tally.js"];

function expectEveryAnswerHeaders(answer: Answer, path: string): void {
  const headers = Object.fromEntries(
    ["x-content-type-options", "x-frame-options", "referrer-policy", "strict-transport-security"].map((name) => [name, answer.headers.get(name)]),
  );
  expect({ path, ...headers }).toEqual({
    path,
    "x-content-type-options": "nosniff",
    "x-frame-options": "DENY",
    "referrer-policy": "strict-origin-when-cross-origin",
    "strict-transport-security": "max-age=31536000; includeSubDomains",
  });
  expect(answer.headers.get("content-security-policy"), path).toContain("frame-ancestors 'none'");
}

describe("security headers", () => {
  it("are on every page, with a policy whose nonce is new each time and is the one on the page's scripts", async () => {
    for (const path of PAGES) {
      const answer = await get(`${stack.nextUrl}${path}`);
      expect([200, 307, 404], path).toContain(answer.status);
      expectEveryAnswerHeaders(answer, path);
      const policy = answer.headers.get("content-security-policy")!;
      const nonce = /'nonce-([A-Za-z0-9+/=]+)'/.exec(policy)?.[1];
      expect(nonce, path).toMatch(/^[A-Za-z0-9+/]{22}==$/);
      for (const directive of ["script-src 'self' 'nonce-", "'strict-dynamic'", "object-src 'none'", "base-uri 'self'", "form-action 'self'"])
        expect(policy, path).toContain(directive);
      expect(policy, path).not.toMatch(/script-src[^;]*'unsafe-(inline|eval)'/);
      if (answer.status !== 307) {
        const scripts = [...answer.text.matchAll(/<script\b[^>]*>/g)].map((match) => match[0]);
        expect(scripts.length, path).toBeGreaterThan(0);
        expect(
          scripts.filter((tag) => !tag.includes(`nonce="${nonce}"`)),
          path,
        ).toEqual([]);
      }
    }
    const [first, second] = await Promise.all([get(`${stack.nextUrl}/`), get(`${stack.nextUrl}/`)]);
    expect(first.headers.get("content-security-policy")).not.toBe(second.headers.get("content-security-policy"));
  });

  it("are on every API answer and file, whose policy lets nothing run; /v1 keeps its CORS and the SDK stays loadable from any page", async () => {
    for (const path of API) {
      const answer = await get(`${stack.nextUrl}${path}`);
      expectEveryAnswerHeaders(answer, path);
      expect(answer.headers.get("content-security-policy"), path).toBe("default-src 'none'; frame-ancestors 'none'; base-uri 'none'; form-action 'none'");
    }
    const sdk = await get(`${stack.nextUrl}/sdk/tally.js`, { "Sec-Fetch-Dest": "script", "Sec-Fetch-Site": "cross-site", Referer: "https://shop.example/" });
    expect(sdk.status).toBe(200);
    expect(sdk.headers.get("content-type")).toMatch(/^application\/javascript/);
    expect(sdk.headers.get("cross-origin-resource-policy")).toBeNull();
    expect(sdk.text).toContain("Tally");

    const ads = await post(
      `${stack.nextUrl}/v1/ads`,
      {
        publisher_id: "pub_demo_market",
        site: "demomarket.com",
        session_id: `s-${randomUUID()}`,
        context: "home",
        placements: [{ name: "slot", types: ["banner"] }],
      },
      { headers: { Origin: "https://shop.example" } },
    );
    expect(ads.status).toBe(200);
    expect(ads.headers.get("access-control-allow-origin")).toBe("https://shop.example");
    expect(ads.headers.get("access-control-allow-credentials")).toBe("true");
    expectEveryAnswerHeaders(ads, "/v1/ads");
  });

  it("include nosniff on the collector's answers too", async () => {
    const collector = HOSTS.find((host) => host.name === "collector")!;
    const session = `s-${randomUUID()}`;
    const ads = await post(`${collector.url}/v1/ads`, {
      publisher_id: "pub_demo_market",
      site: "demomarket.com",
      session_id: session,
      context: "home",
      placements: [{ name: "slot", types: ["banner"] }],
    });
    expect(ads.status).toBe(200);
    expect(ads.headers.get("x-content-type-options")).toBe("nosniff");
    const ad = (ads.json() as { ads: { slot: { impression_url: string }[] } }).ads.slot[0]!;
    const beacon = await post(ad.impression_url, { session_id: session });
    expect(beacon.status).toBe(202);
    expect(beacon.headers.get("x-content-type-options")).toBe("nosniff");
    expect((await get(`${collector.url}/v1/ads`)).headers.get("x-content-type-options")).toBe("nosniff");
  });
});

describe("GET /api/health", () => {
  it("tells the public ok or degraded and the store serving reports, nothing more; the lags and backlogs need the metrics token", async () => {
    const open = await get(`${stack.nextUrl}/api/health`);
    expect(open.status).toBe(200);
    expect(Object.keys(open.json() as object)).toEqual(["status", "store"]);
    expect(["ok", "degraded"]).toContain((open.json() as { status: string }).status);
    expect((open.json() as { store: string }).store).toBe("postgres");
    expect(open.text).not.toMatch(/backlog|lag|settle|database/);
    const wrong = await get(`${stack.nextUrl}/api/health`, { Authorization: `Bearer ${HOSTILE_ENV.TALLY_METRICS_TOKEN.slice(0, -1)}x` });
    expect(Object.keys(wrong.json() as object)).toEqual(["status", "store"]);
    const detailed = await get(`${stack.nextUrl}/api/health`, { Authorization: `Bearer ${HOSTILE_ENV.TALLY_METRICS_TOKEN}` });
    expect(detailed.json()).toMatchObject({
      database: "ok",
      lags: { settle_seconds: expect.any(Number), settle_backlog: expect.any(Number), attribution_backlog: expect.any(Number) },
    });
  });
});

describe("a path that is not valid percent-encoding", () => {
  const malformed = [
    "/v1/beacon/click/%E0%A4%A",
    "/v1/beacon/conversion%",
    "/v1/ads/%ZZ",
    "/api/trpc/%ZZ",
    "/api/health/%C0",
    "/campaign/%C0",
    "/report/v2/%FF",
  ];
  const pages = ["/dashboard/%", "/docs/%ZZ", "/demo/product/%E0%A4%A", "/%"];

  it("is a 400 with Tally's JSON error on every API path of both hosts, with CORS on /v1, whatever the method", async () => {
    for (const host of HOSTS) {
      const paths = host.name === "collector" ? malformed.filter((path) => path.startsWith("/v1/")) : malformed;
      for (const path of paths) {
        for (const method of ["GET", "POST"]) {
          const response = await fetch(`${host.url}${path}`, {
            method,
            headers: { "Content-Type": "application/json", Origin: "https://shop.example", "X-Forwarded-For": freshAddress(), "User-Agent": CHROME },
            body: method === "POST" ? "{}" : undefined,
          });
          expect({ host: host.name, path, method, status: response.status }).toEqual({ host: host.name, path, method, status: 400 });
          expect(await response.json()).toEqual({ error: { code: "bad_request", message: "the path is not valid percent-encoding" } });
          if (path.startsWith("/v1/")) expect(response.headers.get("access-control-allow-origin")).toBe("https://shop.example");
        }
      }
    }
  });

  it("is a plain 400 page elsewhere, under headers that let nothing run", async () => {
    for (const path of pages) {
      const answer = await get(`${stack.nextUrl}${path}`);
      expect({ path, status: answer.status }).toEqual({ path, status: 400 });
      expect(answer.headers.get("content-type")).toBe("text/html; charset=utf-8");
      expect(answer.text).toContain("<h1>Bad request</h1>");
      expectEveryAnswerHeaders(answer, path);
      expect(answer.headers.get("content-security-policy")).toBe("default-src 'none'; frame-ancestors 'none'; base-uri 'none'; form-action 'none'");
    }
  });
});

describe("after its batched and spread sign-in guesses and malformed paths", () => {
  it("a shopper's click and order are settled and attributed within 30 s, and health and the cron routes answer 200", async () => {
    await legitimateTrafficGoesThrough();
  });
});
