// Hand-written SQL: a job is taken with FOR UPDATE SKIP LOCKED and held by a lease whose token every later write compares and sets, and an account's unfinished jobs are counted under an advisory lock; Prisma has neither.
import sql, { type Sql } from "sql-template-tag";
import { pgPool } from "@/server/db/pg-pool";
import { BEGIN, COMMIT, ROLLBACK } from "@/server/db/transaction.sql";

export interface ReportJobRow {
  id: string;
  account_id: string | null;
  requested_by: string;
  report: string;
  format: string;
  start_date: string;
  end_date: string;
  /** The IANA zone the range and the rows' days are local dates in. */
  time_zone: string;
  filters: Record<string, string>;
  order_by: string;
  order: string;
  status: "queued" | "running" | "done" | "failed";
  attempts: number;
  lease_token: string | null;
  lease_until: Date | null;
  object_key: string | null;
  rows: string | null;
  bytes: string | null;
  error: string | null;
  created_at: Date;
  started_at: Date | null;
  finished_at: Date | null;
  expires_at: Date;
}

export type NewReportJob = Pick<
  ReportJobRow,
  | "id"
  | "account_id"
  | "requested_by"
  | "report"
  | "format"
  | "start_date"
  | "end_date"
  | "time_zone"
  | "filters"
  | "order_by"
  | "order"
  | "created_at"
  | "expires_at"
>;

/** The jobs of one account (null: staff's), as a condition the account's index serves. */
const ownedBy = (accountId: string | null) => (accountId === null ? sql`account_id IS NULL` : sql`account_id = ${accountId}`);

export interface InsertedJob {
  job: ReportJobRow;
  /** The account's finished jobs past its newest `kept`: expired now, their files still to delete. */
  dropped: { id: string; object_key: string | null }[];
}

/**
 * Inserts the job unless its account already has `limits.unfinished` jobs queued or running, and
 * expires the account's finished jobs older than its newest `limits.kept`. The count, the insert
 * and the expiry run under the account's advisory lock, so two requests at once cannot both pass it.
 */
export async function insertJobWithinLimit(job: NewReportJob, limits: { unfinished: number; kept: number }): Promise<InsertedJob | "full"> {
  const client = await pgPool().connect();
  try {
    await client.query(BEGIN);
    await client.query(sql`SELECT pg_advisory_xact_lock(hashtextextended(${`report_jobs:${job.account_id ?? "staff"}`}, 0))`);
    const { rows: counted } = await client.query<{ unfinished: number }>(
      sql`SELECT count(*)::int AS unfinished FROM report_jobs WHERE ${ownedBy(job.account_id)} AND status IN ('queued', 'running')`,
    );
    if ((counted[0]?.unfinished ?? 0) >= limits.unfinished) {
      await client.query(ROLLBACK);
      return "full";
    }
    const { rows } = await client.query<ReportJobRow>(
      sql`INSERT INTO report_jobs (id, account_id, requested_by, report, format, start_date, end_date, time_zone, filters, order_by, "order", created_at, expires_at)
          VALUES (${job.id}, ${job.account_id}, ${job.requested_by}, ${job.report}, ${job.format}, ${job.start_date}, ${job.end_date}, ${job.time_zone},
                  ${JSON.stringify(job.filters)}::jsonb, ${job.order_by}, ${job.order}, ${job.created_at}, ${job.expires_at})
          RETURNING *`,
    );
    const { rows: dropped } = await client.query<{ id: string; object_key: string | null }>(
      sql`UPDATE report_jobs SET expires_at = ${job.created_at}
          WHERE id IN (
            SELECT id FROM report_jobs WHERE ${ownedBy(job.account_id)} AND status IN ('done', 'failed')
            ORDER BY created_at DESC, id DESC OFFSET ${limits.kept})
          RETURNING id, object_key`,
    );
    await client.query(COMMIT);
    return { job: rows[0]!, dropped };
  } catch (error) {
    await client.query(ROLLBACK).catch(() => {});
    throw error;
  } finally {
    client.release();
  }
}

/** A job, when `accountId` may see it (undefined: staff, every job). */
export async function selectJob(id: string, accountId: string | null | undefined): Promise<ReportJobRow | null> {
  const { rows } = await pgPool().query<ReportJobRow>(
    accountId === undefined
      ? sql`SELECT * FROM report_jobs WHERE id = ${id}`
      : sql`SELECT * FROM report_jobs WHERE id = ${id} AND account_id IS NOT DISTINCT FROM ${accountId}`,
  );
  return rows[0] ?? null;
}

