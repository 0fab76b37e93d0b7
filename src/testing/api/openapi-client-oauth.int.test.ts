// The client generated from the API document (openapi-fetch over tally-api.d.ts) as an OAuth
// client uses it: a token from POST /oauth/token with HTTP Basic, every report route read with
// it, then a report job asked for, run, polled and its file downloaded; each answer of Tally
// checked against the document on the way (in-process-fetch.ts).
// A report rate high enough never to refuse, so the report answers carry their RateLimit fields.
process.env.TALLY_REPORT_RATE_PER_SECOND = "1000";

import createClient from "openapi-fetch";
import { beforeAll, describe, expect, it } from "vitest";
import { OPERATOR } from "@/server/accounts/actor";
import { createOauthClient, type OauthScope } from "@/server/accounts/oauth-clients";
import { runReportJobs } from "@/server/pipeline/report/jobs/run-report-jobs";
import { seedAcme, seedNetworkImpression } from "@/testing/report-fixture";
import { inJsonTerms, jsonLinesRows, reportJobBucketForTests } from "@/testing/report-job-bucket";
import { inProcessFetch } from "./in-process-fetch";
import type { paths } from "./tally-api";

const jobsBucket = await reportJobBucketForTests();
const client = createClient<paths, `${string}/json`>({ baseUrl: "http://tally.test", fetch: inProcessFetch });
// The token endpoint takes a form, which the JSON-only client above does not type.
const tokenClient = createClient<paths>({ baseUrl: "http://tally.test", fetch: inProcessFetch });
const range = { start_date: "2026-11-01", end_date: "2026-11-30" };
const bearer = (token: string) => ({ Authorization: `Bearer ${token}` });
const basic = (id: string, secret: string) => `Basic ${Buffer.from(`${encodeURIComponent(id)}:${encodeURIComponent(secret)}`).toString("base64")}`;
const form = (body: Record<string, string>) => new URLSearchParams(body).toString();

let acme: Awaited<ReturnType<typeof seedAcme>>;
let networkId: string;

/** A client of the account, and the token it gets from POST /oauth/token through the generated client. */
async function tokenFor(accountId: string, scopes: OauthScope[]): Promise<string> {
  const oauthClient = await createOauthClient({ actor: OPERATOR, accountId, name: "report reader", scopes });
  const { data, response } = await tokenClient.POST("/oauth/token", {
    body: { grant_type: "client_credentials", scope: scopes.join(" ") },
    bodySerializer: form,
    headers: { Authorization: basic(oauthClient.id, oauthClient.secret), "Content-Type": "application/x-www-form-urlencoded" },
  });
  expect(response.status).toBe(200);
  expect(response.headers.get("cache-control")).toBe("no-store");
  expect(response.headers.get("ratelimit-policy")).toMatch(/^"token-requests";q=\d+;w=60, "token-failures";q=\d+;w=900, "client-failures";q=\d+;w=900$/);
  expect(response.headers.get("ratelimit")).toMatch(/^"token-requests";r=\d+;t=\d+$/);
  expect(data).toMatchObject({ token_type: "Bearer", scope: scopes.join(" ") });
  expect(data?.expires_in).toBeGreaterThan(0);
  return data!.access_token;
}

beforeAll(async () => {
  acme = await seedAcme();
  networkId = (await seedNetworkImpression()).networkId;
});

