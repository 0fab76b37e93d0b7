// For the export's integration tests: a real S3 API (s3rver) per test file, its objects downloaded
// to local files, the files read with DuckDB (a reader Tally did not write), and destinations on
// it that look two days old, so their watermarks start before the tests' traffic.
import { randomUUID } from "node:crypto";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { GetObjectCommand, ListObjectsV2Command, S3Client } from "@aws-sdk/client-s3";
import { DuckDBInstance } from "@duckdb/node-api";
import { afterAll, beforeAll } from "vitest";
import { LOCAL_S3_CREDENTIALS, type LocalS3, startLocalS3 } from "@/cli/local/local-s3";
import { OPERATOR } from "@/server/accounts/actor";
import { DAY_MS, startOfUtcDay } from "@/server/core/days";
import { db } from "@/server/db/client";
import { createDestination, getDestination } from "@/server/pipeline/export/destinations/destinations";

export interface TestBucket {
  /** The running s3rver (a new one after restart()). */
  readonly s3: LocalS3;
  /** Starts the stopped s3rver again on the same port and directory. */
  restart(): Promise<void>;
  /** Every key of a bucket under `prefix`, sorted. */
  listKeys(bucket: string, prefix?: string): Promise<string[]>;
  /** Downloads objects to local files (DuckDB reads them there, with no S3 extension to fetch); their paths. */
  download(bucket: string, keys: string[]): Promise<string[]>;
}

/** Starts s3rver with `buckets` before the file's tests and stops it after them. */
export function localBucketsForTests(buckets: string[]): TestBucket {
  const work = mkdtempSync(path.join(tmpdir(), "tally-export-test-"));
  let s3: LocalS3 | undefined;
  beforeAll(async () => {
    s3 = await startLocalS3({ directory: path.join(work, "s3"), buckets });
  });
  afterAll(async () => {
    await s3?.stop().catch(() => {});
    rmSync(work, { recursive: true, force: true });
  });
  const client = () =>
    new S3Client({
      region: "us-east-1",
      endpoint: s3!.endpoint,
      forcePathStyle: true,
      credentials: LOCAL_S3_CREDENTIALS,
      requestChecksumCalculation: "WHEN_REQUIRED",
      responseChecksumValidation: "WHEN_REQUIRED",
    });
  return {
    get s3() {
      return s3!;
    },
    async restart() {
      s3 = await startLocalS3({ directory: s3!.directory, port: s3!.port });
    },
    async listKeys(bucket, prefix = "") {
      const keys: string[] = [];
      let token: string | undefined;
      do {
        const page = await client().send(new ListObjectsV2Command({ Bucket: bucket, Prefix: prefix, ContinuationToken: token }));
        keys.push(...(page.Contents ?? []).map((o) => o.Key!));
        token = page.NextContinuationToken;
      } while (token);
      return keys.sort();
    },
    async download(bucket, keys) {
      const files: string[] = [];
      for (const key of keys) {
        const object = await client().send(new GetObjectCommand({ Bucket: bucket, Key: key }));
        const file = path.join(work, "downloads", bucket, key);
        mkdirSync(path.dirname(file), { recursive: true });
        writeFileSync(file, Buffer.from(await object.Body!.transformToByteArray()));
        files.push(file);
      }
      return files;
    },
  };
}

/** A DuckDB session in memory: the rows of a query as objects. */
export async function duckdb(): Promise<(sql: string) => Promise<Record<string, unknown>[]>> {
  const connection = await (await DuckDBInstance.create(":memory:")).connect();
  return async (sql: string) => (await connection.runAndReadAll(sql)).getRowObjectsJS();
}

/** Local files as a DuckDB list literal. */
export const fileList = (files: string[]) => `[${files.map((f) => `'${f}'`).join(", ")}]`;

/** A destination in `bucket` of the local S3, made (as far as its watermarks know) two days before `t0`. */
export async function twoDayOldDestination(options: {
  accountId: string;
  bucket: string;
  endpoint: string;
  prefix: string;
  types?: string[];
  t0: number;
  aggregateLayout?: "interface" | "extended";
}) {
  const destination = await createDestination(
    {
      accountId: options.accountId,
      name: `Data lake ${options.bucket}`,
      bucket: options.bucket,
      region: "us-east-1",
      endpoint: options.endpoint,
      forcePathStyle: true,
      prefix: options.prefix,
      credentials: { kind: "access_key", ...LOCAL_S3_CREDENTIALS },
      ...(options.types ? { types: options.types } : {}),
      ...(options.aggregateLayout ? { aggregateLayout: options.aggregateLayout } : {}),
    },
    { actor: OPERATOR },
  );
  await db.exportDestination.update({ where: { id: destination.id }, data: { createdAt: new Date(options.t0 - 2 * DAY_MS) } });
  return destination;
}

/** A destination's view as the update input, secret masked, as a form would send it back (a role without its external id, which is Tally's). */
export async function editable(id: string) {
  const view = (await getDestination(id, { actor: OPERATOR }))!;
  const credentials = view.credentials.kind === "assume_role" ? { kind: "assume_role" as const, roleArn: view.credentials.roleArn } : view.credentials;
  return {
    accountId: view.accountId,
    name: view.name,
    bucket: view.bucket,
    region: view.region,
    endpoint: view.endpoint,
    forcePathStyle: view.forcePathStyle,
    prefix: view.prefix,
    credentials,
    writeSuccessMarker: view.writeSuccessMarker,
    aggregateLayout: view.aggregateLayout,
    types: view.types,
  };
}

/**
 * What the export's batch tests share: a bucket on a local S3 for the file, the moment the tests
 * started (T0), yesterday 00:00 UTC (rows between it and today 00:00 fall in one event batch of a
 * destination made two days ago), a "two days later" clock, destinations under their own prefix,
 * and the event ids found in Parquet files. Call it at the top of a test file.
 */
export function exportTestBed(bucketName = "lake") {
  const T0 = Date.now();
  const bucket = localBucketsForTests([bucketName]);
  return {
    bucket,
    BUCKET: bucketName,
    T0,
    YESTERDAY: startOfUtcDay(T0).getTime() - DAY_MS,
    later: () => new Date(T0 + 2 * DAY_MS),
    /** A destination under its own prefix, made two days ago (its watermarks start before yesterday). */
    async destinationFor(accountId: string, types: string[], endpoint = bucket.s3.endpoint) {
      const prefix = `t-${randomUUID()}`;
      const destination = await twoDayOldDestination({ accountId, bucket: bucketName, endpoint, prefix, types, t0: T0 });
      return { ...destination, prefix: `${prefix}/` };
    },
    /** The event ids in the Parquet files among `keys`, in file order (receipt time, then id). */
    async eventIdsIn(keys: string[]): Promise<string[]> {
      const parquet = keys.filter((k) => k.endsWith(".parquet"));
      if (parquet.length === 0) return [];
      const sql = await duckdb();
      const files = await bucket.download(bucketName, parquet);
      return (await sql(`SELECT event_id FROM read_parquet(${fileList(files)}) ORDER BY created_at, event_id`)).map((r) => String(r.event_id));
    },
  };
}
