import { beforeAll, describe, expect, it } from "vitest";
import { createUser } from "@/server/accounts/create-user";
import { grantClientCredentials } from "@/server/accounts/oauth-tokens";
import { signIn, type Viewer } from "@/server/accounts/sessions";
import { db } from "@/server/db/client";
import { makeAdvertiser, makePublisher } from "@/testing/fixtures";
import { createCaller } from "../root";

let staff: Viewer;
let member: Viewer;
let ownId: string;
let otherId: string;
const as = (v: Viewer | null) => createCaller({ viewer: v });
const grant = (clientId: string, clientSecret: string) => grantClientCredentials({ clientId, clientSecret, scope: null });

beforeAll(async () => {
  ownId = (await makeAdvertiser()).id;
  otherId = (await makePublisher()).id;
  await createUser({ email: "staff@oauth.test", name: "Staff", password: "correct horse battery", role: "staff" });
  await createUser({ email: "brand@oauth.test", name: "Brand", password: "correct horse battery", role: "member", accountId: ownId });
  staff = (await signIn("staff@oauth.test", "correct horse battery")).viewer;
  member = (await signIn("brand@oauth.test", "correct horse battery")).viewer;
});

describe("oauthClients procedures", () => {
  it("create a client whose secret is shown once, list it without the secret, rotate and revoke it", async () => {
    const created = await as(member).oauthClients.create({ accountId: ownId, name: "Bid tool", scopes: ["reports:jobs", "reports:read", "reports:read"] });
    expect(created.id).toMatch(/^tlc_/);
    expect(created.secret).toMatch(/^tls_[A-Za-z0-9_-]{32}$/);
    expect(created.scopes).toEqual(["reports:read", "reports:jobs"]);
    expect(await grant(created.id, created.secret)).toMatchObject({ granted: true });

    const listed = await as(staff).oauthClients.list({ accountId: ownId });
    expect(listed).toEqual([expect.objectContaining({ id: created.id, name: "Bid tool", scopes: ["reports:read", "reports:jobs"], revokedAt: null })]);
    const stored = await db.oauthClient.findUniqueOrThrow({ where: { id: created.id } });
    for (const leak of [created.secret, created.secret.slice(4), stored.secretHash]) expect(JSON.stringify(listed)).not.toContain(leak);
    expect(JSON.stringify(stored)).not.toContain(created.secret);

    const rotated = await as(member).oauthClients.rotate({ accountId: ownId, clientId: created.id });
    expect(rotated.secret).not.toBe(created.secret);
    expect(await grant(created.id, created.secret)).toMatchObject({ granted: false, error: "invalid_client" });
    expect(await grant(created.id, rotated.secret)).toMatchObject({ granted: true });
    expect(JSON.stringify(await as(member).oauthClients.list({ accountId: ownId }))).not.toContain(rotated.secret);

    const revoked = await as(member).oauthClients.revoke({ accountId: ownId, clientId: created.id });
    expect(revoked.revokedAt).toBeInstanceOf(Date);
    expect(revoked).not.toHaveProperty("secret");
    expect(await grant(created.id, rotated.secret)).toMatchObject({ granted: false, error: "invalid_client" });
  });

  it("give nothing for another account's clients, and nothing signed out", async () => {
    const theirs = await as(staff).oauthClients.create({ accountId: otherId, name: "Theirs", scopes: ["reports:read"] });
    await expect(as(member).oauthClients.list({ accountId: otherId })).rejects.toMatchObject({ code: "NOT_FOUND" });
    await expect(as(member).oauthClients.create({ accountId: otherId, name: "x", scopes: ["reports:read"] })).rejects.toMatchObject({ code: "NOT_FOUND" });
    await expect(as(member).oauthClients.rotate({ accountId: otherId, clientId: theirs.id })).rejects.toMatchObject({ code: "NOT_FOUND" });
    await expect(as(member).oauthClients.revoke({ accountId: otherId, clientId: theirs.id })).rejects.toMatchObject({ code: "NOT_FOUND" });
    // Another account's client id under one's own account id: not found either.
    await expect(as(member).oauthClients.rotate({ accountId: ownId, clientId: theirs.id })).rejects.toMatchObject({ code: "NOT_FOUND" });
    await expect(as(member).oauthClients.revoke({ accountId: ownId, clientId: theirs.id })).rejects.toMatchObject({ code: "NOT_FOUND" });
    expect(await grant(theirs.id, theirs.secret)).toMatchObject({ granted: true });
    expect((await db.oauthClient.findUniqueOrThrow({ where: { id: theirs.id } })).revokedAt).toBeNull();

    await expect(as(null).oauthClients.list({ accountId: ownId })).rejects.toMatchObject({ code: "UNAUTHORIZED" });
    await expect(as(null).oauthClients.create({ accountId: ownId, name: "x", scopes: ["reports:read"] })).rejects.toMatchObject({ code: "UNAUTHORIZED" });
    await expect(as(staff).oauthClients.create({ accountId: ownId, name: " ", scopes: ["reports:read"] })).rejects.toMatchObject({ code: "BAD_REQUEST" });
    await expect(as(staff).oauthClients.create({ accountId: ownId, name: "none", scopes: [] })).rejects.toMatchObject({ code: "BAD_REQUEST" });
    await expect(as(staff).oauthClients.create({ accountId: ownId, name: "admin", scopes: ["reports:admin" as "reports:read"] })).rejects.toMatchObject({
      code: "BAD_REQUEST",
    });
  });
});
