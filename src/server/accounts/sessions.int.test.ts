// Sessions against the real database: they end after 12 hours without a request or 30 days after
// sign-in, an ended one is refused and deleted, every ended one goes at the next sign-in in one
// indexed statement, and a request marks its session seen at most once a minute. A member
// without an account cannot exist in the database, and where one did, it is no viewer at all.
import { createHash } from "node:crypto";
import { readFile } from "node:fs/promises";
import { TRPCError } from "@trpc/server";
import pg from "pg";
import sql from "sql-template-tag";
import { beforeAll, describe, expect, it } from "vitest";
import { TallyError } from "@/server/core/errors";
import { pgPool } from "@/server/db/pg-pool";
import { reportRoute } from "@/server/http/report-caller";
import { accountCaller, type ReportCaller, reportScope, reportScopeOf, viewerCaller } from "@/server/pipeline/report/report-scope";
import { createCaller } from "@/server/trpc/root";
import { makeAdvertiser } from "@/testing/fixtures";
import { mayAccess } from "./actor";
import { createUser } from "./create-user";
import { canAccess, deleteEndedSessions, signIn, type Viewer, viewerOfSession } from "./sessions";
import { endedSessionsDelete } from "./sessions.sql";

const PASSWORD = "correct horse battery";
let accountId: string;

beforeAll(async () => {
  accountId = (await makeAdvertiser()).id;
  await createUser({ email: "member@sessions.test", name: "Member", password: PASSWORD, role: "member", accountId });
  await createUser({ email: "staff@sessions.test", name: "Staff", password: PASSWORD, role: "staff" });
});

const hashOf = (token: string) => createHash("sha256").update(token).digest("hex");
const sessionRow = async (token: string) =>
  (
    await pgPool().query<{ last_seen_at: Date; expires_at: Date; xmin: string }>(
      "SELECT last_seen_at, expires_at, xmin::text FROM user_sessions WHERE token_hash = $1",
      [hashOf(token)],
    )
  ).rows[0];
/** Moves a session's clock back, as time passing would. */
const age = async (token: string, column: "last_seen_at" | "expires_at", interval: string) =>
  pgPool().query(`UPDATE user_sessions SET ${column} = now() - $2::interval WHERE token_hash = $1`, [hashOf(token), interval]);

describe("idle and expired sessions", () => {
  it("refuse and delete a session 12 hours idle, and keep one used 11 hours 59 minutes ago", async () => {
    const idle = (await signIn("member@sessions.test", PASSWORD)).token;
    const active = (await signIn("member@sessions.test", PASSWORD)).token;
    await age(idle, "last_seen_at", "12 hours");
    await age(active, "last_seen_at", "11 hours 59 minutes");

    expect(await viewerOfSession(idle)).toBeNull();
    expect(await sessionRow(idle)).toBeUndefined();

    expect(await viewerOfSession(active)).toMatchObject({ role: "member", accountId });
    // The request marked it seen, so its 12 hours start again.
    expect(Date.now() - (await sessionRow(active))!.last_seen_at.getTime()).toBeLessThan(10_000);
  });

  it("refuse and delete a session past its absolute end, however recently used", async () => {
    const { token, expiresAt } = await signIn("staff@sessions.test", PASSWORD);
    expect(expiresAt.getTime() - Date.now()).toBeGreaterThan(29.9 * 86_400_000);
    expect(await viewerOfSession(token)).toMatchObject({ role: "staff", accountId: null });
    await age(token, "expires_at", "1 second");
    expect(await viewerOfSession(token)).toBeNull();
    expect(await sessionRow(token)).toBeUndefined();
  });

  it("are refused over HTTP as signed out, by tRPC and by the report routes", async () => {
    const { handleTrpcRequest } = await import("@/server/trpc/http-handler");
    const token = (await signIn("member@sessions.test", PASSWORD)).token;
    await age(token, "last_seen_at", "13 hours");
    const me = await handleTrpcRequest(new Request("http://localhost:3000/api/trpc/auth.me", { headers: { Cookie: `tally_session=${token}` } }));
    expect(await me.json()).toEqual({ result: { data: { json: null } } });
    const list = await handleTrpcRequest(new Request("http://localhost:3000/api/trpc/accounts.list", { headers: { Cookie: `tally_session=${token}` } }));
    expect(list.status).toBe(401);

    const other = (await signIn("member@sessions.test", PASSWORD)).token;
    await age(other, "expires_at", "1 minute");
    const route = reportRoute(async (_request, caller) => Response.json(caller));
    expect((await route(new Request("http://localhost:3000/campaign/v2", { headers: { Cookie: `tally_session=${other}` } }))).status).toBe(401);
    expect(await sessionRow(other)).toBeUndefined();
  });
});

