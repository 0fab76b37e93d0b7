// The export when things go wrong outside it: the storage going away half-way, the worker killed
// half-way (SIGKILL, as a platform ends a function at its time limit), a bucket that does not
// exist and credentials refused. Real Postgres, a real S3 API (s3rver), files read back with DuckDB.
import { spawn } from "node:child_process";
import { describe, expect, it } from "vitest";
import { OPERATOR } from "@/server/accounts/actor";
import { db } from "@/server/db/client";
import { getDestination, updateDestination } from "@/server/pipeline/export/destinations/destinations";
import { duckdb, editable, fileList, localBucketsForTests, twoDayOldDestination } from "@/testing/export-bucket";
import { shopWithTraffic as shopAround } from "@/testing/export-traffic";
import { makePublisher } from "@/testing/fixtures";
import { runDueExports } from "./run-exports";

const DAY_MS = 86_400_000;
const T0 = Date.now();
const bucket = localBucketsForTests(["publisher-data", "faulty"]);
const { listKeys, download } = bucket;
const shopWithTraffic = () => shopAround(T0);
const destinationFor = (accountId: string, name: string, types?: string[]) =>
  twoDayOldDestination({ accountId, bucket: name, endpoint: bucket.s3.endpoint, prefix: "tally/exports", types, t0: T0 });

