// POST /dashboard/table-file's limits as a person meets them: table files at once per person,
// per account and per process (429 with Retry-After while one is being written), table files a
// minute per person and per account (counted in Postgres, with the RateLimit fields), and a body
// refused by its declared length or its cells while it is still arriving; the same counts hold
// across two server processes on one database.
process.env.TALLY_TABLE_FILES_PER_USER = "1";
process.env.TALLY_TABLE_FILES_PER_ACCOUNT = "2";
process.env.TALLY_TABLE_FILES_PER_PROCESS = "3";
process.env.TALLY_TABLE_FILES_PER_MINUTE_PER_USER = "4";
process.env.TALLY_TABLE_FILES_PER_MINUTE_PER_ACCOUNT = "6";
process.env.TALLY_TABLE_FILE_MAX_CELLS = "1000";

import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createUser } from "@/server/accounts/create-user";
import { signIn } from "@/server/accounts/sessions";
import { metricsText } from "@/server/upkeep/prometheus";
import { makeAdvertiser } from "@/testing/fixtures";
import { type SecondServer, startReportServer } from "@/testing/second-server";
import { handleTableFile } from "./table-file-route";

let people = 0;

/** A signed-in member of `accountId` (a new one each call): their session cookie. */
async function person(accountId: string): Promise<string> {
  people += 1;
  const email = `person-${people}@table-file-limits.test`;
  await createUser({ email, name: `Person ${people}`, password: "correct horse battery", role: "member", accountId, memberRole: "viewer" });
  return `tally_session=${(await signIn(email, "correct horse battery")).token}`;
}

const HEAD = '{"format":"csv","name":"t","columns":[{"label":"A","kind":"integer"}],"rows":[';
const SMALL = `${HEAD}[1],[2]]}`;

const post = (cookie: string, body: BodyInit, headers: Record<string, string> = {}) =>
  handleTableFile(
    new Request("http://tally.test/dashboard/table-file", {
      method: "POST",
      headers: { "Content-Type": "application/json", Cookie: cookie, ...headers },
      body,
      duplex: "half",
    } as RequestInit),
  );

/** A post answered and its file taken whole, as a browser does: the slot is held until then. */
async function taken(cookie: string, body: string): Promise<Response> {
  const response = await post(cookie, body);
  await response.clone().arrayBuffer();
  return response;
}

/**
 * A post whose body arrives only when told: `reading` resolves once the route reads it (its slot
 * taken), `finish()` sends the rest. `pulls` counts the route's reads.
 */
function heldPost(cookie: string, first = HEAD, headers: Record<string, string> = {}) {
  const encoder = new TextEncoder();
  let release!: () => void;
  const released = new Promise<void>((resolve) => {
    release = resolve;
  });
  let reading!: () => void;
  const read = new Promise<void>((resolve) => {
    reading = resolve;
  });
  const state = { pulls: 0 };
  const body = new ReadableStream<Uint8Array>(
    {
      async pull(controller) {
        state.pulls += 1;
        if (state.pulls === 1) {
          controller.enqueue(encoder.encode(first));
          reading();
          return;
        }
        await released;
        controller.enqueue(encoder.encode("[1]]}"));
        controller.close();
      },
    },
    { highWaterMark: 0 },
  );
  return { answer: post(cookie, body, headers), reading: read, finish: release, state };
}

const errorOf = async (response: Response) => ((await response.json()) as { error: { code: string; message: string } }).error;
const refusals = async (reason: string) =>
  Number(new RegExp(`^tally_dashboard_refusals_total\\{work="table_file",reason="${reason}"\\} (\\d+)$`, "m").exec((await metricsText()).body)?.[1] ?? 0);

