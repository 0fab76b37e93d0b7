// An account's own admins run its team through the dashboard's procedures: they invite, change
// roles, remove and revoke within their account only; another account's users and invitations
// answer as ones that do not exist; a viewer is refused and told who may; the last admin cannot be
// demoted or removed by a member (two admins demoting each other at once leave one); each change
// is in the activity log under its admin's name.
import { beforeAll, describe, expect, it } from "vitest";
import { OPERATOR } from "@/server/accounts/actor";
import { createUser } from "@/server/accounts/create-user";
import { listActivity } from "@/server/accounts/list-activity";
import { signIn, type Viewer } from "@/server/accounts/sessions";
import { db } from "@/server/db/client";
import { createCaller } from "@/server/trpc/root";
import { makeAdvertiser, makePublisher } from "@/testing/fixtures";

const PASSWORD = "correct horse battery";
let brandId: string;
let shopId: string;
let ana: Viewer;
let vic: Viewer;
let otherAdmin: Viewer;
const as = (viewer: Viewer) => createCaller({ viewer, origin: "https://tally.test", setSessionCookie: () => {} });

async function member(email: string, name: string, accountId: string, memberRole: "admin" | "viewer"): Promise<Viewer> {
  await createUser({ email, name, password: PASSWORD, role: "member", accountId, memberRole });
  return (await signIn(email, PASSWORD)).viewer;
}

beforeAll(async () => {
  brandId = (await makeAdvertiser()).id;
  shopId = (await makePublisher()).id;
  ana = await member("ana@brand.test", "Ana Admin", brandId, "admin");
  vic = await member("vic@brand.test", "Vic Viewer", brandId, "viewer");
  otherAdmin = await member("olga@shop.test", "Olga", shopId, "admin");
});

