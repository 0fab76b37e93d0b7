import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { LOCAL_S3_CREDENTIALS, type LocalS3, startLocalS3 } from "@/cli/local/local-s3";
import { createUser } from "@/server/accounts/create-user";
import { signIn, type Viewer, viewerOfSession } from "@/server/accounts/sessions";
import { db } from "@/server/db/client";
import { SECRET_MASK } from "@/server/pipeline/export/destinations/destination-input";
import { makeAdvertiser, makePublisher } from "@/testing/fixtures";
import { createCaller } from "../root";

const dir = mkdtempSync(path.join(tmpdir(), "tally-trpc-s3-"));
let s3: LocalS3;
let staff: Viewer;
let memberA: Viewer;
let memberB: Viewer;
let accountA: string;
let accountB: string;
const SECRET = "trpc-test-secret-never-shown";

async function viewer(email: string, role: "staff" | "member", accountId?: string): Promise<Viewer> {
  await createUser({ email, name: email, password: "correct horse battery", role, accountId });
  return (await signIn(email, "correct horse battery")).viewer;
}
const as = (v: Viewer | null) => createCaller({ viewer: v });
const input = (accountId: string, overrides: object = {}) => ({
  accountId,
  name: "Lake",
  bucket: "trpc-bucket",
  region: "us-east-1",
  endpoint: s3.endpoint,
  forcePathStyle: true,
  prefix: "tally",
  credentials: { kind: "access_key" as const, accessKeyId: LOCAL_S3_CREDENTIALS.accessKeyId, secretAccessKey: SECRET },
  types: ["advertisers" as const, "ad_events" as const],
  ...overrides,
});

beforeAll(async () => {
  s3 = await startLocalS3({ directory: dir, buckets: ["trpc-bucket"] });
  accountA = (await makePublisher()).id;
  accountB = (await makeAdvertiser()).id;
  staff = await viewer("manager@tally.test", "staff");
  memberA = await viewer("a@shop.test", "member", accountA);
  memberB = await viewer("b@brand.test", "member", accountB);
});
afterAll(async () => {
  await s3.stop();
  rmSync(dir, { recursive: true, force: true });
});

describe("sessions", () => {
  it("sign in with the right password only, and resolve the cookie's token to the user", async () => {
    await expect(signIn("a@shop.test", "wrong password!")).rejects.toThrow("the e-mail or the password is wrong");
    await expect(signIn("nobody@shop.test", "correct horse battery")).rejects.toThrow("the e-mail or the password is wrong");
    const { token } = await signIn("A@Shop.test ", "correct horse battery");
    expect(await viewerOfSession(token)).toMatchObject({ email: "a@shop.test", role: "member", accountId: accountA });
    expect(await viewerOfSession(`${token}x`)).toBeNull();
    const stored = await db.userSession.findMany({ where: { userId: memberA.userId } });
    expect(stored.every((s) => s.tokenHash !== token && s.tokenHash.length === 64)).toBe(true);
    await as(await viewerOfSession(token))
      .auth.me()
      .then((me) => expect(me?.email).toBe("a@shop.test"));
    await createCaller({ viewer: memberA, sessionToken: token }).auth.signOut();
    expect(await viewerOfSession(token)).toBeNull();
  });
});