describe("last_seen_at", () => {
  it("is written at most once a minute per session, not on every request", async () => {
    const token = (await signIn("member@sessions.test", PASSWORD)).token;
    const first = (await sessionRow(token))!;
    for (let i = 0; i < 5; i += 1) expect(await viewerOfSession(token)).not.toBeNull();
    await Promise.all(Array.from({ length: 5 }, () => viewerOfSession(token)));
    // xmin changes with every UPDATE of the row: ten requests wrote nothing.
    expect(await sessionRow(token)).toEqual(first);

    await age(token, "last_seen_at", "61 seconds");
    const aged = (await sessionRow(token))!;
    await Promise.all(Array.from({ length: 5 }, () => viewerOfSession(token)));
    const seen = (await sessionRow(token))!;
    expect(seen.last_seen_at.getTime()).toBeGreaterThan(aged.last_seen_at.getTime() + 60_000);
    expect(seen.expires_at).toEqual(first.expires_at);
    await viewerOfSession(token);
    expect((await sessionRow(token))!.xmin).toBe(seen.xmin);
  });
});

describe("the sweep of ended sessions", () => {
  it("deletes every expired and idle session at sign-in and leaves live ones", async () => {
    const expired = (await signIn("member@sessions.test", PASSWORD)).token;
    const idle = (await signIn("staff@sessions.test", PASSWORD)).token;
    const live = (await signIn("staff@sessions.test", PASSWORD)).token;
    await age(expired, "expires_at", "1 hour");
    await age(idle, "last_seen_at", "2 days");

    const fresh = (await signIn("member@sessions.test", PASSWORD)).token;
    expect(await sessionRow(expired)).toBeUndefined();
    expect(await sessionRow(idle)).toBeUndefined();
    // The live ones are kept as they were: their absolute end still 30 days out.
    for (const token of [live, fresh]) expect((await sessionRow(token))?.expires_at.getTime()).toBeGreaterThan(Date.now() + 29 * 86_400_000);

    await age(live, "last_seen_at", "12 hours 1 second");
    expect(await deleteEndedSessions()).toBe(1);
    expect(await sessionRow(live)).toBeUndefined();
    expect(await deleteEndedSessions()).toBe(0);
  });

  it("is one statement that reads the indexes on expires_at and last_seen_at", async () => {
    const client = await pgPool().connect();
    try {
      await client.query("BEGIN");
      // The test table is tiny; the planner must show it can use the indexes, not that it would.
      await client.query("SET LOCAL enable_seqscan = off");
      const { rows } = await client.query<{ "QUERY PLAN": string }>(sql`EXPLAIN ${endedSessionsDelete(new Date(), new Date())}`);
      const plan = rows.map((row) => row["QUERY PLAN"]).join("\n");
      expect(plan).toContain("user_sessions_expires_at_idx");
      expect(plan).toContain("user_sessions_last_seen_at_idx");
      expect(plan).not.toContain("Seq Scan");
    } finally {
      await client.query("ROLLBACK");
      client.release();
    }
  });
});

