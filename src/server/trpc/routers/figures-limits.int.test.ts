// The dashboard's figures over a date range count against their person's and account's figures a
// minute (Postgres), whatever procedure asks: past it TOO_MANY_REQUESTS, over HTTP a 429 with
// Retry-After; another person of the account still gets theirs.
process.env.TALLY_DASHBOARD_FIGURES_PER_MINUTE_PER_USER = "3";
process.env.TALLY_DASHBOARD_FIGURES_PER_MINUTE_PER_ACCOUNT = "5";

import { describe, expect, it } from "vitest";
import { createUser } from "@/server/accounts/create-user";
import { signIn } from "@/server/accounts/sessions";
import { makeAdvertiser } from "@/testing/fixtures";
import { handleTrpcRequest } from "../http-handler";
import { createCaller } from "../root";

const RANGE = { startDate: "2026-11-01", endDate: "2026-11-30" };

async function member(email: string, accountId: string) {
  await createUser({ email, name: email, password: "correct horse battery", role: "member", accountId, memberRole: "viewer" });
  return signIn(email, "correct horse battery");
}

const outcome = (call: Promise<unknown>) =>
  call.then(
    () => "ok",
    (error: { code?: string }) => error.code ?? "error",
  );

describe("the figures' limits", () => {
  it("refuse a person's fourth read in a minute, across procedures, and the account's sixth", async () => {
    const account = (await makeAdvertiser()).id;
    const first = createCaller({ viewer: (await member("first@figures-limits.test", account)).viewer });
    const second = createCaller({ viewer: (await member("second@figures-limits.test", account)).viewer });
    const firstReads = [
      await outcome(first.stats.overview(RANGE)),
      await outcome(first.campaigns.list(RANGE)),
      await outcome(first.stats.invalidTraffic(RANGE)),
      await outcome(first.stats.overview(RANGE)),
    ];
    expect(firstReads).toEqual(["ok", "ok", "ok", "TOO_MANY_REQUESTS"]);
    // The refused fourth did not count against the account: three of its five are spent.
    const secondReads = [await outcome(second.stats.overview(RANGE)), await outcome(second.stats.overview(RANGE)), await outcome(second.stats.overview(RANGE))];
    expect(secondReads).toEqual(["ok", "ok", "TOO_MANY_REQUESTS"]);
    const third = createCaller({ viewer: (await member("third@figures-limits.test", account)).viewer });
    await expect(third.stats.overview(RANGE)).rejects.toThrow(
      /^too many requests for the dashboard's figures: this account's people together may make 5 a minute/,
    );
  });

  it("answer 429 with Retry-After over HTTP, and leave the pipeline status, which reads no range and is staff's alone, out of the count", async () => {
    const account = (await makeAdvertiser()).id;
    const { token } = await member("http@figures-limits.test", account);
    const get = (path: string, input: unknown) =>
      handleTrpcRequest(
        new Request(`http://tally.test/api/trpc/${path}?input=${encodeURIComponent(JSON.stringify({ json: input }))}`, {
          headers: { Cookie: `tally_session=${token}` },
        }),
      );
    const statuses = [];
    for (let i = 0; i < 4; i += 1) statuses.push(await get("stats.overview", RANGE));
    expect(statuses.map((answer) => answer.status)).toEqual([200, 200, 200, 429]);
    const wait = Number(statuses[3]!.headers.get("retry-after"));
    expect(wait).toBeGreaterThanOrEqual(1);
    expect(wait).toBeLessThanOrEqual(60);
    expect(statuses[0]!.headers.get("retry-after")).toBeNull();
    // Where the person stands: the two quotas, and the person's, spent.
    expect(statuses[3]!.headers.get("ratelimit-policy")).toMatch(/^"user-per-minute";q=3;w=60, "account-per-minute";q=\d+;w=60$/);
    expect(statuses[3]!.headers.get("ratelimit")).toMatch(/^"user-per-minute";r=0;t=\d+$/);
    // Refused as the platform's (403), not as past the figures' limit (429).
    expect((await get("stats.pipeline", undefined)).status).toBe(403);
  });
});