describe("POST /dashboard/table-file limits", () => {
  it("lets a person have one table file written at once, their account two and this process three, each past it a 429 with Retry-After", async () => {
    const account = (await makeAdvertiser()).id;
    const [first, second, third] = [await person(account), await person(account), await person(account)];
    const busyBefore = await refusals("user_busy");
    const writing = heldPost(first);
    await writing.reading;
    const again = await taken(first, SMALL);
    expect(again.status).toBe(429);
    expect(again.headers.get("retry-after")).toBe("2");
    expect(again.headers.get("ratelimit-policy")).toBe('"user-per-minute";q=4;w=60, "account-per-minute";q=6;w=60');
    expect(await errorOf(again)).toEqual({ code: "too_many_requests", message: "a table file of yours is already being written; at most 1 at once" });
    expect(await refusals("user_busy")).toBe(busyBefore + 1);

    const alongside = heldPost(second);
    await alongside.reading;
    const past = await taken(third, SMALL);
    expect(past.status).toBe(429);
    expect((await errorOf(past)).message).toMatch(/^this account's people already have 2 table files being written/);

    // A third account's table fills this process's three; a fourth account waits for one of them.
    const elsewhere = heldPost(await person((await makeAdvertiser()).id));
    await elsewhere.reading;
    const crowded = await post(await person((await makeAdvertiser()).id), SMALL);
    expect(crowded.status).toBe(429);
    expect((await errorOf(crowded)).message).toMatch(/^the server is writing as many table files as it may at once/);

    for (const held of [writing, alongside, elsewhere]) held.finish();
    for (const held of [writing, alongside, elsewhere]) {
      const done = await held.answer;
      expect(done.status).toBe(200);
      expect(await done.text()).toBe("A\r\n1\r\n");
    }
    // Every slot came back: the person and the account have theirs again.
    expect((await taken(first, SMALL)).status).toBe(200);
    expect((await taken(third, SMALL)).status).toBe(200);
  });

  it("counts table files a minute per person, then per account, in Postgres: the 429 says when and the fields what is left", async () => {
    const account = (await makeAdvertiser()).id;
    const [busy, colleague, late] = [await person(account), await person(account), await person(account)];
    const answers = [];
    for (let i = 0; i < 5; i += 1) answers.push(await taken(busy, SMALL));
    expect(answers.map((a) => a.status)).toEqual([200, 200, 200, 200, 429]);
    expect(answers.map((a) => /"user-per-minute";r=(\d+)/.exec(a.headers.get("ratelimit") ?? "")?.[1])).toEqual(["3", "2", "1", "0", "0"]);
    const wait = Number(answers[4]!.headers.get("retry-after"));
    expect(wait).toBeGreaterThanOrEqual(1);
    expect(wait).toBeLessThanOrEqual(60);
    expect((await errorOf(answers[4]!)).message).toBe("too many table files: you may make 4 a minute; retry after the wait in Retry-After");
    // The refused fifth never counted against the account: four of its six are spent.
    expect([(await taken(colleague, SMALL)).status, (await taken(colleague, SMALL)).status]).toEqual([200, 200]);
    const refused = await taken(late, SMALL);
    expect(refused.status).toBe(429);
    expect(refused.headers.get("ratelimit")).toMatch(/"account-per-minute";r=0;t=\d+$/);
    expect((await errorOf(refused)).message).toBe(
      "too many table files: this account's people together may make 6 a minute; retry after the wait in Retry-After",
    );
  });

  it("refuses a body by its declared length before reading it, and by its cells while it is still arriving", async () => {
    const account = (await makeAdvertiser()).id;
    const cookie = await person(account);
    const tooLargeBefore = await refusals("too_large");
    const declared = heldPost(cookie, HEAD, { "Content-Length": String(9 * 1024 * 1024) });
    const long = await declared.answer;
    expect(long.status).toBe(413);
    expect(declared.state.pulls).toBe(0);

    // 1,200 cells in the first chunk, and the body never ends: the 413 comes from the count alone.
    const cells = heldPost(cookie, `${HEAD}${Array.from({ length: 1200 }, (_, i) => `[${i}]`).join(",")},`);
    const wide = await cells.answer;
    expect(wide.status).toBe(413);
    expect(await errorOf(wide)).toEqual({
      code: "payload_too_large",
      message: "the table has more than 1000 cells (rows × columns); download fewer rows or columns at a time",
    });
    expect(cells.state.pulls).toBe(1);
    expect(await refusals("too_large")).toBe(tooLargeBefore + 2);
    // The refusal gave the slot back.
    expect((await taken(cookie, SMALL)).status).toBe(200);
  });

  describe("across two server processes on one database", () => {
    let second: SecondServer;
    beforeAll(async () => {
      second = await startReportServer();
    });
    afterAll(() => {
      second.child.kill();
    });

    const postThere = async (cookie: string, body: string) => {
      const response = await fetch(`${second.origin}/dashboard/table-file`, {
        method: "POST",
        headers: { "Content-Type": "application/json", Cookie: cookie },
        body,
      });
      await response.clone().arrayBuffer();
      return response;
    };

    it("counts one person's table files a minute the same whichever process answers", async () => {
      const account = (await makeAdvertiser()).id;
      const cookie = await person(account);
      const statuses: number[] = [];
      for (let i = 0; i < 6; i += 1) statuses.push(i % 2 ? (await postThere(cookie, SMALL)).status : (await taken(cookie, SMALL)).status);
      expect(statuses).toEqual([200, 200, 200, 200, 429, 429]);
    });

    it("refuses in the other process a second table file of a person whose first is being written here", async () => {
      const account = (await makeAdvertiser()).id;
      const cookie = await person(account);
      const writing = heldPost(cookie);
      await writing.reading;
      const there = await postThere(cookie, SMALL);
      expect(there.status).toBe(429);
      expect(there.headers.get("retry-after")).toBe("2");
      expect((await errorOf(there)).message).toMatch(/^a table file of yours is already being written/);
      writing.finish();
      const written = await writing.answer;
      expect(written.status).toBe(200);
      expect(await written.text()).toBe("A\r\n1\r\n");
      expect((await postThere(cookie, SMALL)).status).toBe(200);
    });
  });
});
