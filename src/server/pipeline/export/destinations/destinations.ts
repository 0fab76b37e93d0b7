// Export destinations: a customer's S3-compatible bucket and how Tally may write to it. The
// secret access key is stored encrypted (secret-box.ts) and never read back out: every view
// shows SECRET_MASK in its place, and an update that sends the mask keeps the stored secret. A
// role's external id is generated here, never taken from the tenant, and kept by updates. An
// endpoint must be a public address unless the operator allows private ones (endpoint-guard.ts).
// A destination belongs to one account: an actor that may not see the account (accounts/actor.ts;
// the operator when none is given) finds neither, exactly as if they did not exist.

import { randomBytes } from "node:crypto";
import type { z } from "zod";
import { type Actor, accountsInView, assertMayAccess, assertMayChange, mayAccess } from "@/server/accounts/actor";
import { TallyError } from "@/server/core/errors";
import type { AggregateLayout, EXPORT_TYPES } from "@/server/core/export-types";
import { decryptSecret, encryptSecret } from "@/server/core/secret-box";
import { db } from "@/server/db/client";
import type { ExportDestination } from "@/server/db/generated/client";
import { newId } from "@/server/db/ids";
import { rawRetentionPolicy, retentionHolds } from "@/server/pipeline/export/job/retention-holds";
import { recordDestinationChange } from "./destination-activity";
import { SECRET_MASK, type ZCredentialsInput, ZDestinationInput } from "./destination-input";
import { endpointProblem, privateEndpointsAllowed } from "./endpoint-guard";
import type { ExportRunRecord } from "./export-run-record";
import { type ConnectionTest, testConnection } from "./s3";

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
  /** The daily aggregate files' columns: the interface's, or every report metric after them. */
  aggregateLayout: AggregateLayout;
  types: (typeof EXPORT_TYPES)[number][];
  status: "active" | "needs_attention" | "disabled";
  statusReason: string | null;
  createdAt: Date;
  updatedAt: Date;
}

/** What the exporter needs to write: the stored row with its secret decrypted, in memory only. */
export interface DestinationWithSecret extends DestinationView {
  secretAccessKey: string | null;
  /** Its account's IANA zone: the daily aggregates are that zone's local days. */
  timeZone: string;
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
    id: row.id,
    accountId: row.accountId,
    name: row.name,
    bucket: row.bucket,
    region: row.region,
    endpoint: row.endpoint,
    forcePathStyle: row.forcePathStyle,
    prefix: row.prefix,
    credentials: credentialsView,
    writeSuccessMarker: row.writeSuccessMarker,
    aggregateLayout: row.aggregateLayout,
    types: row.types,
    status: row.status,
    statusReason: row.statusReason,
    createdAt: row.createdAt,
    updatedAt: row.updatedAt,
  };
}

export interface ActorOption {
  /** Whom the call acts for: a dashboard viewer, or OPERATOR for the CLIs, jobs and the seed. */
  actor: Actor;
}

export interface SaveOptions extends ActorOption {
  /** TALLY_EXPORT_ALLOW_PRIVATE_ENDPOINTS unless given: whether the endpoint may be a non-public address. */
  allowPrivateEndpoints?: boolean;
}

const noSuchDestination = () => new TallyError("not_found", "no such export destination");

/** The stored destination, when the actor may see its account. */
async function visibleRow(id: string, actor: Actor): Promise<ExportDestination> {
  const row = await db.exportDestination.findUnique({ where: { id } });
  if (!row || !mayAccess(actor, row.accountId)) throw noSuchDestination();
  return row;
}

/** The stored destination, when the actor may change its account (a viewer of it may only read). */
async function changeableRow(id: string, actor: Actor): Promise<ExportDestination> {
  const row = await visibleRow(id, actor);
  assertMayChange(actor, row.accountId, "account");
  return row;
}

/**
 * The input checked, with every problem as `field message` (the form shows each on its field);
 * then the account, which the actor must be able to see; then the endpoint.
 */