describe("exportDestinations procedures", () => {
  it("let staff and the account's members manage its destinations, and nobody else", async () => {
    await expect(as(null).exportDestinations.list()).rejects.toMatchObject({ code: "UNAUTHORIZED" });
    await expect(as(null).exportDestinations.create(input(accountA))).rejects.toMatchObject({ code: "UNAUTHORIZED" });

    const created = await as(memberA).exportDestinations.create(input(accountA));
    expect(created.credentials).toEqual({ kind: "access_key", accessKeyId: LOCAL_S3_CREDENTIALS.accessKeyId, secretAccessKey: SECRET_MASK });
    const byStaff = await as(staff).exportDestinations.create(input(accountB, { name: "Brand lake" }));

    // A member creating for another account, or reaching another account's destination by id, gets nothing.
    await expect(as(memberB).exportDestinations.create(input(accountA))).rejects.toMatchObject({ code: "NOT_FOUND" });
    for (const call of [
      () => as(memberB).exportDestinations.get({ id: created.id }),
      () => as(memberB).exportDestinations.update({ id: created.id, destination: input(accountA) }),
      () => as(memberB).exportDestinations.delete({ id: created.id }),
      () => as(memberB).exportDestinations.testConnection({ id: created.id }),
      () => as(memberB).exportDestinations.runNow({ id: created.id }),
      () => as(memberB).exportDestinations.runs({ id: created.id }),
      () => as(memberA).exportDestinations.get({ id: "dst_unknown" }),
    ]) {
      await expect(call()).rejects.toMatchObject({ code: "NOT_FOUND" });
    }
    // Moving a destination to another account is refused too.
    await expect(as(memberA).exportDestinations.update({ id: created.id, destination: input(accountB) })).rejects.toMatchObject({ code: "NOT_FOUND" });
    await expect(as(memberB).exportDestinations.list({ accountId: accountA })).rejects.toMatchObject({ code: "NOT_FOUND" });

    expect((await as(memberA).exportDestinations.list()).map((d) => d.id)).toEqual([created.id]);
    expect((await as(memberB).exportDestinations.list()).map((d) => d.id)).toEqual([byStaff.id]);
    expect((await as(staff).exportDestinations.list()).map((d) => d.id)).toEqual(expect.arrayContaining([created.id, byStaff.id]));
    expect((await as(staff).exportDestinations.list({ accountId: accountA })).map((d) => d.id)).toEqual([created.id]);
  });

  it("test the connection, run now and show the history, never with the secret", async () => {
    const unknownKey = { kind: "access_key" as const, accessKeyId: "AKIDUNKNOWN", secretAccessKey: SECRET };
    const destination = await as(memberA).exportDestinations.create(input(accountA, { name: "Run now", credentials: unknownKey }));
    // The local S3 knows one key id: the test says in words that this one is refused.
    expect(await as(memberA).exportDestinations.testConnection({ id: destination.id })).toEqual({
      ok: false,
      error: "access denied: the credentials may not write to bucket trpc-bucket (InvalidAccessKeyId)",
    });
    // The form sends the view back, secret masked, with the right key id: the stored secret stays.
    const view = await as(memberA).exportDestinations.get({ id: destination.id });
    expect(view.credentials).toEqual({ kind: "access_key", accessKeyId: "AKIDUNKNOWN", secretAccessKey: SECRET_MASK });
    await as(memberA).exportDestinations.update({
      id: destination.id,
      destination: {
        ...input(accountA, { name: "Run now" }),
        credentials: { kind: "access_key", accessKeyId: LOCAL_S3_CREDENTIALS.accessKeyId, secretAccessKey: SECRET_MASK },
      },
    });
    const stored = await db.exportDestination.findUniqueOrThrow({ where: { id: destination.id } });
    expect(stored.secretCiphertext).not.toBeNull();
    expect(await as(memberA).exportDestinations.testConnection({ id: destination.id })).toMatchObject({ ok: true });

    // Made yesterday: run now delivers today's events so far and yesterday's aggregates.
    await db.exportDestination.update({ where: { id: destination.id }, data: { createdAt: new Date(Date.now() - 86_400_000) } });
    const { runs } = await as(memberA).exportDestinations.runNow({ id: destination.id });
    expect(runs.length).toBeGreaterThanOrEqual(2);
    expect(runs.every((r) => r.status === "succeeded")).toBe(true);
    const history = await as(staff).exportDestinations.runs({ id: destination.id });
    expect(history.map((r) => r.id).sort()).toEqual(runs.map((r) => r.runId).sort());
    expect(history.find((r) => r.type === "advertisers")).toMatchObject({ status: "succeeded", files: 1, error: null });
    for (const payload of [history, await as(staff).exportDestinations.list(), runs]) {
      expect(JSON.stringify(payload)).not.toContain(SECRET);
    }
    await as(staff).exportDestinations.delete({ id: destination.id });
    await expect(as(staff).exportDestinations.get({ id: destination.id })).rejects.toMatchObject({ code: "NOT_FOUND" });
  });

  it("give a role destination an external id Tally generated, shown to the account and kept by updates", async () => {
    const roleArn = "arn:aws:iam::123456789012:role/tally-export";
    const role = { kind: "assume_role" as const, roleArn };
    const created = await as(memberA).exportDestinations.create(input(accountA, { name: "Role lake", credentials: role }));
    expect(created.credentials).toEqual({ kind: "assume_role", roleArn, externalId: expect.stringMatching(/^tally-[0-9a-f]{32}$/) });
    const externalId = (created.credentials as { externalId: string }).externalId;
    expect((await as(memberA).exportDestinations.get({ id: created.id })).credentials).toEqual(created.credentials);
    const updated = await as(memberA).exportDestinations.update({ id: created.id, destination: input(accountA, { name: "Renamed", credentials: role }) });
    expect(updated).toMatchObject({ name: "Renamed", credentials: { kind: "assume_role", roleArn, externalId } });

    // The input takes no external id: over HTTP (superjson: the input and the error under `json`), the field is named in words.
    const { appRouter } = await import("../root");
    const { fetchRequestHandler } = await import("@trpc/server/adapters/fetch");
    const response = await fetchRequestHandler({
      endpoint: "/api/trpc",
      router: appRouter,
      createContext: () => ({ viewer: memberA }),
      req: new Request("http://tally.test/api/trpc/exportDestinations.create", {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ json: input(accountA, { credentials: { ...role, externalId: "chosen-by-tenant" } }) }),
      }),
    });
    expect(response.status).toBe(400);
    expect(((await response.json()) as { error: { json: { message: string } } }).error.json.message).toBe(
      "credentials.externalId is generated by Tally and cannot be set: leave it out",
    );
    expect(await db.exportDestination.count({ where: { externalId: "chosen-by-tenant" } })).toBe(0);
    await as(staff).exportDestinations.delete({ id: created.id });
  });

  it("refuse malformed settings naming the field", async () => {
    await expect(as(staff).exportDestinations.create(input(accountA, { bucket: "Not A Bucket" }))).rejects.toMatchObject({ code: "BAD_REQUEST" });
    // Over HTTP the message names the field in words (the error formatter), not zod's JSON.
    const { appRouter } = await import("../root");
    const { fetchRequestHandler } = await import("@trpc/server/adapters/fetch");
    const response = await fetchRequestHandler({
      endpoint: "/api/trpc",
      router: appRouter,
      createContext: () => ({ viewer: staff }),
      req: new Request("http://tally.test/api/trpc/exportDestinations.create", {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ json: input(accountA, { bucket: "Not A Bucket", region: "Mars" }) }),
      }),
    });
    expect(response.status).toBe(400);
    expect(((await response.json()) as { error: { json: { message: string } } }).error.json.message).toBe(
      "bucket must be an S3 bucket name (3-63 lower-case letters, digits, dots, hyphens); region must be a region such as us-east-1",
    );
    expect(await db.exportDestination.count({ where: { bucket: "Not A Bucket" } })).toBe(0);
  });
});
