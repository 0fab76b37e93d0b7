// The report routes with OAuth access tokens: a token reads its client's account only, needs the
// route's scope (403 insufficient_scope), stops when expired or revoked (401 invalid_token), counts
// as its client; API keys go on as before and hold every scope.
import { describe, expect, it } from "vitest";
import { OPERATOR } from "@/server/accounts/actor";
import { createApiKey } from "@/server/accounts/api-keys";
import { createOauthClient, type OauthScope, revokeOauthClient } from "@/server/accounts/oauth-clients";
import { db } from "@/server/db/client";
import { upkeep } from "@/server/upkeep/upkeep";
import {
  handleCampaignDetail,
  handleCampaignListing,
  handleCreateReportJob,
  handleGetReportJob,
  handleListReportJobs,
} from "@/testing/api/checked-report-routes";
import { makeAdvertiser, makeCampaignWithAd, makePublisher } from "@/testing/fixtures";
import { answerTokenRequest } from "./oauth-token";
import { reportRoute } from "./report-caller";

const HOUR_MS = 3_600_000;

async function clientOf(accountId: string, scopes: OauthScope[]) {
  return createOauthClient({ actor: OPERATOR, accountId, name: "warehouse", scopes });
}

/** A token for the client, issued at `now` (the token endpoint's clock). */
async function tokenOf(client: { id: string; secret: string }, now = new Date()): Promise<string> {
  const body = new URLSearchParams({ grant_type: "client_credentials", client_id: client.id, client_secret: client.secret }).toString();
  const request = new Request("http://localhost:3000/oauth/token", { method: "POST", headers: { "Content-Type": "application/x-www-form-urlencoded" }, body });
  const answer = await answerTokenRequest(request, now);
  expect(answer.status).toBe(200);
  return (JSON.parse(answer.body) as { access_token: string }).access_token;
}

const bearer = (credential: string) => ({ Authorization: `Bearer ${credential}` });
const listing = (headers: Record<string, string>) => handleCampaignListing(new Request("http://localhost:3000/campaign/v2", { headers }));
const detail = (campaignId: string, headers: Record<string, string>) =>
  handleCampaignDetail(new Request(`http://localhost:3000/campaign/${campaignId}`, { headers }));
const whoAsks = reportRoute(async (_request, caller, requester) => Response.json({ caller, requester }));
const jobsRoute = reportRoute(async (_request, caller) => Response.json({ account: caller.accountId }), { scope: "reports:jobs" });
const call = (route: (request: Request) => Promise<Response>, headers: Record<string, string>) => route(new Request("http://localhost:3000/x", { headers }));

