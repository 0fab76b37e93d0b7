// The report jobs' streamed upload against a real S3 API (s3rver): a file of many writes goes out
// in parts of exactly the part size but the last, one part held at a time, and the object read
// back is the bytes written; a job's file of many rows goes out the same way.
import { createHash } from "node:crypto";
import { GetObjectCommand } from "@aws-sdk/client-s3";
import { describe, expect, it } from "vitest";
import { DAY_MS } from "@/server/core/days";
import { csvRows, JOBS_BUCKET, queueLargeAdsJob, reportJobBucketForTests } from "@/testing/report-job-bucket";
import { streamedUpload } from "./job-bucket";
import { deleteExpiredReportJobs } from "./report-job-retention";
import { getReportJob } from "./report-jobs";
import { runReportJobs } from "./run-report-jobs";

const jobsBucket = await reportJobBucketForTests();
const MiB = 1024 * 1024;
// S3's smallest part but the last.
const PART = 5 * MiB;

describe("a streamed upload", () => {
  it("sends parts of exactly the part size as the writes fill them, the last one shorter, and the object is the bytes written", async () => {
    const parts: number[] = [];
    const upload = await streamedUpload(jobsBucket.bucket(), "tests/streamed.bin", "application/octet-stream", {
      partBytes: PART,
      onPart: (_part, bytes) => parts.push(bytes),
    });
    const written = createHash("sha256");
    let total = 0;
    // Writes of uneven sizes, some larger than a part, so parts fill across them.
    for (const size of [700_001, 3 * MiB, 6 * MiB + 17, 1, 999_999, 2 * MiB, 4 * MiB + 3]) {
      const chunk = Buffer.alloc(size, total % 251);
      written.update(chunk);
      total += size;
      await upload.write(chunk);
      // Never more than a part waits to be sent.
      expect(total - parts.reduce((sum, bytes) => sum + bytes, 0)).toBeLessThan(PART);
    }
    expect(await upload.complete()).toEqual({ bytes: total, parts: Math.ceil(total / PART) });
    expect(parts).toEqual([...Array.from({ length: Math.floor(total / PART) }, () => PART), total % PART]);
    const object = await jobsBucket.bucket().client.send(new GetObjectCommand({ Bucket: JOBS_BUCKET, Key: "tests/streamed.bin" }));
    const stored = Buffer.from(await object.Body!.transformToByteArray());
    expect(stored.byteLength).toBe(total);
    expect(createHash("sha256").update(stored).digest("hex")).toBe(written.digest("hex"));
  });
});

describe("a report job's file of many rows", () => {
  it("goes out in parts of the part size, each row once", async () => {
    const { large, id } = await queueLargeAdsJob();
    const parts: number[] = [];
    const [outcome] = await runReportJobs({ settings: { partBytes: PART }, onPart: (_part, bytes) => parts.push(bytes) });
    expect(outcome).toMatchObject({ id, status: "done", rows: large.rows });
    expect(parts.length).toBeGreaterThan(1);
    expect(parts.slice(0, -1).every((bytes) => bytes === PART)).toBe(true);
    expect(parts.reduce((sum, bytes) => sum + bytes, 0)).toBe(outcome!.bytes);

    const job = await getReportJob({ caller: { accountId: large.advertiserId, accountKind: "advertiser" }, id });
    const rows = await csvRows((await jobsBucket.fetchFile(job.download_url!)).file);
    expect(rows).toHaveLength(large.rows);
    expect(new Set(rows.map((r) => `${r.ad_id} ${r.day}`)).size).toBe(large.rows);
    await deleteExpiredReportJobs(new Date(Date.now() + 8 * DAY_MS));
  });
});
