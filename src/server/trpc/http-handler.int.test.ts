// The dashboard's API over HTTP refuses what another site makes a signed-in user's browser send:
// Sec-Fetch-Site cross-site or same-site, or an Origin that is not the dashboard's own (as a
// proxy forwards it). Nothing such a request asks for happens; the dashboard's own requests work.
import { beforeAll, describe, expect, it } from "vitest";
import { createUser } from "@/server/accounts/create-user";
import { signIn } from "@/server/accounts/sessions";
import { db } from "@/server/db/client";
import { makeAdvertiser } from "@/testing/fixtures";
import { handleTrpcRequest } from "./http-handler";

const DASHBOARD = "http://localhost:3000";
const PASSWORD = "correct horse battery";
let token: string;
let advertiserId: string;
let advertiserName: string;

beforeAll(async () => {
  const advertiser = await makeAdvertiser({ dailyBudget: 100 });
  [advertiserId, advertiserName] = [advertiser.id, advertiser.name];
  await createUser({ email: "member@cross-site.test", name: "Member", password: PASSWORD, role: "member", accountId: advertiser.id });
  token = (await signIn("member@cross-site.test", PASSWORD)).token;
});

const budget = async () => (await db.account.findUniqueOrThrow({ where: { id: advertiserId }, select: { dailyBudgetMicros: true } })).dailyBudgetMicros;

/** accounts.setDailyBudget as the dashboard's client posts it (superjson: the input under `json`), with the given fetch metadata. */
const setBudget = (dailyBudget: number, headers: Record<string, string>, base = DASHBOARD) =>
  handleTrpcRequest(
    new Request(`${base}/api/trpc/accounts.setDailyBudget`, {
      method: "POST",
      headers: { Host: new URL(base).host, "Content-Type": "application/json", Cookie: `tally_session=${token}`, ...headers },
      body: JSON.stringify({ json: { accountId: advertiserId, dailyBudget } }),
    }),
  );

/** accounts.list as a browser would fetch it (a GET: same-origin GETs carry no Origin). */
const listAccounts = (headers: Record<string, string>) =>
  handleTrpcRequest(new Request(`${DASHBOARD}/api/trpc/accounts.list`, { headers: { Host: "localhost:3000", Cookie: `tally_session=${token}`, ...headers } }));

const FORBIDDEN = {
  error: { code: "forbidden", message: "the dashboard's session works only on the dashboard's own pages: this request came from another site" },
};

describe("tRPC with the session cookie from another site", () => {
  it("refuses a mutation with 403 and changes nothing", async () => {
    const before = await budget();
    expect(before).toBe(100_000_000n);
    const attempts: Record<string, string>[] = [
      { "Sec-Fetch-Site": "cross-site", Origin: "https://evil.example" },
      // A sibling subdomain is the same site, and SameSite=Lax cookies reach it: still refused.
      { "Sec-Fetch-Site": "same-site", Origin: "http://shop.localhost:3000" },
      { "Sec-Fetch-Site": "cross-site" },
      // A browser without fetch metadata still sends Origin on a POST.
      { Origin: "https://evil.example" },
      { Origin: "null" },
      { Origin: "https://localhost:3000" },
      { Origin: "http://localhost:3001" },
    ];
    for (const headers of attempts) {
      const response = await setBudget(7, headers);
      expect(response.status, JSON.stringify(headers)).toBe(403);
      expect(await response.json()).toEqual(FORBIDDEN);
    }
    expect(await budget()).toBe(before);
  });

  it("refuses a query with 403 and shows nothing of the account", async () => {
    const attempts: Record<string, string>[] = [{ "Sec-Fetch-Site": "cross-site" }, { "Sec-Fetch-Site": "same-site" }, { Origin: "https://evil.example" }];
    for (const headers of attempts) {
      const response = await listAccounts(headers);
      expect(response.status).toBe(403);
      const body = await response.text();
      expect(body).not.toContain(advertiserId);
      expect(body).not.toContain(advertiserName);
    }
  });

  it("refuses a sign-in sent from another site, so no page can sign a visitor into its own account", async () => {
    const sessions = await db.userSession.count();
    const response = await handleTrpcRequest(
      new Request(`${DASHBOARD}/api/trpc/auth.signIn`, {
        method: "POST",
        headers: { Host: "localhost:3000", "Content-Type": "application/json", "Sec-Fetch-Site": "cross-site", Origin: "https://evil.example" },
        body: JSON.stringify({ json: { email: "member@cross-site.test", password: PASSWORD } }),
      }),
    );
    expect(response.status).toBe(403);
    expect(response.headers.get("set-cookie")).toBeNull();
    expect(await db.userSession.count()).toBe(sessions);
  });
});

describe("tRPC from the dashboard itself", () => {
  it("answers the dashboard's own mutations and queries", async () => {
    const response = await setBudget(42, { "Sec-Fetch-Site": "same-origin", Origin: DASHBOARD });
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ result: { data: { json: { dailyBudget: 42 } } } });
    expect(await budget()).toBe(42_000_000n);

    const list = await listAccounts({ "Sec-Fetch-Site": "same-origin" });
    expect(list.status).toBe(200);
    expect((await list.json()).result.data.json).toEqual([expect.objectContaining({ id: advertiserId })]);
    // Programs (and old browsers) send neither header: the cookie decides alone.
    expect((await listAccounts({})).status).toBe(200);
  });

  it("knows its own origin behind a proxy from X-Forwarded-Host and -Proto", async () => {
    const proxied = (origin: string) =>
      setBudget(
        43,
        { Host: "10.0.0.5:3000", "X-Forwarded-Host": "tally.example.com", "X-Forwarded-Proto": "https", "Sec-Fetch-Site": "same-origin", Origin: origin },
        "http://10.0.0.5:3000",
      );
    expect((await proxied("https://tally.example.com")).status).toBe(200);
    expect(await budget()).toBe(43_000_000n);
    expect((await proxied("http://tally.example.com")).status).toBe(403);
    expect((await proxied("http://10.0.0.5:3000")).status).toBe(403);
    expect(await budget()).toBe(43_000_000n);
  });
});
