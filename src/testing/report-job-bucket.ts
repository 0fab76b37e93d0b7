// For the report jobs' integration tests: the operator's bucket on a real S3 API (s3rver) on a
// port chosen before Tally reads its environment, so the jobs find it through the ordinary
// TALLY_REPORT_JOBS_* settings; its keys listed; files fetched through their presigned address
// and read by readers Tally did not write (DuckDB for CSV and JSON lines, exceljs for XLSX: report-sheet.ts).
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { ListObjectsV2Command } from "@aws-sdk/client-s3";
import { afterAll, beforeAll } from "vitest";
import { freePort } from "@/cli/local/embedded-postgres";
import { LOCAL_S3_CREDENTIALS, type LocalS3, startLocalS3 } from "@/cli/local/local-s3";
import { OPERATOR } from "@/server/accounts/actor";
import { createApiKey } from "@/server/accounts/api-keys";
import { pgPool } from "@/server/db/pg-pool";
import { type JobBucket, jobBucket } from "@/server/pipeline/report/jobs/job-bucket";
import { handleCreateReportJob } from "./api/checked-report-routes";
import { duckdb } from "./export-bucket";
import { makeAdvertiser } from "./fixtures";
import { seedLargeAdsReport } from "./large-report";

export const JOBS_BUCKET = "tally-report-jobs";

/** Call at the top of a test file, before anything reads the environment. */
export async function reportJobBucketForTests() {
  const port = await freePort();
  const work = mkdtempSync(path.join(tmpdir(), "tally-report-jobs-test-"));
  Object.assign(process.env, {
    TALLY_REPORT_JOBS_BUCKET: JOBS_BUCKET,
    TALLY_REPORT_JOBS_S3_ENDPOINT: `http://127.0.0.1:${port}`,
    TALLY_REPORT_JOBS_S3_FORCE_PATH_STYLE: "1",
    TALLY_REPORT_JOBS_S3_ACCESS_KEY_ID: LOCAL_S3_CREDENTIALS.accessKeyId,
    TALLY_REPORT_JOBS_S3_SECRET_ACCESS_KEY: LOCAL_S3_CREDENTIALS.secretAccessKey,
  });
  let s3: LocalS3 | undefined;
  beforeAll(async () => {
    s3 = await startLocalS3({ directory: path.join(work, "s3"), port, buckets: [JOBS_BUCKET] });
  });
  afterAll(async () => {
    await s3?.stop().catch(() => {});
    rmSync(work, { recursive: true, force: true });
  });
  const bucket = (): JobBucket => jobBucket()!;
  let files = 0;
  return {
    bucket,
    async listKeys(prefix = ""): Promise<string[]> {
      const page = await bucket().client.send(new ListObjectsV2Command({ Bucket: JOBS_BUCKET, Prefix: prefix }));
      return (page.Contents ?? []).map((o) => o.Key!).sort();
    },
    /** The file at a download address, saved locally (DuckDB reads it there). */
    async fetchFile(url: string): Promise<{ file: string; bytes: Buffer; disposition: string | null }> {
      const response = await fetch(url);
      if (!response.ok) throw new Error(`GET ${url}: ${response.status}`);
      const bytes = Buffer.from(await response.arrayBuffer());
      files += 1;
      const file = path.join(work, `download-${files}`);
      writeFileSync(file, bytes);
      return { file, bytes, disposition: response.headers.get("content-disposition") };
    },
  };
}

/** Rows as another reader gave them (DuckDB, exceljs), in the JSON's terms: whole-day dates as YYYY-MM-DD, big integers as numbers. */
export function inJsonTerms(rows: Record<string, unknown>[]): Record<string, unknown>[] {
  return rows.map((row) =>
    Object.fromEntries(
      Object.entries(row).map(([key, value]) => [
        key,
        typeof value === "bigint" ? Number(value) : value instanceof Date ? value.toISOString().slice(0, 10) : value,
      ]),
    ),
  );
}

/** A CSV file's rows as DuckDB reads them, every field as text (null when empty). */
export async function csvRows(file: string): Promise<Record<string, unknown>[]> {
  return (await duckdb())(`SELECT * FROM read_csv('${file}', header = true, all_varchar = true)`);
}

/** A JSON lines file's rows as DuckDB reads them. */
export async function jsonLinesRows(file: string): Promise<Record<string, unknown>[]> {
  return (await duckdb())(`SELECT * FROM read_json('${file}', format = 'newline_delimited')`);
}

/** Seeds the large ads report (400 days of 50 ads) and asks for it as a CSV job through the route, by an API key of its advertiser: the report's figures and the job's id. */
export async function queueLargeAdsJob() {
  const large = await seedLargeAdsReport(pgPool(), { ads: 50, days: 400, endDate: "2026-11-20" });
  const { key } = await createApiKey({ actor: OPERATOR, accountId: large.advertiserId, name: "jobs" });
  const asked = await handleCreateReportJob(
    new Request("http://tally.test/report/jobs", {
      method: "POST",
      headers: { Authorization: `Bearer ${key}`, "Content-Type": "application/json" },
      body: JSON.stringify({ report: "ads_detailed", start_date: large.startDate, end_date: large.endDate, order_by: "day", order: "asc", format: "csv" }),
    }),
  );
  if (asked.status !== 202) throw new Error(`the report job was not queued: ${asked.status} ${await asked.text()}`);
  const { id } = ((await asked.json()) as { data: { id: string } }).data;
  return { large, id };
}

/** A new advertiser as a report job's caller and as the report limits' requester (an API key of its own). */
export async function advertiserCaller() {
  const advertiser = await makeAdvertiser();
  return {
    caller: { accountId: advertiser.id, accountKind: "advertiser" as const },
    requester: { caller: `key:test-${advertiser.id}`, account: advertiser.id },
  };
}
