// Export destinations: a customer's S3-compatible bucket and how Tally may write to it. The
// secret access key is stored encrypted (secret-box.ts) and never read back out: every view
// shows SECRET_MASK in its place, and an update that sends the mask keeps the stored secret.
import { z } from "zod";
import { db } from "@/server/db/client";
import type { ExportDestination } from "@/server/db/generated/client";
import { newId } from "@/server/db/ids";
import { TallyError } from "@/server/errors";
import { EXPORT_TYPES } from "./layouts";
import { decryptSecret, encryptSecret } from "./secret-box";

export const SECRET_MASK = "••••••••";

const credentialsInput = z.discriminatedUnion("kind", [
  z.object({
    kind: z.literal("access_key"),
    accessKeyId: z.string().trim().min(1, "is required").max(128),
    /** The secret, or SECRET_MASK on an update to keep the stored one. */
    secretAccessKey: z.string().min(1, "is required").max(256),
  }),
  z.object({
    kind: z.literal("assume_role"),
    roleArn: z.string().trim().regex(/^arn:aws[a-z-]*:iam::\d{12}:role\/[\w+=,.@/-]+$/, "must be an IAM role ARN (arn:aws:iam::123456789012:role/name)"),
    /** Required: without it any AWS customer who learns the role's name could have Tally write to it (the confused deputy). */
    externalId: z.string().trim().min(2, "is required, 2 to 1224 characters").max(1224).regex(/^[\w+=,.@:/-]+$/, "may use letters, digits and +=,.@:/-_"),
  }),
]);

/** One schema for the CLI, the tRPC procedures and the dashboard's forms. */
export const destinationInput = z.object({
  accountId: z.string().min(1),
  name: z.string().trim().min(1).max(100),
  bucket: z.string().trim().regex(/^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$/, "must be an S3 bucket name (3-63 lower-case letters, digits, dots, hyphens)"),
  region: z.string().trim().regex(/^[a-z0-9-]{2,32}$/, "must be a region such as us-east-1"),
  /** For S3-compatible stores (MinIO, R2, ...); empty for AWS S3. */
  endpoint: z.url({ protocol: /^https?$/ }).nullish(),
  forcePathStyle: z.boolean().default(false),
  /** Key prefix inside the bucket: `tally/` puts files under tally/ad_events/... */
  prefix: z.string().trim().max(512).regex(/^[^\\]*$/, "must not contain backslashes").default(""),
  credentials: credentialsInput,
  writeSuccessMarker: z.boolean().default(true),
  types: z.array(z.enum(EXPORT_TYPES)).min(1).default([...EXPORT_TYPES]),
});
export type DestinationInput = z.input<typeof destinationInput>;

export type CredentialsView =
  | { kind: "access_key"; accessKeyId: string; secretAccessKey: typeof SECRET_MASK }
  | { kind: "assume_role"; roleArn: string; externalId: string };

/** A destination as any caller may see it: never the secret. */
export interface DestinationView {
  id: string;
  accountId: string;
  name: string;
  bucket: string;
  region: string;
  endpoint: string | null;
  forcePathStyle: boolean;
  prefix: string;
  credentials: CredentialsView;
  writeSuccessMarker: boolean;
  types: (typeof EXPORT_TYPES)[number][];
  status: "active" | "needs_attention" | "disabled";
  statusReason: string | null;
  createdAt: Date;
  updatedAt: Date;
}

/** What the exporter needs to write: the stored row with its secret decrypted, in memory only. */
export interface DestinationWithSecret extends DestinationView {
  secretAccessKey: string | null;
}

/** `a/b` and `/a/b/` → `a/b/`; empty stays empty. */
const normalisePrefix = (prefix: string) => {
  const trimmed = prefix.replace(/^\/+|\/+$/g, "");
  return trimmed === "" ? "" : `${trimmed}/`;
};

export function viewOf(row: ExportDestination): DestinationView {
  const credentialsView: CredentialsView =
    row.credentialKind === "access_key"
      ? { kind: "access_key", accessKeyId: row.accessKeyId ?? "", secretAccessKey: SECRET_MASK }
      : { kind: "assume_role", roleArn: row.roleArn ?? "", externalId: row.externalId ?? "" };
  return {
    id: row.id, accountId: row.accountId, name: row.name, bucket: row.bucket, region: row.region, endpoint: row.endpoint,
    forcePathStyle: row.forcePathStyle, prefix: row.prefix, credentials: credentialsView, writeSuccessMarker: row.writeSuccessMarker,
    types: row.types, status: row.status, statusReason: row.statusReason, createdAt: row.createdAt, updatedAt: row.updatedAt,
  };
}

