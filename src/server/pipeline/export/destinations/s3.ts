// Writing to a destination's bucket: the S3 client for its credentials, uploads, the connection
// test, and S3's errors in plain words for the run history and the dashboard.

import { randomBytes } from "node:crypto";
import { createReadStream } from "node:fs";
import { DeleteObjectCommand, PutObjectCommand, S3Client } from "@aws-sdk/client-s3";
import { fromTemporaryCredentials } from "@aws-sdk/credential-providers";
import { TallyError } from "@/server/core/errors";
import type { DestinationWithSecret } from "./destinations";
import { guardedAgents, isRefusedConnection, privateEndpointsAllowed } from "./endpoint-guard";

export interface ConnectOptions {
  /** TALLY_EXPORT_ALLOW_PRIVATE_ENDPOINTS unless given: whether the endpoint may reach non-public addresses. */
  allowPrivateEndpoints?: boolean;
}

export function s3ClientFor(destination: DestinationWithSecret, options: ConnectOptions = {}): S3Client {
  const allowPrivate = options.allowPrivateEndpoints ?? privateEndpointsAllowed();
  const credentials =
    destination.credentials.kind === "access_key"
      ? { accessKeyId: destination.credentials.accessKeyId, secretAccessKey: destination.secretAccessKey ?? "" }
      : // The operator's own AWS credentials (the SDK's default chain) assume the customer's role;
        // the external id is the customer's proof that the role is meant for Tally.
        fromTemporaryCredentials({
          params: {
            RoleArn: destination.credentials.roleArn,
            ExternalId: destination.credentials.externalId,
            RoleSessionName: "tally-export",
            DurationSeconds: 3600,
          },
        });
  return new S3Client({
    region: destination.region,
    endpoint: destination.endpoint ?? undefined,
    forcePathStyle: destination.forcePathStyle,
    credentials,
    // Checksums only where S3 requires them: several S3-compatible stores reject the newer
    // default trailing checksums.
    requestChecksumCalculation: "WHEN_REQUIRED",
    responseChecksumValidation: "WHEN_REQUIRED",
    maxAttempts: 3,
    // Every connection, to the tenant's endpoint or to AWS, goes through agents that dial public
    // addresses only (endpoint-guard.ts), unless the operator allows private ones.
    requestHandler: { connectionTimeout: 5_000, requestTimeout: 120_000, ...guardedAgents(allowPrivate) },
  });
}

/** Uploads a local file (its length known, so S3 needs no chunked encoding). */
export async function uploadFile(client: S3Client, bucket: string, key: string, file: string, bytes: number, contentType: string): Promise<void> {
  await client.send(new PutObjectCommand({ Bucket: bucket, Key: key, Body: createReadStream(file), ContentLength: bytes, ContentType: contentType }));
}

export async function uploadEmpty(client: S3Client, bucket: string, key: string): Promise<void> {
  await client.send(new PutObjectCommand({ Bucket: bucket, Key: key, Body: "", ContentLength: 0 }));
}

export async function uploadText(client: S3Client, bucket: string, key: string, text: string, contentType: string): Promise<void> {
  const body = Buffer.from(text, "utf8");
  await client.send(new PutObjectCommand({ Bucket: bucket, Key: key, Body: body, ContentLength: body.length, ContentType: contentType }));
}

/** Deletes an object; one that is not there is no error (S3 answers 204 either way). */
export async function deleteObject(client: S3Client, bucket: string, key: string): Promise<void> {
  await client.send(new DeleteObjectCommand({ Bucket: bucket, Key: key }));
}

export interface S3Problem {
  message: string;
  /** Retrying will not help until someone changes the destination or the bucket's policy. */
  needsAttention: boolean;
}

/** An S3 or network error in words an account manager can act on. Never includes credentials. */
export function describeS3Error(error: unknown, destination: Pick<DestinationWithSecret, "bucket" | "region" | "endpoint">): S3Problem {
  const e = error as { name?: string; Code?: string; code?: string; message?: string; $metadata?: { httpStatusCode?: number }; cause?: { code?: string } };
  const name = e.name ?? e.Code ?? "";
  const code = e.code ?? e.cause?.code ?? "";
  const status = e.$metadata?.httpStatusCode;
  const where = destination.endpoint ?? `S3 in ${destination.region}`;
  // Tally's own words: an endpoint that is not public (a person must change it), a batch that
  // cannot be isolated or keeps changing (retried).
  if (error instanceof TallyError) return { message: error.message, needsAttention: isRefusedConnection(error) };
  if (
    ["AccessDenied", "InvalidAccessKeyId", "SignatureDoesNotMatch", "AllAccessDisabled", "AccountProblem"].includes(name) ||
    name.startsWith("AccessDenied")
  ) {
    return { message: `access denied: the credentials may not write to bucket ${destination.bucket} (${name})`, needsAttention: true };
  }
  if (name === "ExpiredToken" || name === "InvalidClientTokenId" || name === "RegionDisabledException") {
    return { message: `the role could not be assumed (${name}): check the role ARN, its trust policy and the external id`, needsAttention: true };
  }
  if (name === "NoSuchBucket") return { message: `bucket ${destination.bucket} does not exist at ${where}`, needsAttention: true };
  if (name === "PermanentRedirect" || name === "AuthorizationHeaderMalformed" || name === "IllegalLocationConstraintException" || status === 301) {
    return { message: `bucket ${destination.bucket} is not in region ${destination.region}: set the bucket's region`, needsAttention: true };
  }
  if (["ECONNREFUSED", "ENOTFOUND", "EAI_AGAIN", "ETIMEDOUT", "ECONNRESET", "EHOSTUNREACH", "ENETUNREACH", "EPIPE"].includes(code) || name === "TimeoutError") {
    return { message: `the endpoint ${where} cannot be reached (${code || name})`, needsAttention: false };
  }
  if (status === 403) return { message: `access denied by ${where} (HTTP 403)`, needsAttention: true };
  if (status === 404) return { message: `bucket ${destination.bucket} was not found at ${where} (HTTP 404)`, needsAttention: true };
  return { message: `${name || "error"}: ${e.message ?? String(error)}`.slice(0, 500), needsAttention: false };
}

export type ConnectionTest = { ok: true; key: string } | { ok: false; error: string };

/** Writes and deletes a small probe object under the destination's prefix. */
export async function testConnection(destination: DestinationWithSecret, options: ConnectOptions = {}): Promise<ConnectionTest> {
  const client = s3ClientFor(destination, options);
  const key = `${destination.prefix}_tally_connection_test/${Date.now()}-${randomBytes(6).toString("hex")}.txt`;
  try {
    await client.send(
      new PutObjectCommand({ Bucket: destination.bucket, Key: key, Body: "Tally connection test: safe to delete.\n", ContentType: "text/plain" }),
    );
    await client.send(new DeleteObjectCommand({ Bucket: destination.bucket, Key: key }));
    return { ok: true, key };
  } catch (error) {
    return { ok: false, error: describeS3Error(error, destination).message };
  } finally {
    client.destroy();
  }
}
