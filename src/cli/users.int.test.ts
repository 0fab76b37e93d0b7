// `npm run users` as an operator runs it: a child process against this file's database.
import { mkdtemp, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { signIn } from "@/server/accounts/sessions";
import { db } from "@/server/db/client";
import { acceptInvitation } from "@/server/teams/invitations";
import { makeAdvertiser } from "@/testing/fixtures";
import { runCli } from "@/testing/run-cli";

const users = (args: string[], stdin = "", where: Record<string, string | undefined> = {}) =>
  runCli("users.ts", args, { stdin, env: { TALLY_PUBLIC_URL: "https://tally.example.com", SMTP_URL: "", ...where } });

describe("npm run users", () => {
  it("invites (printing the link), lists, sets a role, removes, and creates an account manager", async () => {
    const brand = await makeAdvertiser();
    const invited = await users(["invite", "--account", brand.id, "--email", "Buyer@Brand.Test", "--role", "viewer"]);
    expect(invited.err).toBe("");
    expect(invited.code).toBe(0);
    expect(invited.out).toContain(`invited buyer@brand.test to ${brand.id} as viewer`);
    const token = invited.out.match(/https:\/\/tally\.example\.com\/invite\/([A-Za-z0-9_-]{43})\n/)?.[1];
    expect(token).toBeDefined();

    const again = await users(["invite", "--account", brand.id, "--email", "buyer@brand.test", "--role", "admin"]);
    expect(again.code).toBe(1);
    expect(again.err).toContain("buyer@brand.test already has an open invitation");

    const listedOpen = await users(["list", "--account", brand.id]);
    expect(listedOpen.out).toMatch(/inv_\w+ {2}buyer@brand\.test {2}invited as viewer/);

    const { viewer } = await acceptInvitation({ token: token!, name: "Buyer", password: "correct horse battery", passwordAgain: "correct horse battery" });
    const listed = await users(["list", "--account", brand.id]);
    expect(listed.out).toContain(`${viewer.userId}  buyer@brand.test  Buyer  viewer`);

    const promoted = await users(["set-role", "--user", viewer.userId, "--role", "admin"]);
    expect(promoted.out).toContain("buyer@brand.test");
    expect((await db.user.findUniqueOrThrow({ where: { id: viewer.userId } })).memberRole).toBe("admin");

    const removed = await users(["remove", "--user", viewer.userId]);
    expect(removed.out).toContain(`removed buyer@brand.test (${viewer.userId}); their sessions have ended`);
    expect(await db.user.count({ where: { id: viewer.userId } })).toBe(0);

    const staff = await users(["create-staff", "--email", "manager@tally.test", "--name", "Manager", "--password-stdin"], "a long enough password\n");
    expect(staff.err).toBe("");
    expect(staff.out).toContain("created account manager manager@tally.test");
    expect((await signIn("manager@tally.test", "a long enough password")).viewer.role).toBe("staff");
    const actions = (await db.activityEntry.findMany({ where: { action: { startsWith: "user." } }, orderBy: { id: "asc" } })).map((e) => [
      e.action,
      e.actorName,
    ]);
    expect(actions).toEqual([
      ["user.invited", "operator"],
      ["user.joined", "Buyer <buyer@brand.test>"],
      ["user.role.set", "operator"],
      ["user.removed", "operator"],
      ["user.created", "operator"],
    ]);

    const usage = await users(["set-role", "--user", "usr_x", "--role", "owner"]);
    expect(usage.code).toBe(2);
    expect(usage.err).toContain("usage: npm run users --");
    // Nine processes, each a few seconds to start on a busy machine.
  }, 180_000);

  it("prints links that start at --base-url, else TALLY_PUBLIC_URL, else where a running npm run dev serves, else localhost:3000 said to be a guess", async () => {
    const brand = await makeAdvertiser();
    const linkOf = (out: string) => out.match(/^(.*)\/invite\/[A-Za-z0-9_-]{43}$/m)?.[1];
    const given = await users(["invite", "--account", brand.id, "--email", "a@base.test", "--role", "viewer", "--base-url", "http://10.0.0.5:8080/"]);
    expect(given.code).toBe(0);
    expect(linkOf(given.out)).toBe("http://10.0.0.5:8080");
    expect(given.out).toContain("tally: links start with http://10.0.0.5:8080 (from --base-url)\n");

    // No public address: the launcher's file in the data folder says where the app runs.
    const dataDir = await mkdtemp(path.join(tmpdir(), "tally-users-cli-"));
    const bare = { TALLY_PUBLIC_URL: undefined, TALLY_DATA_DIR: dataDir };
    await writeFile(path.join(dataDir, "app-url"), "http://localhost:3130\n");
    const beside = await users(["invite", "--account", brand.id, "--email", "b@base.test", "--role", "viewer"], "", bare);
    expect(linkOf(beside.out)).toBe("http://localhost:3130");

    const nothing = await users(["invite", "--account", brand.id, "--email", "c@base.test", "--role", "viewer"], "", {
      ...bare,
      TALLY_DATA_DIR: path.join(dataDir, "none"),
    });
    expect(linkOf(nothing.out)).toBe("http://localhost:3000");
    expect(nothing.out).toContain("if Tally runs elsewhere, pass --base-url <address> or set TALLY_PUBLIC_URL");

    const wrong = await users(["invite", "--account", brand.id, "--email", "d@base.test", "--role", "viewer", "--base-url", "tally.example.com"]);
    expect(wrong.code).toBe(2);
    expect(wrong.err).toContain("--base-url must be an http:// or https:// address");
    expect(await db.userInvitation.count({ where: { email: "d@base.test" } })).toBe(0);
  }, 120_000);
});