/** A page of jobs, newest first (undefined: staff, every account's). */
export async function selectJobs(
  accountId: string | null | undefined,
  page: { offset: number; limit: number },
): Promise<{ rows: ReportJobRow[]; total: number }> {
  const where = accountId === undefined ? sql`TRUE` : sql`account_id IS NOT DISTINCT FROM ${accountId}`;
  const [{ rows }, { rows: counted }] = await Promise.all([
    pgPool().query<ReportJobRow>(sql`SELECT * FROM report_jobs WHERE ${where} ORDER BY created_at DESC, id DESC LIMIT ${page.limit} OFFSET ${page.offset}`),
    pgPool().query<{ total: number }>(sql`SELECT count(*)::int AS total FROM report_jobs WHERE ${where}`),
  ]);
  return { rows, total: counted[0]?.total ?? 0 };
}

/**
 * Running jobs whose worker stopped (lease past) after their last allowed attempt: failed, with
 * why. Their next attempt would be one too many.
 */
export async function failAbandonedJobs(now: Date, maxAttempts: number): Promise<number> {
  const { rowCount } = await pgPool().query(
    sql`UPDATE report_jobs
        SET status = 'failed', lease_token = NULL, lease_until = NULL, finished_at = ${now},
            error = 'its worker stopped before finishing it, ' || attempts || ' times' || coalesce(' (last error: ' || error || ')', '')
        WHERE status = 'running' AND lease_until <= ${now} AND attempts >= ${maxAttempts}`,
  );
  return rowCount ?? 0;
}

/**
 * Takes the next job that is queued (and due again, after a failed attempt) or running under a
 * lease that has run out (its worker died): one more attempt, held by `token` until `leaseUntil`.
 * Accounts take turns, not their jobs: the job of the account with the fewest jobs running goes
 * first, among those the account whose last job started longest ago (or never), and only then
 * the oldest, so one account's backlog delays another's job by at most one job. Each candidate
 * costs two probes of report_jobs_account_id_started_at_idx, and an account has at most
 * TALLY_REPORT_JOBS_PER_ACCOUNT unfinished jobs, so the statement stays cheap however long the
 * queue. Jobs other workers are taking at this moment are skipped, not waited for.
 */
export async function claimJob(now: Date, leaseUntil: Date, token: string, maxAttempts: number): Promise<ReportJobRow | null> {
  const { rows } = await pgPool().query<ReportJobRow>(claimJobStatement(now, leaseUntil, token, maxAttempts));
  return rows[0] ?? null;
}

/** claimJob's statement, which its test explains. */
export function claimJobStatement(now: Date, leaseUntil: Date, token: string, maxAttempts: number): Sql {
  return sql`UPDATE report_jobs
        SET status = 'running', attempts = attempts + 1, lease_token = ${token}, lease_until = ${leaseUntil},
            started_at = ${now}
        WHERE id = (
          SELECT j.id FROM report_jobs j
          CROSS JOIN LATERAL (${ownerTurn(sql`j.account_id`, now)}) turn
          WHERE j.status IN ('queued', 'running') AND (j.lease_until IS NULL OR j.lease_until <= ${now}) AND j.attempts < ${maxAttempts}
          ORDER BY turn.running, turn.last_started NULLS FIRST, j.created_at, j.id
          LIMIT 1
          FOR UPDATE OF j SKIP LOCKED)
        RETURNING *`;
}

/**
 * An owner's place in the turns: its jobs running under a live lease, and when its last job
 * started. Staff jobs (no account) are one owner. Each is asked as an account's and as staff's,
 * the one that does not apply cut off by a one-time filter on `owner`, so both keep to the index
 * (IS NOT DISTINCT FROM would read every job).
 */
function ownerTurn(owner: Sql, now: Date): Sql {
  const running = sql`r.status = 'running' AND r.lease_until > ${now}`;
  return sql`SELECT
      (SELECT count(*) FROM report_jobs r WHERE r.account_id = ${owner} AND ${running})
        + (SELECT count(*) FROM report_jobs r WHERE ${owner} IS NULL AND r.account_id IS NULL AND ${running}) AS running,
      greatest(
        (SELECT max(s.started_at) FROM report_jobs s WHERE s.account_id = ${owner}),
        (SELECT max(s.started_at) FROM report_jobs s WHERE ${owner} IS NULL AND s.account_id IS NULL)) AS last_started`;
}