describe("an account's admin", () => {
  it("invites to their own account, and the invitation and the log say so under their name", async () => {
    const answer = await as(ana).teams.invite({ accountId: brandId, email: "Bo@Brand.Test", role: "viewer" });
    expect(answer.link).toMatch(/^https:\/\/tally\.test\/invite\/[A-Za-z0-9_-]{43}$/);
    expect(answer.invitation).toMatchObject({ accountId: brandId, email: "bo@brand.test", role: "viewer" });
    const stored = await db.userInvitation.findFirstOrThrow({ where: { email: "bo@brand.test" } });
    expect(stored.invitedBy).toBe(ana.userId);
    const team = await as(ana).teams.list({ accountId: brandId });
    expect(team.invitations.map((i) => i.email)).toEqual(["bo@brand.test"]);
    expect(team.mayManage).toBe(true);
    const [entry] = (await listActivity({ actor: ana, actionPrefix: "user.invited" })).entries;
    expect(entry).toMatchObject({ actor: "Ana Admin <ana@brand.test>", accountId: brandId, after: { email: "bo@brand.test", role: "viewer" } });

    await as(ana).teams.revokeInvitation({ invitationId: stored.id });
    expect((await as(ana).teams.list({ accountId: brandId })).invitations).toEqual([]);
  });

  it("cannot invite to another account, nor reach its users or invitations: each answers as not found, and nothing changes", async () => {
    await expect(as(ana).teams.invite({ accountId: shopId, email: "sneak@shop.test", role: "admin" })).rejects.toMatchObject({ code: "NOT_FOUND" });
    expect(await db.userInvitation.count({ where: { email: "sneak@shop.test" } })).toBe(0);
    const theirs = await as(otherAdmin).teams.invite({ accountId: shopId, email: "kept@shop.test", role: "viewer" });
    await expect(as(ana).teams.revokeInvitation({ invitationId: theirs.invitation.id })).rejects.toMatchObject({ code: "NOT_FOUND" });
    await expect(as(ana).teams.setRole({ userId: otherAdmin.userId, role: "viewer" })).rejects.toMatchObject({ code: "NOT_FOUND" });
    await expect(as(ana).teams.remove({ userId: otherAdmin.userId })).rejects.toMatchObject({ code: "NOT_FOUND" });
    await expect(as(ana).teams.list({ accountId: shopId })).rejects.toMatchObject({ code: "NOT_FOUND" });
    // An invitation open elsewhere is refused without naming the other account.
    await expect(as(ana).teams.invite({ accountId: brandId, email: "kept@shop.test", role: "viewer" })).rejects.toThrow(
      /^kept@shop\.test already has an open invitation; revoke it/,
    );
    expect((await db.userInvitation.findUniqueOrThrow({ where: { id: theirs.invitation.id } })).revokedAt).toBeNull();
    expect((await db.user.findUniqueOrThrow({ where: { id: otherAdmin.userId } })).memberRole).toBe("admin");
  });

  it("cannot invite anyone as staff, nor remove a staff user, whom a member never finds", async () => {
    await expect(as(ana).teams.invite({ accountId: brandId, email: "boss@brand.test", role: "staff" as "admin" })).rejects.toMatchObject({
      code: "BAD_REQUEST",
    });
    const staff = await createUser({ email: "staff@admins.test", name: "Staff", password: PASSWORD, role: "staff" });
    await expect(as(ana).teams.remove({ userId: staff.id })).rejects.toMatchObject({ code: "NOT_FOUND" });
    await expect(as(ana).teams.setRole({ userId: staff.id, role: "admin" })).rejects.toMatchObject({ code: "NOT_FOUND" });
    expect(await db.user.count({ where: { id: staff.id } })).toBe(1);
  });

  it("changes a teammate's role and removes a teammate, each logged", async () => {
    const cy = await member("cy@brand.test", "Cy", brandId, "viewer");
    expect(await as(ana).teams.setRole({ userId: cy.userId, role: "admin" })).toMatchObject({ role: "admin" });
    expect(await as(ana).teams.remove({ userId: cy.userId })).toEqual({ id: cy.userId, email: "cy@brand.test" });
    expect(await db.user.count({ where: { id: cy.userId } })).toBe(0);
    const entries = (await listActivity({ actor: OPERATOR, actionPrefix: ["user.role.set", "user.removed"] })).entries;
    expect(entries.slice(0, 2).map((e) => [e.action, e.actor, e.subject])).toEqual([
      ["user.removed", "Ana Admin <ana@brand.test>", "user cy@brand.test"],
      ["user.role.set", "Ana Admin <ana@brand.test>", "user cy@brand.test"],
    ]);
  });

  it("cannot demote or remove the account's last admin, themselves included; staff still may", async () => {
    await expect(as(ana).teams.setRole({ userId: ana.userId, role: "viewer" })).rejects.toMatchObject({
      code: "BAD_REQUEST",
      message: expect.stringContaining("no admin left"),
    });
    await expect(as(ana).teams.remove({ userId: ana.userId })).rejects.toMatchObject({ code: "BAD_REQUEST" });
    expect((await db.user.findUniqueOrThrow({ where: { id: ana.userId } })).memberRole).toBe("admin");

    // With a second admin, one may step down; then the other is the last.
    const dee = await member("dee@brand.test", "Dee", brandId, "admin");
    await as(ana).teams.setRole({ userId: ana.userId, role: "viewer" });
    const deeAlone = await as(dee)
      .teams.remove({ userId: dee.userId })
      .catch((error: unknown) => error);
    expect(deeAlone).toMatchObject({ code: "BAD_REQUEST" });
    await as(dee).teams.setRole({ userId: ana.userId, role: "admin" });

    // Two admins demoting each other at once: the account keeps one.
    await Promise.allSettled([as(ana).teams.setRole({ userId: dee.userId, role: "viewer" }), as(dee).teams.setRole({ userId: ana.userId, role: "viewer" })]);
    expect(await db.user.count({ where: { accountId: brandId, memberRole: "admin" } })).toBe(1);

    await db.user.update({ where: { id: ana.userId }, data: { memberRole: "admin" } });
    await db.user.update({ where: { id: dee.userId }, data: { memberRole: "viewer" } });
    // Staff manage every account: they may leave it with no admin.
    await createUser({ email: "manager@admins.test", name: "Manager", password: PASSWORD, role: "staff" });
    const manager = (await signIn("manager@admins.test", PASSWORD)).viewer;
    await as(manager).teams.setRole({ userId: ana.userId, role: "viewer" });
    expect(await db.user.count({ where: { accountId: brandId, memberRole: "admin" } })).toBe(0);
    await as(manager).teams.setRole({ userId: ana.userId, role: "admin" });
  });
});

describe("an account's viewer", () => {
  it("reads the team, is told its admins' names, and is refused every change", async () => {
    const team = await as(vic).teams.list({ accountId: brandId });
    expect(team.mayManage).toBe(false);
    expect(team.admins).toEqual(["Ana Admin"]);
    const refusals = [
      as(vic).teams.invite({ accountId: brandId, email: "friend@brand.test", role: "viewer" }),
      as(vic).teams.setRole({ userId: vic.userId, role: "admin" }),
      as(vic).teams.remove({ userId: ana.userId }),
    ];
    // Every refusal is awaited at once: one still waiting its turn in a loop could reject first,
    // with nothing yet listening.
    await Promise.all(
      refusals.map((refusal) =>
        expect(refusal).rejects.toMatchObject({
          code: "FORBIDDEN",
          message: "only the account's admins or Tally staff change its team; ask one of its admins",
        }),
      ),
    );
    const open = await as(ana).teams.invite({ accountId: brandId, email: "pending@brand.test", role: "viewer" });
    await expect(as(vic).teams.revokeInvitation({ invitationId: open.invitation.id })).rejects.toMatchObject({ code: "FORBIDDEN" });
    expect(await db.userInvitation.count({ where: { email: "friend@brand.test" } })).toBe(0);
    expect((await db.user.findUniqueOrThrow({ where: { id: vic.userId } })).memberRole).toBe("viewer");
  });
});
