// An account's team end to end through the dashboard's procedures: an account manager invites,
// the link's holder accepts and is signed in to their account only; links that are used,
// revoked, expired or unknown make nothing; a viewer changes nothing; a role change holds from the
// next request and a removal signs out at once; each change is in the activity log.
import { readFile } from "node:fs/promises";
import { beforeAll, describe, expect, it } from "vitest";
import { OPERATOR } from "@/server/accounts/actor";
import { createUser } from "@/server/accounts/create-user";
import { listActivity } from "@/server/accounts/list-activity";
import { signIn, type Viewer, viewerOfSession } from "@/server/accounts/sessions";
import { DAY_MS } from "@/server/core/days";
import { db } from "@/server/db/client";
import { pgPool } from "@/server/db/pg-pool";
import { createCaller } from "@/server/trpc/root";
import { makeAdvertiser, makePublisher } from "@/testing/fixtures";
import { acceptInvitation, inviteUser } from "./invitations";

const PASSWORD = "correct horse battery";
let staff: Viewer;
let brandId: string;
let shopId: string;
const as = (viewer: Viewer | null, cookies: (string | null)[] = []) =>
  createCaller({ viewer, origin: "https://tally.test", setSessionCookie: (token) => cookies.push(token) });
const tokenOf = (link: string) => link.slice(link.lastIndexOf("/") + 1);

beforeAll(async () => {
  await createUser({ email: "staff@teams.test", name: "Staff", password: PASSWORD, role: "staff" });
  staff = (await signIn("staff@teams.test", PASSWORD)).viewer;
  brandId = (await makeAdvertiser()).id;
  shopId = (await makePublisher()).id;
});

async function invite(email: string, role: "admin" | "viewer", accountId = brandId) {
  const answer = await as(staff).teams.invite({ accountId, email, role });
  expect(answer.mailed).toBe(false);
  expect(answer.link).toMatch(/^https:\/\/tally\.test\/invite\/[A-Za-z0-9_-]{43}$/);
  return tokenOf(answer.link!);
}

async function join(token: string, email: string) {
  const cookies: (string | null)[] = [];
  const viewer = await as(null, cookies).teams.accept({ token, name: `Name of ${email}`, password: PASSWORD, passwordAgain: PASSWORD });
  return { viewer, session: cookies[0]! };
}

