// POST /dashboard/table-file after a refusal for its rate: the same session is refused again from
// this process's memory, without its session being looked up, until the refusal's Retry-After has
// passed; other people, and values that were never refused, go on as before.
process.env.TALLY_TABLE_FILES_PER_MINUTE_PER_USER = "1";
process.env.TALLY_TABLE_FILES_PER_MINUTE_PER_ACCOUNT = "100";

import { createHash } from "node:crypto";
import { afterEach, describe, expect, it, vi } from "vitest";
import { createUser } from "@/server/accounts/create-user";
import { signIn } from "@/server/accounts/sessions";
import { db } from "@/server/db/client";
import { metricsText } from "@/server/upkeep/prometheus";
import { makeAdvertiser } from "@/testing/fixtures";
import { handleTableFile } from "./table-file-route";

let people = 0;

/** A signed-in member of `accountId` (a new one each call): their session token. */
async function person(accountId: string): Promise<string> {
  people += 1;
  const email = `person-${people}@table-file-refused.test`;
  await createUser({ email, name: `Person ${people}`, password: "correct horse battery", role: "member", accountId, memberRole: "viewer" });
  return (await signIn(email, "correct horse battery")).token;
}

const SMALL = '{"format":"csv","name":"t","columns":[{"label":"A","kind":"integer"}],"rows":[[1],[2]]}';

async function post(token: string): Promise<Response> {
  const response = await handleTableFile(
    new Request("http://tally.test/dashboard/table-file", {
      method: "POST",
      headers: { "Content-Type": "application/json", Cookie: `tally_session=${token}` },
      body: SMALL,
    }),
  );
  await response.clone().arrayBuffer();
  return response;
}

/** Ends the session in the database alone: only a request that looks it up can notice. */
const endSessionBehindTheProcess = (token: string) => db.userSession.deleteMany({ where: { tokenHash: createHash("sha256").update(token).digest("hex") } });

const userRateRefusals = async () =>
  Number(/^tally_dashboard_refusals_total\{work="table_file",reason="user_rate"\} (\d+)$/m.exec((await metricsText()).body)?.[1] ?? 0);

afterEach(() => {
  vi.useRealTimers();
});

describe("POST /dashboard/table-file after a refusal for its rate", () => {
  it("refuses the same session again from memory until Retry-After, serves another person meanwhile, and looks the session up again after", async () => {
    const account = (await makeAdvertiser()).id;
    const [flooder, colleague] = [await person(account), await person(account)];
    expect((await post(flooder)).status).toBe(200);
    const refused = await post(flooder);
    expect(refused.status).toBe(429);
    const wait = Number(refused.headers.get("retry-after"));
    expect(wait).toBeGreaterThanOrEqual(1);

    // With its session gone from the database, a lookup would answer 401: the 429 comes from memory.
    await endSessionBehindTheProcess(flooder);
    const counted = await userRateRefusals();
    const again = await post(flooder);
    expect(again.status).toBe(429);
    expect(Number(again.headers.get("retry-after"))).toBeLessThanOrEqual(wait);
    expect(again.headers.get("ratelimit")).toMatch(/^"user-per-minute";r=0;t=\d+/);
    expect(((await again.json()) as { error: { message: string } }).error.message).toBe(
      "too many table files: you may make 1 a minute; retry after the wait in Retry-After",
    );
    expect(await userRateRefusals()).toBe(counted + 1);

    expect((await post(colleague)).status).toBe(200);

    vi.useFakeTimers({ toFake: ["Date"] });
    vi.setSystemTime(Date.now() + (wait + 1) * 1000);
    expect((await post(flooder)).status).toBe(401);
  });

  it("never remembers a value that is not a signed-in session, and remembers the refused session, not the person's others", async () => {
    const account = (await makeAdvertiser()).id;
    const flooder = await person(account);
    expect((await post("not-a-session")).status).toBe(401);
    expect((await post(flooder)).status).toBe(200);
    expect((await post(flooder)).status).toBe(429);
    // The same person signed in elsewhere has a session of their own: it is counted, not remembered.
    const elsewhere = await signIn(`person-${people}@table-file-refused.test`, "correct horse battery");
    await endSessionBehindTheProcess(elsewhere.token);
    expect((await post(elsewhere.token)).status).toBe(401);
    expect((await post("not-a-session")).status).toBe(401);
  });
});
