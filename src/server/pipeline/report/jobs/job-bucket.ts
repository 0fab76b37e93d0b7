// The operator's bucket of report jobs' files (TALLY_REPORT_JOBS_*): its client, a streamed
// multipart upload (parts held one at a time, so a file of any size never sits in memory),
// presigned downloads and deletes. The bucket is the operator's own, named by its settings, not a
// tenant's: its endpoint may be a private address (a local S3, MinIO beside Tally).
import {
  AbortMultipartUploadCommand,
  CompleteMultipartUploadCommand,
  CreateMultipartUploadCommand,
  DeleteObjectCommand,
  GetObjectCommand,
  PutObjectCommand,
  S3Client,
  UploadPartCommand,
} from "@aws-sdk/client-s3";
import { getSignedUrl } from "@aws-sdk/s3-request-presigner";
import { env } from "@/env";
import { TallyError } from "@/server/core/errors";

export interface JobBucket {
  bucket: string;
  client: S3Client;
}

export interface JobBucketSettings {
  bucket: string;
  region: string;
  endpoint?: string;
  forcePathStyle: boolean;
  credentials?: { accessKeyId: string; secretAccessKey: string };
}

export function jobBucketSettings(): JobBucketSettings | null {
  const config = env();
  if (!config.TALLY_REPORT_JOBS_BUCKET) return null;
  const keys =
    config.TALLY_REPORT_JOBS_S3_ACCESS_KEY_ID && config.TALLY_REPORT_JOBS_S3_SECRET_ACCESS_KEY
      ? { accessKeyId: config.TALLY_REPORT_JOBS_S3_ACCESS_KEY_ID, secretAccessKey: config.TALLY_REPORT_JOBS_S3_SECRET_ACCESS_KEY }
      : undefined;
  return {
    bucket: config.TALLY_REPORT_JOBS_BUCKET,
    region: config.TALLY_REPORT_JOBS_S3_REGION,
    endpoint: config.TALLY_REPORT_JOBS_S3_ENDPOINT,
    forcePathStyle: config.TALLY_REPORT_JOBS_S3_FORCE_PATH_STYLE,
    credentials: keys,
  };
}

const holder = globalThis as unknown as { tallyJobBucket?: JobBucket | null };

export function openJobBucket(settings: JobBucketSettings): JobBucket {
  return {
    bucket: settings.bucket,
    client: new S3Client({
      region: settings.region,
      endpoint: settings.endpoint,
      forcePathStyle: settings.forcePathStyle,
      credentials: settings.credentials,
      // Several S3-compatible stores reject the SDK's newer default trailing checksums.
      requestChecksumCalculation: "WHEN_REQUIRED",
      responseChecksumValidation: "WHEN_REQUIRED",
      maxAttempts: 3,
      requestHandler: { connectionTimeout: 5_000, requestTimeout: 120_000 },
    }),
  };
}

/** The configured bucket, or null when TALLY_REPORT_JOBS_BUCKET is unset. */
export function jobBucket(): JobBucket | null {
  if (holder.tallyJobBucket === undefined) {
    const settings = jobBucketSettings();
    holder.tallyJobBucket = settings ? openJobBucket(settings) : null;
  }
  return holder.tallyJobBucket;
}

/** The bucket, or the 503 that says none is configured. */
export function requireJobBucket(): JobBucket {
  const bucket = jobBucket();
  if (!bucket) throw new TallyError("unavailable", "report jobs are not available: the operator has not configured their bucket (TALLY_REPORT_JOBS_BUCKET)");
  return bucket;
}

/** S3's smallest part but the last; parts are sent one at a time, so this is about what one upload holds. */
export const PART_BYTES = 8 * 1024 * 1024;

export interface StreamedUpload {
  /** Takes the file's next bytes; resolves once they are held or sent (the writer waits, so memory stays at a part). */
  write(chunk: Uint8Array): Promise<void>;
  /** Sends what is left and makes the object; `beforeComplete` may still refuse (a lost lease). */
  complete(beforeComplete?: () => Promise<void>): Promise<{ bytes: number; parts: number }>;
  /** Gives the parts up: S3 keeps no object and frees them. */
  abort(): Promise<void>;
}