describe("report routes with an OAuth access token", () => {
  it("read the client's account only: another account's campaign is 404 and its rows never listed", async () => {
    const [brandA, brandB, publisher] = [await makeAdvertiser(), await makeAdvertiser(), await makePublisher()];
    const { campaign: campaignA } = await makeCampaignWithAd({ advertiserId: brandA.id, publisherIds: [publisher.id] });
    const { campaign: campaignB } = await makeCampaignWithAd({ advertiserId: brandB.id, publisherIds: [publisher.id] });
    const token = await tokenOf(await clientOf(brandA.id, ["reports:read"]));

    const listed = await listing(bearer(token));
    expect(listed.status).toBe(200);
    const rows = ((await listed.json()) as { data: { campaign_id: string; advertiser_id: string }[] }).data;
    expect(rows.map((row) => row.campaign_id)).toEqual([campaignA.id]);
    expect(JSON.stringify(rows)).not.toContain(campaignB.id);
    const searched = await handleCampaignListing(new Request(`http://localhost:3000/campaign/v2?campaign_id=${campaignB.id}`, { headers: bearer(token) }));
    expect(((await searched.json()) as { data: unknown[] }).data).toEqual([]);

    expect((await detail(campaignA.id, bearer(token))).status).toBe(200);
    const theirs = await detail(campaignB.id, bearer(token));
    expect(theirs.status).toBe(404);
    expect(JSON.stringify(await theirs.json())).not.toContain(brandB.id);
  });

  it("count as their client, whichever token it is", async () => {
    const brand = await makeAdvertiser();
    const client = await clientOf(brand.id, ["reports:read"]);
    const [one, two] = [await tokenOf(client), await tokenOf(client)];
    expect(one).not.toBe(two);
    for (const token of [one, two]) {
      expect(await (await call(whoAsks, bearer(token))).json()).toEqual({
        caller: { accountId: brand.id, accountKind: "advertiser" },
        requester: { caller: `client:${client.id}`, account: brand.id },
      });
    }
  });

  it("need the route's scope: 403 insufficient_scope naming it, while API keys hold every scope", async () => {
    const brand = await makeAdvertiser();
    const jobsOnly = await tokenOf(await clientOf(brand.id, ["reports:jobs"]));
    const refused = await listing(bearer(jobsOnly));
    expect(refused.status).toBe(403);
    expect(refused.headers.get("www-authenticate")).toBe('Bearer realm="tally reports", error="insufficient_scope", scope="reports:read"');
    expect(await refused.json()).toEqual({ error: { code: "forbidden", message: "the access token lacks the scope reports:read" } });
    expect((await call(jobsRoute, bearer(jobsOnly))).status).toBe(200);

    const readOnly = await tokenOf(await clientOf(brand.id, ["reports:read"]));
    const noJobs = await call(jobsRoute, bearer(readOnly));
    expect(noJobs.status).toBe(403);
    expect(noJobs.headers.get("www-authenticate")).toBe('Bearer realm="tally reports", error="insufficient_scope", scope="reports:jobs"');

    // The report jobs' own routes ask for reports:jobs, reading as well as creating.
    const jobRequests = [
      () => handleCreateReportJob(new Request("http://localhost:3000/report/jobs", { method: "POST", headers: bearer(readOnly), body: "{}" })),
      () => handleListReportJobs(new Request("http://localhost:3000/report/jobs", { headers: bearer(readOnly) })),
      () => handleGetReportJob(new Request("http://localhost:3000/report/jobs/rjob_x", { headers: bearer(readOnly) })),
    ];
    for (const send of jobRequests) expect((await send()).headers.get("www-authenticate")).toContain('scope="reports:jobs"');
    const listedJobs = await handleListReportJobs(new Request("http://localhost:3000/report/jobs", { headers: bearer(jobsOnly) }));
    expect(listedJobs.status).toBe(200);

    const { key } = await createApiKey({ actor: OPERATOR, accountId: brand.id, name: "old way" });
    expect((await listing(bearer(key))).status).toBe(200);
    expect(await (await call(jobsRoute, bearer(key))).json()).toEqual({ account: brand.id });
  });

  it("answer 401 invalid_token to an unknown, expired or revoked token, and upkeep deletes expired ones", async () => {
    const brand = await makeAdvertiser();
    const client = await clientOf(brand.id, ["reports:read"]);
    const expired = await tokenOf(client, new Date(Date.now() - HOUR_MS - 1000));
    const live = await tokenOf(client);
    const unknown = `tat_${"A".repeat(43)}`;
    for (const token of [expired, unknown, `${live}x`]) {
      const answer = await listing(bearer(token));
      expect(answer.status, token).toBe(401);
      expect(answer.headers.get("www-authenticate")).toBe('Bearer realm="tally reports", error="invalid_token"');
      expect(await answer.json()).toEqual({
        error: { code: "unauthorized", message: "the access token is unknown, expired or revoked; get one from POST /oauth/token" },
      });
    }
    expect((await listing(bearer(live))).status).toBe(200);

    expect((await upkeep(new Date())).accessTokensDeleted).toBe(1);
    expect(await db.oauthAccessToken.count({ where: { clientId: client.id } })).toBe(1);

    await revokeOauthClient({ actor: OPERATOR, clientId: client.id });
    const revoked = await listing(bearer(live));
    expect(revoked.status).toBe(401);
    expect(revoked.headers.get("www-authenticate")).toBe('Bearer realm="tally reports", error="invalid_token"');
  });

  it("refuse a live token whose client was revoked by a path that left the token behind", async () => {
    const brand = await makeAdvertiser();
    const client = await clientOf(brand.id, ["reports:read"]);
    const token = await tokenOf(client);
    // Revocation deletes the tokens too; the check of the client on each use does not rely on it.
    await db.oauthClient.update({ where: { id: client.id }, data: { revokedAt: new Date() } });
    expect(await db.oauthAccessToken.count({ where: { clientId: client.id } })).toBe(1);
    expect((await listing(bearer(token))).status).toBe(401);
  });
});