describe("a batch interrupted by the storage going away", () => {
  it("is recorded as failed, leaves the watermark, and is delivered whole by the next run", async () => {
    const shop = await shopWithTraffic();
    const destination = await destinationFor(shop.publisher.id, "faulty", ["ad_events"]);
    let files = 0;
    let stopped = false;
    try {
      const first = await runDueExports({
        now: () => new Date(T0 + 2 * DAY_MS),
        destinationId: destination.id,
        rowsPerFile: 1,
        // The storage stops after the first file written.
        onFile: async () => {
          files += 1;
          if (files === 1) {
            stopped = true;
            await bucket.s3.stop();
          }
        },
      });
      // Depending on the hour this runs, a batch before the traffic may be empty and delivered
      // first; the failure is the last run of the call.
      const failedRun = first.runs.at(-1)!;
      expect(first.runs.filter((r) => r.status === "failed")).toEqual([failedRun]);
      expect(failedRun).toMatchObject({ status: "failed", error: expect.stringContaining("cannot be reached") });
      const failed = await db.exportRun.findUniqueOrThrow({ where: { id: failedRun.runId } });
      // A connection error is not a row's fault: nothing is set aside, the run fails and is retried.
      expect(failed).toMatchObject({ status: "failed", attempt: 1, setAsideRows: 0 });
      expect(failed.nextAttemptAt).not.toBeNull();
      // The watermark stands where the failed batch starts (or nowhere, if it was the first).
      const watermark = await db.exportWatermark.findUnique({ where: { destinationId_type: { destinationId: destination.id, type: "ad_events" } } });
      expect(watermark?.deliveredTo.toISOString() ?? null).toBe(first.runs.length > 1 ? failedRun.rangeStart : null);
    } finally {
      if (stopped) await bucket.restart();
    }
    const failed = await db.exportRun.findFirstOrThrow({ where: { destinationId: destination.id, status: "failed" } });
    // Before the back-off ends nothing is retried; after it, the same run with the same keys.
    expect((await runDueExports({ now: () => new Date(T0 + 2 * DAY_MS), destinationId: destination.id })).runs).toEqual([]);
    const second = await runDueExports({ now: () => new Date(T0 + 2 * DAY_MS + 10 * 60_000), destinationId: destination.id, rowsPerFile: 1 });
    expect(second.runs[0]).toMatchObject({ runId: failed.id, status: "succeeded", attempt: 2 });
    expect(second.runs.every((r) => r.status === "succeeded")).toBe(true);

    const all = await db.exportRun.findMany({ where: { destinationId: destination.id }, orderBy: { rangeStart: "asc" } });
    const keys = await listKeys("faulty", "tally/exports/ad_events/");
    expect(keys.filter((k) => k.endsWith(".parquet"))).toEqual(all.flatMap((r) => r.keys).sort());
    const downloaded = await download(
      "faulty",
      keys.filter((k) => k.endsWith(".parquet")),
    );
    const sql = await duckdb();
    const counted = await db.adEvent.count({ where: { publisherId: shop.publisher.id, status: "counted" } });
    expect(await sql(`SELECT count(*)::int AS rows, count(DISTINCT event_id)::int AS ids FROM read_parquet(${fileList(downloaded)})`)).toEqual([
      { rows: counted, ids: counted },
    ]);
    const watermark = await db.exportWatermark.findUniqueOrThrow({ where: { destinationId_type: { destinationId: destination.id, type: "ad_events" } } });
    expect(watermark.deliveredTo.getTime()).toBe(all.at(-1)!.rangeEnd.getTime());
  });

  it("loses and repeats nothing when the worker is killed half-way through a batch", async () => {
    const shop = await shopWithTraffic();
    const destination = await destinationFor(shop.publisher.id, "faulty", ["ad_events"]);
    const now = T0 + 2 * DAY_MS;
    // Asynchronously: the local S3 answering the child runs in this process.
    const child = spawn(process.execPath, ["--import", "tsx", "src/testing/export-until-killed.ts", destination.id, String(now)], {
      env: process.env,
      stdio: ["ignore", "ignore", "pipe"],
    });
    let stderr = "";
    child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
    const signal = await new Promise<NodeJS.Signals | null>((resolve) => child.on("exit", (_code, s) => resolve(s)));
    expect({ signal, stderr: stderr.slice(-2000) }).toMatchObject({ signal: "SIGKILL" });
    // The run stays as it was left: running, one file uploaded, the watermark not past it. (An
    // empty batch before the traffic may have been delivered first, depending on the hour.)
    const left = await db.exportRun.findFirstOrThrow({ where: { destinationId: destination.id, status: "running" } });
    expect(left).toMatchObject({ status: "running", attempt: 1 });
    const watermark = await db.exportWatermark.findUnique({ where: { destinationId_type: { destinationId: destination.id, type: "ad_events" } } });
    expect(watermark === null || watermark.deliveredTo.getTime() === left.rangeStart.getTime()).toBe(true);
    const uploaded = (await listKeys("faulty")).filter((k) => left!.keys.includes(k));
    expect(uploaded).toHaveLength(1);

    // The next call takes the abandoned run over (the killed worker's lock went with its connection).
    const resumed = await runDueExports({ now: () => new Date(now), destinationId: destination.id, rowsPerFile: 1 });
    expect(resumed.runs[0]).toMatchObject({ runId: left!.id, status: "succeeded", attempt: 2 });
    const runs = await db.exportRun.findMany({ where: { destinationId: destination.id } });
    const keys = runs.flatMap((r) => r.keys);
    const files = await download("faulty", keys);
    const sql = await duckdb();
    const counted = await db.adEvent.count({ where: { publisherId: shop.publisher.id, status: "counted" } });
    expect(await sql(`SELECT count(*)::int AS rows, count(DISTINCT event_id)::int AS ids FROM read_parquet(${fileList(files)})`)).toEqual([
      { rows: counted, ids: counted },
    ]);
  });

  it("marks a destination whose bucket does not exist as needing attention, and does not retry it", async () => {
    const publisher = await makePublisher();
    const destination = await destinationFor(publisher.id, "no-such-bucket", ["advertisers"]);
    const result = await runDueExports({ now: () => new Date(T0 + 2 * DAY_MS), destinationId: destination.id });
    expect(result.runs).toHaveLength(1);
    expect(result.runs[0]!.error).toBe(`bucket no-such-bucket does not exist at ${bucket.s3.endpoint}`);
    expect(await getDestination(destination.id, { actor: OPERATOR })).toMatchObject({
      status: "needs_attention",
      statusReason: `bucket no-such-bucket does not exist at ${bucket.s3.endpoint}`,
    });
    expect((await runDueExports({ now: () => new Date(T0 + 3 * DAY_MS), destinationId: destination.id })).runs).toEqual([]);
    // Refused credentials are not retried on a timer either.
    const refused = await destinationFor(publisher.id, "publisher-data", ["advertisers"]);
    await updateDestination(
      refused.id,
      {
        ...(await editable(refused.id)),
        credentials: { kind: "access_key", accessKeyId: "AKIDWRONG", secretAccessKey: "wrong-secret" },
      },
      { actor: OPERATOR },
    );
    const denied = await runDueExports({ now: () => new Date(T0 + 2 * DAY_MS), destinationId: refused.id });
    expect(denied.runs.map((r) => r.error)).toEqual(["access denied: the credentials may not write to bucket publisher-data (InvalidAccessKeyId)"]);
    expect(await getDestination(refused.id, { actor: OPERATOR })).toMatchObject({ status: "needs_attention" });
    expect(
      JSON.stringify(await db.exportRun.findMany({ where: { destinationId: refused.id } }), (_, v: unknown) => (typeof v === "bigint" ? String(v) : v)),
    ).not.toContain("wrong-secret");
    // Fixing the destination makes it active again.
    const fixed = await updateDestination(destination.id, { ...(await editable(destination.id)), bucket: "publisher-data" }, { actor: OPERATOR });
    expect(fixed.status).toBe("active");
  });
});
