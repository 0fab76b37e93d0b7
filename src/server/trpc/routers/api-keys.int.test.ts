import { beforeAll, describe, expect, it } from "vitest";
import { authenticateApiKey } from "@/server/accounts/api-keys";
import { createUser } from "@/server/accounts/create-user";
import { signIn, type Viewer } from "@/server/accounts/sessions";
import { makeAdvertiser, makePublisher } from "@/testing/fixtures";
import { createCaller } from "../root";

let staff: Viewer;
let member: Viewer;
let ownId: string;
let otherId: string;
const as = (v: Viewer | null) => createCaller({ viewer: v });

beforeAll(async () => {
  ownId = (await makeAdvertiser()).id;
  otherId = (await makePublisher()).id;
  await createUser({ email: "staff@keys.test", name: "Staff", password: "correct horse battery", role: "staff" });
  await createUser({ email: "brand@keys.test", name: "Brand", password: "correct horse battery", role: "member", accountId: ownId });
  staff = (await signIn("staff@keys.test", "correct horse battery")).viewer;
  member = (await signIn("brand@keys.test", "correct horse battery")).viewer;
});

describe("apiKeys procedures", () => {
  it("create a key shown once, list prefixes only, and revoke, for the account's members and staff", async () => {
    const created = await as(member).apiKeys.create({ accountId: ownId, name: "Looker" });
    expect(created.key).toMatch(/^tly_/);
    expect(await authenticateApiKey(created.key)).toMatchObject({ accountId: ownId });
    const listed = await as(staff).apiKeys.list({ accountId: ownId });
    expect(listed.map((k) => k.prefix)).toEqual([created.key.slice(0, 10)]);
    expect(JSON.stringify(listed)).not.toContain(created.key);
    await as(member).apiKeys.revoke({ accountId: ownId, keyId: created.id });
    expect(await authenticateApiKey(created.key)).toBeNull();
  });

  it("give nothing for another account's keys, and nothing signed out", async () => {
    const theirs = await as(staff).apiKeys.create({ accountId: otherId, name: "Theirs" });
    await expect(as(member).apiKeys.list({ accountId: otherId })).rejects.toMatchObject({ code: "NOT_FOUND" });
    await expect(as(member).apiKeys.create({ accountId: otherId, name: "x" })).rejects.toMatchObject({ code: "NOT_FOUND" });
    await expect(as(member).apiKeys.revoke({ accountId: otherId, keyId: theirs.id })).rejects.toMatchObject({ code: "NOT_FOUND" });
    // A key id of another account under one's own account id: not found either.
    await expect(as(member).apiKeys.revoke({ accountId: ownId, keyId: theirs.id })).rejects.toMatchObject({ code: "NOT_FOUND" });
    expect(await authenticateApiKey(theirs.key)).not.toBeNull();
    await expect(as(null).apiKeys.list({ accountId: ownId })).rejects.toMatchObject({ code: "UNAUTHORIZED" });
    await expect(as(staff).apiKeys.create({ accountId: ownId, name: " " })).rejects.toMatchObject({ code: "BAD_REQUEST" });
  });
});