async function parse(input: unknown, options: SaveOptions) {
  const result = ZDestinationInput.safeParse(input);
  if (!result.success) {
    const problems = result.error.issues.map((issue) => `${issue.path.join(".") || "destination"} ${issue.message}`);
    // Each field's first problem under its own name (`credentials.roleArn` is `roleArn`), for the form.
    const fieldErrors: Record<string, string> = {};
    for (const issue of result.error.issues) {
      const name = issue.path.findLast((part) => typeof part === "string");
      if (typeof name === "string") fieldErrors[name] ??= issue.message;
    }
    throw new TallyError("bad_request", problems.join("; "), { fieldErrors });
  }
  assertMayChange(options.actor, result.data.accountId, "account");
  const problem = await endpointProblem(result.data.endpoint, options.allowPrivateEndpoints ?? privateEndpointsAllowed());
  if (problem) throw new TallyError("bad_request", `endpoint ${problem}`, { fieldErrors: { endpoint: problem } });
  return result.data;
}

/** `tally-` and 128 random bits: what the customer's trust policy requires as sts:ExternalId. */
export const newExternalId = () => `tally-${randomBytes(16).toString("hex")}`;

function credentialColumns(id: string, credentials: z.output<typeof ZCredentialsInput>, stored: ExportDestination | null) {
  if (credentials.kind === "assume_role") {
    // Kept across updates (the customer's trust policy names it); new when a destination becomes a role.
    const externalId = stored?.credentialKind === "assume_role" && stored.externalId ? stored.externalId : newExternalId();
    return { credentialKind: "assume_role" as const, roleArn: credentials.roleArn, externalId, accessKeyId: null, secretCiphertext: null };
  }
  let secretCiphertext: Uint8Array<ArrayBuffer>;
  if (credentials.secretAccessKey === SECRET_MASK) {
    if (!stored?.secretCiphertext || stored.credentialKind !== "access_key")
      throw new TallyError("bad_request", "credentials.secretAccessKey is required", { fieldErrors: { secretAccessKey: "is required" } });
    secretCiphertext = stored.secretCiphertext;
  } else {
    secretCiphertext = new Uint8Array(encryptSecret(credentials.secretAccessKey, id));
  }
  return { credentialKind: "access_key" as const, accessKeyId: credentials.accessKeyId, secretCiphertext, roleArn: null, externalId: null };
}

export async function createDestination(input: unknown, options: SaveOptions): Promise<DestinationView> {
  const data = await parse(input, options);
  const account = await db.account.findUnique({ where: { id: data.accountId }, select: { id: true } });
  if (!account) throw new TallyError("not_found", `no account ${data.accountId}`);
  const id = newId("dst");
  return db.$transaction(async (tx) => {
    const row = await tx.exportDestination.create({
      data: {
        id,
        accountId: data.accountId,
        name: data.name,
        bucket: data.bucket,
        region: data.region,
        endpoint: data.endpoint ?? null,
        forcePathStyle: data.forcePathStyle,
        prefix: normalisePrefix(data.prefix),
        writeSuccessMarker: data.writeSuccessMarker,
        aggregateLayout: data.aggregateLayout,
        types: data.types,
        ...credentialColumns(id, data.credentials, null),
      },
    });
    await recordDestinationChange(tx, options.actor, null, { row, view: viewOf(row) });
    return viewOf(row);
  });
}

/** Replaces a destination's settings; a changed destination is active again (its problem may be fixed). */
export async function updateDestination(id: string, input: unknown, options: SaveOptions): Promise<DestinationView> {
  const stored = await changeableRow(id, options.actor);
  const data = await parse(input, options);
  if (data.accountId !== stored.accountId) throw new TallyError("bad_request", "accountId of a destination cannot change");
  return db.$transaction(async (tx) => {
    const row = await tx.exportDestination.update({
      where: { id },
      data: {
        name: data.name,
        bucket: data.bucket,
        region: data.region,
        endpoint: data.endpoint ?? null,
        forcePathStyle: data.forcePathStyle,
        prefix: normalisePrefix(data.prefix),
        writeSuccessMarker: data.writeSuccessMarker,
        aggregateLayout: data.aggregateLayout,
        types: data.types,
        status: "active",
        statusReason: null,
        ...credentialColumns(id, data.credentials, stored),
      },
    });
    await recordDestinationChange(tx, options.actor, { row: stored, view: viewOf(stored) }, { row, view: viewOf(row) });
    return viewOf(row);
  });
}