/**
 * An object written part by part as its bytes come (CreateMultipartUpload, UploadPart, Complete).
 * The bytes are copied into one buffer of `partBytes`, sent when full and then filled again, so
 * an upload holds one part whatever the file's size, and every part but the last is the same
 * size (which R2 and some other S3-compatible stores require). A file smaller than one part is a
 * single put when it ends: no multipart upload to start or abort. `onPart` hears of each part
 * sent, with its size.
 */
export async function streamedUpload(
  target: JobBucket,
  key: string,
  contentType: string,
  { partBytes = PART_BYTES, onPart }: { partBytes?: number; onPart?: (part: number, bytes: number) => void } = {},
): Promise<StreamedUpload> {
  const { client, bucket } = target;
  let uploadId: string | undefined;
  const parts: { ETag: string; PartNumber: number }[] = [];
  let part: Buffer | null = Buffer.allocUnsafe(partBytes);
  let filled = 0;
  let bytes = 0;

  const heldPart = () => {
    if (!part) throw new Error("the upload has ended");
    return part;
  };
  const sendPart = async () => {
    uploadId ??= (await client.send(new CreateMultipartUploadCommand({ Bucket: bucket, Key: key, ContentType: contentType }))).UploadId!;
    // The SDK has sent the body when send() resolves, so the buffer may be filled again after.
    const body = heldPart().subarray(0, filled);
    const PartNumber = parts.length + 1;
    const sent = await client.send(
      new UploadPartCommand({ Bucket: bucket, Key: key, UploadId: uploadId, PartNumber, Body: body, ContentLength: body.byteLength }),
    );
    parts.push({ ETag: sent.ETag!, PartNumber });
    filled = 0;
    onPart?.(PartNumber, body.byteLength);
  };

  return {
    async write(chunk) {
      bytes += chunk.byteLength;
      for (let at = 0; at < chunk.byteLength; ) {
        const copied = Math.min(chunk.byteLength - at, partBytes - filled);
        heldPart().set(chunk.subarray(at, at + copied), filled);
        filled += copied;
        at += copied;
        if (filled === partBytes) await sendPart();
      }
    },
    async complete(beforeComplete) {
      if (uploadId === undefined) {
        const body = heldPart().subarray(0, filled);
        await beforeComplete?.();
        await client.send(new PutObjectCommand({ Bucket: bucket, Key: key, Body: body, ContentLength: body.byteLength, ContentType: contentType }));
        part = null;
        return { bytes, parts: 1 };
      }
      if (filled > 0) await sendPart();
      part = null;
      await beforeComplete?.();
      await client.send(new CompleteMultipartUploadCommand({ Bucket: bucket, Key: key, UploadId: uploadId, MultipartUpload: { Parts: parts } }));
      return { bytes, parts: parts.length };
    },
    async abort() {
      part = null;
      filled = 0;
      if (uploadId !== undefined) await client.send(new AbortMultipartUploadCommand({ Bucket: bucket, Key: key, UploadId: uploadId }));
    },
  };
}

/** How long a download address works. */
export const DOWNLOAD_URL_SECONDS = 15 * 60;

/** A GET address of the object that works for DOWNLOAD_URL_SECONDS, its file named `fileName`. */
export function presignedDownload(target: JobBucket, key: string, fileName: string): Promise<string> {
  return getSignedUrl(
    target.client,
    new GetObjectCommand({ Bucket: target.bucket, Key: key, ResponseContentDisposition: `attachment; filename="${fileName}"` }),
    { expiresIn: DOWNLOAD_URL_SECONDS },
  );
}

/** Deletes an object; one that is not there is no error (S3 answers 204 either way). */
export async function deleteJobObject(target: JobBucket, key: string): Promise<void> {
  await target.client.send(new DeleteObjectCommand({ Bucket: target.bucket, Key: key }));
}
