// Every connection Tally opens starts with a statement timeout and an idle-in-transaction timeout,
// so a runaway query or a caller that stalls inside a transaction cannot hold locks or a
// connection for ever: the request pool, the bulk pool and Prisma's pool alike.
import { describe, expect, it } from "vitest";
import { env } from "@/env";
import { db } from "./client";
import { bulkPool, pgPool } from "./pg-pool";

const show = async (query: (sql: string) => Promise<{ rows: Record<string, string>[] }>) => {
  const [statement, idle] = await Promise.all([query("SHOW statement_timeout"), query("SHOW idle_in_transaction_session_timeout")]);
  return [statement.rows[0]!.statement_timeout, idle.rows[0]!.idle_in_transaction_session_timeout];
};

describe("connection limits", () => {
  it("start every request connection (pg and Prisma) with the request timeouts", async () => {
    const seconds = `${env().DATABASE_STATEMENT_TIMEOUT_SECONDS}s`;
    expect(await show((sql) => pgPool().query(sql))).toEqual([seconds, seconds]);
    const viaPrisma = async (sql: string) => ({ rows: await db.$queryRawUnsafe<Record<string, string>[]>(sql) });
    expect(await show(viaPrisma)).toEqual([seconds, seconds]);
  });

  it("start every bulk connection with the longer bulk timeouts", async () => {
    const minutes = `${env().DATABASE_BULK_STATEMENT_TIMEOUT_SECONDS / 60}min`;
    expect(await show((sql) => bulkPool().query(sql))).toEqual([minutes, minutes]);
  });

  it("end a statement that runs past the limit, and the pool goes on serving", async () => {
    const client = await pgPool().connect();
    try {
      // The same limit a connection starts with, shortened for this one transaction.
      await client.query("BEGIN");
      await client.query("SET LOCAL statement_timeout = '100ms'");
      await expect(client.query("SELECT pg_sleep(2)")).rejects.toMatchObject({ code: "57014" });
      await client.query("ROLLBACK");
    } finally {
      client.release();
    }
    expect((await pgPool().query("SELECT 1 AS ok")).rows).toEqual([{ ok: 1 }]);
  });
});