/** Holds the job longer; false once the lease is another worker's (or the job is gone). */
export async function renewLease(id: string, token: string, leaseUntil: Date): Promise<boolean> {
  const { rowCount } = await pgPool().query(
    sql`UPDATE report_jobs SET lease_until = ${leaseUntil} WHERE id = ${id} AND lease_token = ${token} AND status = 'running'`,
  );
  return rowCount === 1;
}

/** Done, if `token` still holds the job: false when another worker took it meanwhile. */
export async function finishJob(id: string, token: string, now: Date, file: { key: string; rows: number; bytes: number }): Promise<boolean> {
  const { rowCount } = await pgPool().query(
    sql`UPDATE report_jobs
        SET status = 'done', object_key = ${file.key}, rows = ${file.rows}, bytes = ${file.bytes}, finished_at = ${now},
            lease_token = NULL, lease_until = NULL, error = NULL
        WHERE id = ${id} AND lease_token = ${token} AND status = 'running'`,
  );
  return rowCount === 1;
}

/**
 * An attempt that failed: queued again from `retryAt` while attempts remain, else failed; null
 * when `token` no longer holds the job (another worker has it, and it decides).
 */
export async function endFailedAttempt(
  id: string,
  token: string,
  now: Date,
  error: string,
  retry: { retryAt: Date; maxAttempts: number; final: boolean },
): Promise<"queued" | "failed" | null> {
  const { rows } = await pgPool().query<{ status: "queued" | "failed" }>(
    sql`UPDATE report_jobs
        SET status = CASE WHEN ${retry.final} OR attempts >= ${retry.maxAttempts} THEN 'failed' ELSE 'queued' END::"ReportJobStatus",
            lease_token = NULL,
            lease_until = CASE WHEN ${retry.final} OR attempts >= ${retry.maxAttempts} THEN NULL ELSE ${retry.retryAt}::timestamptz END,
            finished_at = CASE WHEN ${retry.final} OR attempts >= ${retry.maxAttempts} THEN ${now}::timestamptz END,
            error = ${error}
        WHERE id = ${id} AND lease_token = ${token} AND status = 'running'
        RETURNING status`,
  );
  return rows[0]?.status ?? null;
}

/** Jobs past their expiry: their ids and files, oldest first. */
export async function selectExpiredJobs(now: Date, limit: number): Promise<{ id: string; object_key: string | null }[]> {
  const { rows } = await pgPool().query<{ id: string; object_key: string | null }>(
    sql`SELECT id, object_key FROM report_jobs WHERE expires_at <= ${now} AND status <> 'running' ORDER BY expires_at LIMIT ${limit}`,
  );
  return rows;
}

export async function deleteJobs(ids: string[]): Promise<number> {
  if (ids.length === 0) return 0;
  const { rowCount } = await pgPool().query(sql`DELETE FROM report_jobs WHERE id = ANY(${ids}) AND status <> 'running'`);
  return rowCount ?? 0;
}

export interface ReportJobQueue {
  /** Jobs queued (those waiting out a pause after a failed attempt included). */
  waiting: number;
  /** Age of the oldest queued job; 0 when none waits. */
  lagSeconds: number;
  /** Jobs that failed for good in the last 24 hours. */
  failedLastDay: number;
}

/** How far behind the report jobs are: over report_jobs_status_lease_until_idx and a day of finished jobs. */
export async function reportJobQueue(now: Date): Promise<ReportJobQueue> {
  const { rows } = await pgPool().query<{ waiting: number; seconds: number | null; failed: number }>(
    sql`SELECT count(*)::int AS waiting, extract(epoch FROM ${now}::timestamptz - min(created_at))::float8 AS seconds,
               (SELECT count(*)::int FROM report_jobs WHERE status = 'failed' AND finished_at > ${now}::timestamptz - interval '24 hours') AS failed
          FROM report_jobs WHERE status = 'queued'`,
  );
  const row = rows[0]!;
  return { waiting: row.waiting, lagSeconds: Math.max(0, row.seconds ?? 0), failedLastDay: row.failed };
}