describe("an invitation", () => {
  it("makes a member of the account who is signed in and sees only that account", async () => {
    const token = await invite("  Ada@Brand.Test ", "admin");
    const stored = await db.userInvitation.findFirstOrThrow({ where: { email: "ada@brand.test" } });
    expect(stored.tokenHash).toHaveLength(64);
    expect(stored.tokenHash).not.toContain(token);
    expect(stored.expiresAt.getTime() - stored.createdAt.getTime()).toBe(7 * DAY_MS);
    expect(stored.invitedBy).toBe(staff.userId);

    const { viewer, session } = await join(token, "ada@brand.test");
    expect(viewer).toMatchObject({ role: "member", accountId: brandId, memberRole: "admin", email: "ada@brand.test" });
    expect(await viewerOfSession(session)).toMatchObject({ userId: viewer.userId, accountId: brandId });
    expect((await signIn("ada@brand.test", PASSWORD)).viewer.userId).toBe(viewer.userId);
    expect((await as(viewer).accounts.list()).map((a) => a.id)).toEqual([brandId]);
    await expect(as(viewer).accounts.get({ id: shopId })).rejects.toMatchObject({ code: "NOT_FOUND" });

    const team = await as(viewer).teams.list({ accountId: brandId });
    expect(team.users).toEqual([expect.objectContaining({ email: "ada@brand.test", role: "admin" })]);
    expect(team.invitations).toEqual([]);
    await expect(as(viewer).teams.list({ accountId: shopId })).rejects.toMatchObject({ code: "NOT_FOUND" });
    await expect(as(viewer).teams.invite({ accountId: shopId, email: "friend@brand.test", role: "admin" })).rejects.toMatchObject({ code: "NOT_FOUND" });

    const entries = (await listActivity({ actor: OPERATOR, actionPrefix: "user." })).entries;
    expect(entries.map((e) => e.action)).toEqual(expect.arrayContaining(["user.invited", "user.joined"]));
    expect(entries.find((e) => e.action === "user.joined")).toMatchObject({ accountId: brandId, after: { email: "ada@brand.test", role: "admin" } });
    expect(entries.find((e) => e.action === "user.invited")).toMatchObject({
      actor: "Staff <staff@teams.test>",
      after: { email: "ada@brand.test", role: "admin" },
    });
  });

  it("works once; a revoked, expired, mistyped or unknown link makes nothing and says only that it is invalid or expired", async () => {
    const used = await invite("once@shop.test", "viewer", shopId);
    await join(used, "once@shop.test");

    const revoked = await invite("revoked@shop.test", "viewer", shopId);
    const open = await as(staff).teams.list({ accountId: shopId });
    const pending = open.invitations.find((i) => i.email === "revoked@shop.test")!;
    expect(pending).toMatchObject({ role: "viewer" });
    await as(staff).teams.revokeInvitation({ invitationId: pending.id });
    expect((await as(staff).teams.list({ accountId: shopId })).invitations).toEqual([]);

    const late = await inviteUser({ actor: OPERATOR, accountId: shopId, email: "late@shop.test", role: "admin" }, new Date(Date.now() - 8 * DAY_MS));

    const users = await db.user.count();
    for (const token of [used, revoked, tokenOf(late.link), "A".repeat(43), "short", `${used}x`]) {
      await expect(join(token, "anyone")).rejects.toMatchObject({
        code: "NOT_FOUND",
        message: "this invitation link is invalid or has expired; ask whoever invited you for a new one",
      });
    }
    expect(await db.user.count()).toBe(users);
    expect(await db.user.count({ where: { email: { in: ["revoked@shop.test", "late@shop.test"] } } })).toBe(0);
    const revokedEntry = (await listActivity({ actor: OPERATOR, actionPrefix: "user.invitation.revoked" })).entries[0];
    expect(revokedEntry).toMatchObject({ accountId: shopId, before: { email: "revoked@shop.test", role: "viewer" }, after: null });
  });

  it("is refused for an e-mail that has a user or an open invitation, and for mismatched passwords", async () => {
    await expect(as(staff).teams.invite({ accountId: shopId, email: "staff@teams.test", role: "admin" })).rejects.toThrow(/already has a Tally user/);
    const token = await invite("twice@brand.test", "viewer");
    await expect(as(staff).teams.invite({ accountId: shopId, email: "twice@brand.test", role: "admin" })).rejects.toThrow(/already has an open invitation/);
    await expect(as(null).teams.accept({ token, name: "Twice", password: PASSWORD, passwordAgain: `${PASSWORD}!` })).rejects.toThrow(
      /does not match the password/,
    );
    await expect(as(null).teams.accept({ token, name: "Twice", password: "short", passwordAgain: "short" })).rejects.toThrow(/at least 10 characters/);
    // Two acceptances of one link at once: one user.
    const results = await Promise.allSettled([
      acceptInvitation({ token, name: "A", password: PASSWORD, passwordAgain: PASSWORD }),
      acceptInvitation({ token, name: "B", password: PASSWORD, passwordAgain: PASSWORD }),
    ]);
    expect(results.filter((r) => r.status === "fulfilled")).toHaveLength(1);
    expect(await db.user.count({ where: { email: "twice@brand.test" } })).toBe(1);
  });
});