function parse(input: unknown) {
  const result = destinationInput.safeParse(input);
  if (!result.success) {
    const problems = result.error.issues.map((issue) => `${issue.path.join(".") || "destination"} ${issue.message}`);
    throw new TallyError("bad_request", problems.join("; "));
  }
  return result.data;
}

function credentialColumns(id: string, credentials: z.output<typeof credentialsInput>, stored: ExportDestination | null) {
  if (credentials.kind === "assume_role") {
    return { credentialKind: "assume_role" as const, roleArn: credentials.roleArn, externalId: credentials.externalId, accessKeyId: null, secretCiphertext: null };
  }
  let secretCiphertext: Uint8Array<ArrayBuffer>;
  if (credentials.secretAccessKey === SECRET_MASK) {
    if (!stored?.secretCiphertext || stored.credentialKind !== "access_key") throw new TallyError("bad_request", "credentials.secretAccessKey is required");
    secretCiphertext = stored.secretCiphertext;
  } else {
    secretCiphertext = new Uint8Array(encryptSecret(credentials.secretAccessKey, id));
  }
  return { credentialKind: "access_key" as const, accessKeyId: credentials.accessKeyId, secretCiphertext, roleArn: null, externalId: null };
}

export async function createDestination(input: unknown): Promise<DestinationView> {
  const data = parse(input);
  const account = await db.account.findUnique({ where: { id: data.accountId }, select: { id: true } });
  if (!account) throw new TallyError("not_found", `no account ${data.accountId}`);
  const id = newId("dst");
  const row = await db.exportDestination.create({
    data: {
      id, accountId: data.accountId, name: data.name, bucket: data.bucket, region: data.region, endpoint: data.endpoint ?? null,
      forcePathStyle: data.forcePathStyle, prefix: normalisePrefix(data.prefix), writeSuccessMarker: data.writeSuccessMarker, types: data.types,
      ...credentialColumns(id, data.credentials, null),
    },
  });
  return viewOf(row);
}

/** Replaces a destination's settings; a changed destination is active again (its problem may be fixed). */
export async function updateDestination(id: string, input: unknown): Promise<DestinationView> {
  const stored = await db.exportDestination.findUnique({ where: { id } });
  if (!stored) throw new TallyError("not_found", `no export destination ${id}`);
  const data = parse(input);
  if (data.accountId !== stored.accountId) throw new TallyError("bad_request", "accountId of a destination cannot change");
  const row = await db.exportDestination.update({
    where: { id },
    data: {
      name: data.name, bucket: data.bucket, region: data.region, endpoint: data.endpoint ?? null, forcePathStyle: data.forcePathStyle,
      prefix: normalisePrefix(data.prefix), writeSuccessMarker: data.writeSuccessMarker, types: data.types, status: "active", statusReason: null,
      ...credentialColumns(id, data.credentials, stored),
    },
  });
  return viewOf(row);
}

export async function getDestination(id: string): Promise<DestinationView | null> {
  const row = await db.exportDestination.findUnique({ where: { id } });
  return row ? viewOf(row) : null;
}

export async function listDestinations(accountId?: string): Promise<DestinationView[]> {
  const rows = await db.exportDestination.findMany({ where: accountId ? { accountId } : {}, orderBy: { createdAt: "asc" } });
  return rows.map(viewOf);
}

export async function deleteDestination(id: string): Promise<void> {
  await db.exportDestination.delete({ where: { id } }).catch(() => {
    throw new TallyError("not_found", `no export destination ${id}`);
  });
}

/** For the exporter only: the destination with its secret decrypted. */
export async function destinationWithSecret(id: string): Promise<DestinationWithSecret | null> {
  const row = await db.exportDestination.findUnique({ where: { id } });
  if (!row) return null;
  const secretAccessKey = row.credentialKind === "access_key" && row.secretCiphertext ? decryptSecret(row.secretCiphertext, row.id) : null;
  return { ...viewOf(row), secretAccessKey };
}

/** Marks a destination as needing a person (access denied, no such bucket): scheduled runs skip it until it is updated. */
export async function markNeedsAttention(id: string, reason: string): Promise<void> {
  await db.exportDestination.update({ where: { id }, data: { status: "needs_attention", statusReason: reason } });
}
