import { describe, expect, it } from "vitest";
import { OPERATOR } from "@/server/accounts/actor";
import { createApiKey, revokeApiKey } from "@/server/accounts/api-keys";
import { createUser } from "@/server/accounts/create-user";
import { signIn, signOut } from "@/server/accounts/sessions";
import { TallyError } from "@/server/core/errors";
import { handleAdResults, handleCampaignDetail } from "@/testing/api/checked-report-routes";
import { makeAdvertiser, makeCampaignWithAd, makePublisher } from "@/testing/fixtures";
import { reportRoute } from "./report-caller";

const route = reportRoute(async (request, caller) => {
  if (new URL(request.url).searchParams.has("fail")) throw new TallyError("bad_request", "fail is not a parameter");
  return Response.json({ account: caller.accountId, kind: caller.accountKind });
});
const call = (headers: Record<string, string> = {}, query = "") => route(new Request(`http://tally.test/campaign/v2${query}`, { headers }));

describe("report routes' API key check", () => {
  it("passes the key's account to the report, and answers 401 with a challenge otherwise", async () => {
    const advertiser = await makeAdvertiser();
    const { key, id } = await createApiKey({ actor: OPERATOR, accountId: advertiser.id, name: "reports" });
    const ok = await call({ Authorization: `Bearer ${key}` });
    expect(ok.status).toBe(200);
    expect(await ok.json()).toEqual({ account: advertiser.id, kind: "advertiser" });

    const refused: Record<string, string>[] = [
      {},
      { Authorization: key },
      { Authorization: `Basic ${key}` },
      { Authorization: `Bearer ${key}x` },
      { Authorization: "Bearer " },
    ];
    for (const headers of refused) {
      const response = await call(headers);
      expect(response.status).toBe(401);
      expect(response.headers.get("www-authenticate")).toBe('Bearer realm="tally reports"');
      expect(await response.json()).toEqual({ error: { code: "unauthorized", message: "send a live API key as Authorization: Bearer <key>" } });
    }
    expect((await call({ Authorization: `Bearer ${key}` }, "?fail=1")).status).toBe(400);

    await revokeApiKey({ actor: OPERATOR, keyId: id });
    expect((await call({ Authorization: `Bearer ${key}` })).status).toBe(401);
  });
});

describe("report routes with the dashboard's session", () => {
  it("act as the member's account, or as staff over every account, and refuse a dead session", async () => {
    const advertiser = await makeAdvertiser();
    await createUser({ email: "member@reports.test", name: "Member", password: "correct horse battery", role: "member", accountId: advertiser.id });
    await createUser({ email: "staff@reports.test", name: "Staff", password: "correct horse battery", role: "staff" });
    const member = (await signIn("member@reports.test", "correct horse battery")).token;
    const staff = (await signIn("staff@reports.test", "correct horse battery")).token;

    expect(await (await call({ Cookie: `other=1; tally_session=${member}` })).json()).toEqual({ account: advertiser.id, kind: "advertiser" });
    expect(await (await call({ Cookie: `tally_session=${staff}` })).json()).toEqual({ account: null, kind: "staff" });
    // An Authorization header decides alone: a bad key is 401 even beside a live session.
    expect((await call({ Cookie: `tally_session=${staff}`, Authorization: "Bearer nope" })).status).toBe(401);
    expect((await call({ Cookie: `tally_session=${staff}x` })).status).toBe(401);
    await signOut(member);
    expect((await call({ Cookie: `tally_session=${member}` })).status).toBe(401);
  });
});

describe("report downloads with the dashboard's session from another site", () => {
  const XLSX = "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet";

  it("answer 403 to a cookie another site sent, the file to the dashboard and to a bookmark, and an API key from anywhere", async () => {
    const advertiser = await makeAdvertiser();
    const publisher = await makePublisher();
    const { campaign } = await makeCampaignWithAd({ advertiserId: advertiser.id, publisherIds: [publisher.id] });
    await createUser({ email: "downloads@reports.test", name: "Downloads", password: "correct horse battery", role: "member", accountId: advertiser.id });
    const session = (await signIn("downloads@reports.test", "correct horse battery")).token;
    const { key } = await createApiKey({ actor: OPERATOR, accountId: advertiser.id, name: "from anywhere" });
    const download = (headers: Record<string, string>) =>
      handleCampaignDetail(new Request(`http://localhost:3000/campaign/${campaign.id}?download=true`, { headers: { Host: "localhost:3000", ...headers } }));
    const results = (headers: Record<string, string>) =>
      handleAdResults(new Request("http://localhost:3000/ad/results/v2", { headers: { Host: "localhost:3000", ...headers } }));

    const fromElsewhere: Record<string, string>[] = [
      // A link on another site: SameSite=Lax sends the cookie on that navigation.
      { "Sec-Fetch-Site": "cross-site" },
      { "Sec-Fetch-Site": "same-site" },
      { Origin: "https://evil.example" },
      { "Sec-Fetch-Site": "same-origin", Origin: "https://evil.example" },
    ];
    for (const headers of fromElsewhere) {
      for (const answer of [
        await download({ Cookie: `tally_session=${session}`, ...headers }),
        await results({ Cookie: `tally_session=${session}`, ...headers }),
      ]) {
        expect(answer.status, JSON.stringify(headers)).toBe(403);
        expect(answer.headers.get("content-type")).not.toBe(XLSX);
        expect(await answer.json()).toMatchObject({ error: { code: "forbidden" } });
      }
    }

    // The dashboard's own link, a bookmark or a typed address, and a program without metadata.
    const fromTheDashboard: Record<string, string>[] = [
      { "Sec-Fetch-Site": "same-origin" },
      { "Sec-Fetch-Site": "none" },
      { "Sec-Fetch-Site": "same-origin", Origin: "http://localhost:3000" },
      {},
    ];
    for (const headers of fromTheDashboard) {
      const answer = await download({ Cookie: `tally_session=${session}`, ...headers });
      expect(answer.status, JSON.stringify(headers)).toBe(200);
      expect(answer.headers.get("content-type")).toBe(XLSX);
      expect((await answer.arrayBuffer()).byteLength).toBeGreaterThan(0);
    }
    const own = await results({ Cookie: `tally_session=${session}`, "Sec-Fetch-Site": "same-origin" });
    expect(own.status).toBe(200);
    expect((await own.json()).data).toEqual([expect.objectContaining({ campaign_id: campaign.id })]);

    // An API key is not a browser's ambient credential: it works from any site, cookie or not.
    for (const headers of fromElsewhere) {
      const answer = await download({ Authorization: `Bearer ${key}`, ...headers });
      expect(answer.status).toBe(200);
      expect(answer.headers.get("content-type")).toBe(XLSX);
      await answer.arrayBuffer();
      expect((await results({ Authorization: `Bearer ${key}`, Cookie: `tally_session=${session}`, ...headers })).status).toBe(200);
    }
  });
});