describe("a member's role", () => {
  it("a viewer reads and downloads but changes nothing, whatever the caller; the role change holds from the next request", async () => {
    const { viewer, session } = await join(await invite("viewer@brand.test", "viewer"), "viewer@brand.test");
    expect(viewer.role === "member" && viewer.memberRole).toBe("viewer");
    expect(await as(viewer).accounts.get({ id: brandId })).toMatchObject({ id: brandId });
    expect(await as(viewer).campaigns.list({ accountId: brandId, startDate: "2026-11-01", endDate: "2026-11-02" })).toBeDefined();
    const refusals = [
      as(viewer).accounts.setDailyBudget({ accountId: brandId, dailyBudget: 10 }),
      as(viewer).apiKeys.create({ accountId: brandId, name: "mine" }),
      as(viewer).products.create({ advertiserId: brandId, sku: "SKU-V", name: "Viewer's" }),
      as(viewer).campaigns.create({
        advertiserId: brandId,
        name: "Viewer's campaign",
        type: "display",
        status: "active",
        startDate: "2026-11-01",
        bidModel: "cpm",
        bid: 1,
        publisherIds: [shopId],
        productRefs: [],
      }),
    ];
    // Awaited at once: a refusal waiting its turn in a loop could reject with nothing listening yet.
    await Promise.all(refusals.map((refusal) => expect(refusal).rejects.toMatchObject({ code: "FORBIDDEN" })));
    expect(await db.apiKey.count({ where: { accountId: brandId } })).toBe(0);
    expect(await db.product.count({ where: { advertiserId: brandId, sku: "SKU-V" } })).toBe(0);

    await as(staff).teams.setRole({ userId: viewer.userId, role: "admin" });
    const asAdmin = (await viewerOfSession(session))!;
    expect(asAdmin).toMatchObject({ memberRole: "admin" });
    await as(asAdmin).accounts.setDailyBudget({ accountId: brandId, dailyBudget: 10 });
    expect(await as(asAdmin).apiKeys.create({ accountId: brandId, name: "mine" })).toMatchObject({ name: "mine" });

    await as(staff).teams.setRole({ userId: viewer.userId, role: "viewer" });
    const again = (await viewerOfSession(session))!;
    await expect(
      as(again).apiKeys.revoke({ accountId: brandId, keyId: (await db.apiKey.findFirstOrThrow({ where: { accountId: brandId } })).id }),
    ).rejects.toMatchObject({
      code: "FORBIDDEN",
    });
    const roleEntries = (await listActivity({ actor: OPERATOR, actionPrefix: "user.role.set" })).entries;
    expect(roleEntries.map((e) => [e.before, e.after])).toEqual([
      [{ role: "admin" }, { role: "viewer" }],
      [{ role: "viewer" }, { role: "admin" }],
    ]);
    await expect(as(again).teams.setRole({ userId: viewer.userId, role: "admin" })).rejects.toMatchObject({ code: "FORBIDDEN" });
  });

  it("a removed user is signed out at once and cannot sign in", async () => {
    const { viewer, session } = await join(await invite("leaving@brand.test", "admin"), "leaving@brand.test");
    expect(await viewerOfSession(session)).not.toBeNull();
    await expect(as(viewer).teams.remove({ userId: staff.userId })).rejects.toMatchObject({ code: "NOT_FOUND" });
    await as(staff).teams.remove({ userId: viewer.userId });
    expect(await viewerOfSession(session)).toBeNull();
    expect(await db.userSession.count({ where: { userId: viewer.userId } })).toBe(0);
    await expect(signIn("leaving@brand.test", PASSWORD)).rejects.toMatchObject({ code: "unauthorized" });
    await expect(as(staff).teams.remove({ userId: staff.userId })).rejects.toMatchObject({ code: "FORBIDDEN" });
    const [removed] = (await listActivity({ actor: OPERATOR, actionPrefix: "user.removed" })).entries;
    expect(removed).toMatchObject({ accountId: brandId, before: { email: "leaving@brand.test", role: "admin" }, after: null });
  });
});

describe("the migration to member roles", () => {
  it("makes every member so far an admin, as every member could change their account, and refuses a member without a role", async () => {
    const migration = await readFile("prisma/migrations/20261203000000_member_roles_and_invitations/migration.sql", "utf8");
    const statements = migration
      .replace(/^--.*$/gm, "")
      .split(";")
      .map((statement) => statement.trim())
      .filter((statement) => statement.startsWith("UPDATE") || statement.includes("users_member_role_check"));
    expect(statements).toHaveLength(2);
    const member = await createUser({
      email: "before@roles.test",
      name: "Before",
      password: PASSWORD,
      role: "member",
      accountId: brandId,
      memberRole: "viewer",
    });
    // A database from before the roles: the column there, empty, and no constraint yet.
    await pgPool().query("ALTER TABLE users DROP CONSTRAINT users_member_role_check");
    await pgPool().query("UPDATE users SET member_role = NULL WHERE id = $1", [member.id]);
    for (const statement of statements) await pgPool().query(statement);
    const rows = await pgPool().query(
      "SELECT role::text, member_role::text FROM users WHERE email IN ('before@roles.test', 'staff@teams.test') ORDER BY role::text",
    );
    expect(rows.rows).toEqual([
      { role: "member", member_role: "admin" },
      { role: "staff", member_role: null },
    ]);
    await expect(pgPool().query("UPDATE users SET member_role = NULL WHERE id = $1", [member.id])).rejects.toMatchObject({ code: "23514" });
    await expect(pgPool().query("UPDATE users SET member_role = 'admin' WHERE email = 'staff@teams.test'")).rejects.toMatchObject({ code: "23514" });
  });
});