describe("a member without an account", () => {
  it("cannot be stored: the database refuses it, on insert and on update", async () => {
    const insert = pgPool().query(
      "INSERT INTO users (id, email, name, password_hash, role, account_id) VALUES ('usr_orphan', 'orphan@sessions.test', 'Orphan', 'x', 'member', NULL)",
    );
    await expect(insert).rejects.toMatchObject({ code: "23514", constraint: "users_member_has_account_check" });
    const update = pgPool().query("UPDATE users SET account_id = NULL WHERE email = 'member@sessions.test'");
    await expect(update).rejects.toMatchObject({ code: "23514" });
    // Staff need none.
    expect((await pgPool().query("SELECT account_id FROM users WHERE email = 'staff@sessions.test'")).rows).toEqual([{ account_id: null }]);
  });

  it("is what the migration refuses to leave behind: it ends such users' sessions, then fails until they are fixed", async () => {
    const migration = await readFile("prisma/migrations/20261125200100_members_need_an_account/migration.sql", "utf8");
    // As Prisma applies a migration through the driver adapter: split at semicolons, one by one.
    const statements = migration
      .replace(/^--.*$/gm, "")
      .split(";")
      .map((statement) => statement.trim())
      .filter(Boolean);
    expect(statements).toHaveLength(2);
    const client = new pg.Client({ connectionString: process.env.DATABASE_URL });
    await client.connect();
    try {
      // A database from before the constraint, holding a member without an account and a session.
      await client.query("ALTER TABLE users DROP CONSTRAINT users_member_has_account_check");
      await client.query(
        "INSERT INTO users (id, email, name, password_hash, role, account_id, member_role) VALUES ('usr_legacy', 'legacy@sessions.test', 'Legacy', 'x', 'member', NULL, 'admin')",
      );
      await client.query("INSERT INTO user_sessions (token_hash, user_id, expires_at) VALUES (repeat('a', 64), 'usr_legacy', now() + interval '1 day')");

      await client.query(statements[0]!);
      await expect(client.query(statements[1]!)).rejects.toMatchObject({ code: "23514" });
      expect((await client.query("SELECT count(*)::int AS n FROM user_sessions WHERE user_id = 'usr_legacy'")).rows).toEqual([{ n: 0 }]);
      expect((await client.query("SELECT count(*)::int AS n FROM users WHERE id = 'usr_legacy'")).rows).toEqual([{ n: 1 }]);

      // Fixed by hand (here: given an account), the migration goes through when run again.
      await client.query("UPDATE users SET account_id = $1 WHERE id = 'usr_legacy'", [accountId]);
      for (const statement of statements) await client.query(statement);
      const { rows } = await client.query("SELECT pg_get_constraintdef(oid) AS def FROM pg_constraint WHERE conname = 'users_member_has_account_check'");
      expect(rows).toEqual([{ def: "CHECK (((role <> 'member'::\"UserRole\") OR (account_id IS NOT NULL)))" }]);
    } finally {
      await client.query("DELETE FROM users WHERE id = 'usr_legacy'");
      await client.end();
    }
  });

  it("makes no viewer where one still exists: no sign-in, no session, no scope, nothing over tRPC or the report routes", async () => {
    const client = new pg.Client({ connectionString: process.env.DATABASE_URL });
    await client.connect();
    const { hashPassword } = await import("./passwords");
    try {
      // Only a database that somehow lacks the constraint can hold one: make that database.
      await client.query("ALTER TABLE users DROP CONSTRAINT users_member_has_account_check");
      const member = (await signIn("member@sessions.test", PASSWORD)).token;
      await client.query("UPDATE users SET account_id = NULL WHERE email = 'member@sessions.test'");
      await client.query(
        "INSERT INTO users (id, email, name, password_hash, role, account_id, member_role) VALUES ('usr_stray', 'stray@sessions.test', 'Stray', $1, 'member', NULL, 'admin')",
        [await hashPassword(PASSWORD)],
      );

      await expect(signIn("stray@sessions.test", PASSWORD)).rejects.toMatchObject({ code: "unauthorized" });
      expect((await client.query("SELECT count(*)::int AS n FROM user_sessions WHERE user_id = 'usr_stray'")).rows).toEqual([{ n: 0 }]);

      const route = reportRoute(async (_request, caller) => Response.json(caller));
      const report = await route(new Request("http://localhost:3000/campaign/v2", { headers: { Cookie: `tally_session=${member}` } }));
      expect(report.status).toBe(401);
      // The first look at the session deleted it.
      expect(await sessionRow(member)).toBeUndefined();
      expect(await viewerOfSession(member)).toBeNull();
    } finally {
      await client.query("DELETE FROM users WHERE id = 'usr_stray'");
      await client.query("UPDATE users SET account_id = $1 WHERE email = 'member@sessions.test'", [accountId]);
      await client.query(`ALTER TABLE users ADD CONSTRAINT "users_member_has_account_check" CHECK ("role" <> 'member' OR "account_id" IS NOT NULL)`);
      await client.end();
    }

    // A viewer built by any other path, with no account, reaches nothing: never "every account".
    const orphan = { userId: "usr_x", email: "x@sessions.test", name: "X", role: "member", accountId: null } as unknown as Viewer;
    const caller = createCaller({ viewer: orphan });
    const code = (work: Promise<unknown>) =>
      work.then(
        () => "OK",
        (error: unknown) => (error instanceof TRPCError ? error.code : String(error)),
      );
    expect(await caller.auth.me()).toBeNull();
    const range = { startDate: "2026-11-01", endDate: "2026-11-02" };
    expect(await code(caller.stats.overview(range))).toBe("UNAUTHORIZED");
    expect(await code(caller.campaigns.list(range))).toBe("UNAUTHORIZED");
    expect(await code(caller.accounts.list())).toBe("UNAUTHORIZED");
    expect(await code(caller.exportDestinations.list())).toBe("UNAUTHORIZED");
    // Each layer fails closed on its own, not only behind the procedures' viewer check.
    await expect(reportScopeOf({ actor: orphan })).rejects.toMatchObject({ code: "not_found" });
    await expect(reportScopeOf({ actor: orphan, accountId })).rejects.toMatchObject({ code: "not_found" });
    expect(canAccess(orphan, accountId)).toBe(false);
    expect(mayAccess(orphan, accountId)).toBe(false);
    // Nor does one that claims to be the operator: the operator is one object, not a role.
    expect(mayAccess({ role: "operator" }, accountId)).toBe(false);
    expect(canAccess({ ...orphan, accountId: "" } as unknown as Viewer, "")).toBe(false);
    expect(await viewerCaller(orphan)).toBeNull();
    expect(await viewerCaller({ ...orphan, role: "owner" } as unknown as Viewer)).toBeNull();
    // The report scope of an account-less caller is an error, not an unfiltered scope.
    for (const accountKind of ["advertiser", "publisher", "network"] as const) {
      await expect(reportScope({ accountId: null, accountKind } as unknown as ReportCaller)).rejects.toThrow(TallyError);
    }
    // Whole viewers still get their scopes.
    expect(await reportScope((await accountCaller(accountId))!)).toMatchObject({ advertiserId: accountId });
    expect(await viewerCaller({ userId: "usr_s", email: "s@x", name: "S", role: "staff", accountId: null })).toEqual({ accountId: null, accountKind: "staff" });
  });
});