describe("a generated client with an OAuth token", () => {
  it("reads every report route with a token from POST /oauth/token", async () => {
    const headers = bearer(await tokenFor(acme.acmeId, ["reports:read"]));
    const campaigns = await client.GET("/campaign/v2", { params: { query: range }, headers });
    expect(campaigns.data?.data.map((row) => row.campaign_id).sort()).toEqual([acme.cpc.campaign.id, acme.cpm.campaign.id].sort());
    expect(campaigns.response.headers.get("ratelimit")).toMatch(/^"per-second";r=\d+;t=\d+/);
    const one = await client.GET("/campaign/{id}", { params: { path: { id: acme.cpc.campaign.id }, query: range }, headers });
    expect(one.data?.data).toMatchObject({ campaign_id: acme.cpc.campaign.id, clicks_total: 2 });
    const ads = await client.GET("/ad/results/v2", { params: { query: { ...range, campaign_id: acme.cpc.campaign.id } }, headers });
    expect(ads.data?.data.map((row) => row.ad_id)).toEqual([acme.cpc.ad.id]);
    const campaignDays = await client.GET("/report/advertisers/campaigns-detailed", { params: { query: range }, headers });
    expect(campaignDays.data?.data.length).toBeGreaterThan(0);
    const adDays = await client.GET("/report/advertisers/ads-detailed", { params: { query: range }, headers });
    expect(adDays.data?.data.find((row) => row.ad_id === acme.cpc.ad.id)).toMatchObject({ impressions_total: 5, clicks_total: 2 });

    const shop = bearer(await tokenFor(acme.shopAId, ["reports:read"]));
    const advertisers = await client.GET("/report/v2/advertisers", { params: { query: range }, headers: shop });
    expect(advertisers.data?.data.map((row) => row.advertiser_id).sort()).toEqual([acme.acmeId, acme.otherId].sort());
    const publishers = await client.GET("/report/v2/publishers", { params: { query: range }, headers: shop });
    expect(publishers.data?.data).toEqual([expect.objectContaining({ publisher_id: acme.shopAId, impressions_total: 7 })]);

    const network = bearer(await tokenFor(networkId, ["reports:read"]));
    const subs = await client.GET("/report/network/publishers", { params: { query: range }, headers: network });
    expect(subs.data?.data[0]).toMatchObject({ impressions_total: 1 });

    // A reports:read token may not ask for a job: 403 naming the scope it lacks.
    const refused = await client.POST("/report/jobs", { body: { report: "campaigns", ...range, format: "jsonl" }, headers });
    expect(refused.response.status).toBe(403);
    expect(refused.response.headers.get("www-authenticate")).toContain('scope="reports:jobs"');
  });

  it("asks for a report job, polls it until done, and downloads the JSON route's rows", async () => {
    const headers = bearer(await tokenFor(acme.acmeId, ["reports:read", "reports:jobs"]));
    const asked = await client.POST("/report/jobs", { body: { report: "campaigns", ...range, order_by: "name", order: "asc", format: "jsonl" }, headers });
    expect(asked.response.status).toBe(202);
    const id = asked.data!.data.id;
    expect(asked.response.headers.get("location")).toBe(`/report/jobs/${id}`);
    expect(asked.data?.data).toMatchObject({ status: "queued", report: "campaigns", format: "jsonl", order_by: "name" });

    const listed = await client.GET("/report/jobs", { params: { query: { per_page: 10 } }, headers });
    expect(listed.data?.data.map((job) => job.id)).toContain(id);
    expect(listed.data?.per_page).toBe(10);

    await runReportJobs({ settings: { partBytes: 5 * 1024 * 1024 } });
    let job = (await client.GET("/report/jobs/{id}", { params: { path: { id } }, headers })).data?.data;
    for (let polls = 0; job && job.status !== "done" && job.status !== "failed" && polls < 20; polls += 1) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      job = (await client.GET("/report/jobs/{id}", { params: { path: { id } }, headers })).data?.data;
    }
    expect(job).toMatchObject({ id, status: "done", rows: 2, error: null });

    const file = await jobsBucket.fetchFile(job!.download_url!);
    expect(job?.bytes).toBe(file.bytes.byteLength);
    const route = await client.GET("/campaign/v2", { params: { query: { ...range, order_by: "name", order: "asc", per_page: 1000 } }, headers });
    expect(inJsonTerms(await jsonLinesRows(file.file))).toEqual(route.data?.data);

    const unknown = await client.GET("/report/jobs/{id}", { params: { path: { id: "rjob_none" } }, headers });
    expect(unknown.response.status).toBe(404);
  });

  it("gets OAuth's own errors from the token endpoint", async () => {
    const oauthClient = await createOauthClient({ actor: OPERATOR, accountId: acme.acmeId, name: "wrong secret", scopes: ["reports:read"] });
    const wrong = await tokenClient.POST("/oauth/token", {
      body: { grant_type: "client_credentials" },
      bodySerializer: form,
      headers: { Authorization: basic(oauthClient.id, "not-the-secret"), "Content-Type": "application/x-www-form-urlencoded" },
    });
    expect(wrong.response.status).toBe(401);
    expect(wrong.error).toEqual({ error: "invalid_client", error_description: expect.any(String) });

    const scope = await tokenClient.POST("/oauth/token", {
      body: { grant_type: "client_credentials", scope: "reports:jobs", client_id: oauthClient.id, client_secret: oauthClient.secret },
      bodySerializer: form,
      headers: { "Content-Type": "application/x-www-form-urlencoded" },
    });
    expect(scope.response.status).toBe(400);
    expect(scope.error?.error).toBe("invalid_scope");
  });
});
