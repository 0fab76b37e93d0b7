// For the export's integration tests: a real S3 API (s3rver) per test file, its objects downloaded
// to local files, the files read with DuckDB (a reader Tally did not write), and destinations on
// it that look two days old, so their watermarks start before the tests' traffic.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { GetObjectCommand, ListObjectsV2Command, S3Client } from "@aws-sdk/client-s3";
import { DuckDBInstance } from "@duckdb/node-api";
import { afterAll, beforeAll } from "vitest";
import { LOCAL_S3_CREDENTIALS, type LocalS3, startLocalS3 } from "@/cli/local/local-s3";
import { OPERATOR } from "@/server/accounts/actor";
import { db } from "@/server/db/client";
import { createDestination, getDestination } from "@/server/export/destinations";

const DAY_MS = 86_400_000;

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
export async function twoDayOldDestination(options: { accountId: string; bucket: string; endpoint: string; prefix: string; types?: string[]; t0: number }) {
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
    types: view.types,
  };
}