export async function getDestination(id: string, options: ActorOption): Promise<DestinationView> {
  return viewOf(await visibleRow(id, options.actor));
}

/** A destination in the listing, with what it holds back from retention. */
export interface DestinationListing extends DestinationView {
  /**
   * Set when the destination is so far behind that Tally keeps raw rows past
   * TALLY_RAW_RETENTION_DAYS for it: where its delivered data ends (its oldest type's), and
   * before when rows go even undelivered.
   */
  retentionHold: { deliveredTo: Date; droppedBefore: Date; retentionDays: number } | null;
}

/** The destinations of an account the actor may see, or of every account it sees (a member's own). */
export async function listDestinations(accountId: string | undefined, options: ActorOption): Promise<DestinationListing[]> {
  const actor = options.actor;
  if (accountId !== undefined) assertMayAccess(actor, accountId, "account");
  const inView = accountsInView(actor);
  const where = inView !== null ? { accountId: { in: inView } } : accountId !== undefined ? { accountId } : {};
  const rows = await db.exportDestination.findMany({ where, orderBy: { createdAt: "asc" } });
  const holds = await retentionHolds(new Date());
  return rows.map((row) => {
    const held = holds.filter((hold) => hold.destinationId === row.id);
    const from = Math.min(...held.map((hold) => hold.deliveredTo.getTime()));
    return {
      ...viewOf(row),
      retentionHold: held.length > 0 ? { deliveredTo: new Date(from), droppedBefore: held[0]!.droppedBefore, retentionDays: rawRetentionPolicy().days } : null,
    };
  });
}

export async function deleteDestination(id: string, options: ActorOption): Promise<void> {
  await changeableRow(id, options.actor);
  await db.$transaction(async (tx) => {
    const deleted = await tx.exportDestination.delete({ where: { id } }).catch(() => {
      throw noSuchDestination();
    });
    await recordDestinationChange(tx, options.actor, { row: deleted, view: viewOf(deleted) }, null);
  });
}

/** Writes and deletes a probe object; the S3 error in plain words when it fails. */
export async function testDestination({ actor, id }: { actor: Actor; id: string }): Promise<ConnectionTest> {
  await changeableRow(id, actor);
  const destination = await destinationWithSecret(id);
  if (!destination) throw noSuchDestination();
  return testConnection(destination);
}

/** A destination's run history, newest first. */
export async function destinationRuns({ actor, id, limit }: { actor: Actor; id: string; limit: number }): Promise<ExportRunRecord[]> {
  await visibleRow(id, actor);
  const runs = await db.exportRun.findMany({ where: { destinationId: id }, orderBy: { startedAt: "desc" }, take: limit });
  return runs.map((r) => ({
    id: r.id,
    type: r.type,
    status: r.status,
    backfill: r.backfill,
    rangeStart: r.rangeStart,
    rangeEnd: r.rangeEnd,
    attempt: r.attempt,
    rows: Number(r.rows),
    files: r.files,
    bytes: Number(r.bytes),
    error: r.error,
    startedAt: r.startedAt,
    finishedAt: r.finishedAt,
    durationMs: r.durationMs,
    nextAttemptAt: r.nextAttemptAt,
    setAsideRows: r.setAsideRows,
    setAside: r.setAside as { id: string; reason: string; rows: number }[],
  }));
}

/** For the exporter only: the destination with its secret decrypted. */
export async function destinationWithSecret(id: string): Promise<DestinationWithSecret | null> {
  const row = await db.exportDestination.findUnique({ where: { id }, include: { account: { select: { timeZone: true } } } });
  if (!row) return null;
  const secretAccessKey = row.credentialKind === "access_key" && row.secretCiphertext ? decryptSecret(row.secretCiphertext, row.id) : null;
  return { ...viewOf(row), secretAccessKey, timeZone: row.account.timeZone };
}

/** Marks a destination as needing a person (access denied, no such bucket): scheduled runs skip it until it is updated. */
export async function markNeedsAttention(id: string, reason: string): Promise<void> {
  await db.exportDestination.update({ where: { id }, data: { status: "needs_attention", statusReason: reason } });
}
