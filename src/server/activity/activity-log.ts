// Who changed what, when: every change a person makes to campaigns, ads, money, keys, clients,
// destinations, catalogues and how sales are credited is written here in the transaction that
// makes it, with the changed fields as they were and as they became (docs/activity.md). Nothing
// updates or deletes an entry. This folder sits below the entities (src/lint/layers.ts), so every
// one of them may write to it: it knows an actor by shape, and who may read which entries is
// decided by the caller of readActivity (accounts/list-activity.ts).
import { isDeepStrictEqual } from "node:util";
import { db } from "@/server/db/client";
import type { Prisma } from "@/server/db/generated/client";
import { namedIdsOf, namesOfIds } from "./activity-names";

type Tx = Prisma.TransactionClient;

/** Whoever made a change: a signed-in user (accounts/sessions.ts's Viewer, staff or member) or the operator (a CLI, a job). */
export type ActivityActor = { userId: string; name: string; email: string; role: "staff" | "member" } | { role: "operator" };

export interface ActivityChange {
  /** A dotted name: campaign.updated, ad.created, api_key.revoked (docs/activity.md lists them). */
  action: string;
  /** What was changed, in words. */
  subject: string;
  /** The account the change concerns; null for the whole platform. */
  accountId: string | null;
  /** The campaign the change concerns (its own change or one of its ads'), shown on its page. */
  campaignId?: string | null;
  before: Prisma.InputJsonValue | null;
  after: Prisma.InputJsonValue | null;
}

export interface ActivityEntry {
  id: string;
  at: Date;
  actor: string;
  action: string;
  subject: string;
  accountId: string | null;
  campaignId: string | null;
  before: unknown;
  after: unknown;
  /** The names of the things before and after point at by id, as they are now (activity-names.ts). */
  names: Record<string, string>;
}

/** How an entry (and the wallet ledger, accounts/wallet-ledger.ts) names its actor. */
export const actorOf = (actor: ActivityActor) =>
  "userId" in actor
    ? { actorUserId: actor.userId, actorName: `${actor.name} <${actor.email}>`, actorStaff: actor.role === "staff" }
    : { actorUserId: null, actorName: "operator", actorStaff: false };

/** Writes one entry inside the caller's transaction, so a change and its entry stand or fall together. */
export async function recordActivity(tx: Tx, actor: ActivityActor, change: ActivityChange): Promise<void> {
  await tx.activityEntry.create({
    data: {
      ...actorOf(actor),
      action: change.action,
      subject: change.subject,
      accountId: change.accountId,
      campaignId: change.campaignId ?? null,
      before: change.before ?? undefined,
      after: change.after ?? undefined,
    },
  });
}

type Fields = Record<string, Prisma.InputJsonValue | null>;

/**
 * The fields whose value differs between two states, each side holding only those; null when
 * nothing changed (an edit that saves what was there is no change, and writes no entry).
 */
export function changedFields<T extends Fields>(before: T, after: T): { before: Partial<T>; after: Partial<T> } | null {
  const changed = Object.keys(after).filter((key) => !isDeepStrictEqual(before[key] ?? null, after[key] ?? null));
  if (changed.length === 0) return null;
  const pick = (state: T) => Object.fromEntries(changed.map((key) => [key, state[key] ?? null])) as Partial<T>;
  return { before: pick(before), after: pick(after) };
}

export const ACTIVITY_PAGE_LIMIT = 200;

export interface ActivityFilter {
  /** The accounts whose entries may be read; null for every entry, platform-wide ones included. */
  readable: string[] | null;
  accountId?: string;
  campaignId?: string;
  /** The start of the action's name ("campaign." or "campaign.updated"); several: any of them. */
  actionPrefix?: string | string[];
  /** Part of the actor's name or e-mail, any case. */
  actorQuery?: string;
  /**
   * When given, staff actors read as this instead of their names and e-mails, and actorQuery
   * finds them by it, never by their names (a member must not learn a staff member's name by searching).
   */
  staffShownAs?: string;
  /** Part of the subject (a campaign's name, a key's name, an id), any case. */
  text?: string;
  /** Entries older than this one (the id of the last entry of the page before). */
  before?: string;
  limit?: number;
}

export interface ActivityPage {
  entries: ActivityEntry[];
  /** Pass as `before` for the next, older page; null when this page is the last. */
  next: string | null;
}

const escapeLike = (text: string) => text.replace(/[\\%_]/g, (c) => `\\${c}`);

function actorMatch(query: string, staffShownAs: string | undefined): Prisma.ActivityEntryWhereInput {
  const byName: Prisma.ActivityEntryWhereInput = { actorName: { contains: escapeLike(query), mode: "insensitive" } };
  if (staffShownAs === undefined) return byName;
  const byAlias: Prisma.ActivityEntryWhereInput[] = staffShownAs.toLowerCase().includes(query.toLowerCase()) ? [{ actorStaff: true }] : [];
  return { OR: [{ ...byName, actorStaff: false }, ...byAlias] };
}

function whereOf(filter: ActivityFilter): Prisma.ActivityEntryWhereInput {
  const and: Prisma.ActivityEntryWhereInput[] = [];
  if (filter.readable !== null) and.push({ accountId: { in: filter.readable } });
  if (filter.accountId !== undefined) and.push({ accountId: filter.accountId });
  if (filter.campaignId !== undefined) and.push({ campaignId: filter.campaignId });
  const prefixes = [filter.actionPrefix ?? []].flat().filter((prefix) => prefix !== "");
  if (prefixes.length > 0) and.push({ OR: prefixes.map((prefix) => ({ action: { startsWith: prefix } })) });
  if (filter.actorQuery) and.push(actorMatch(filter.actorQuery, filter.staffShownAs));
  if (filter.text) and.push({ subject: { contains: escapeLike(filter.text), mode: "insensitive" } });
  if (filter.before !== undefined && /^\d{1,19}$/.test(filter.before)) and.push({ id: { lt: BigInt(filter.before) } });
  return { AND: and };
}

/** A page of entries, newest first (in the order they were written), walking back by id. */
export async function readActivity(filter: ActivityFilter): Promise<ActivityPage> {
  const limit = Math.min(Math.max(1, Math.trunc(filter.limit ?? 50)), ACTIVITY_PAGE_LIMIT);
  const rows = await db.activityEntry.findMany({ where: whereOf(filter), orderBy: { id: "desc" }, take: limit + 1 });
  const page = rows.slice(0, limit);
  const idsOf = page.map((row) => namedIdsOf(row));
  const names = await namesOfIds([...new Set(idsOf.flat())]);
  const entries = page.map((row, index) => ({
    id: String(row.id),
    at: row.at,
    actor: row.actorStaff && filter.staffShownAs !== undefined ? filter.staffShownAs : row.actorName,
    action: row.action,
    subject: row.subject,
    accountId: row.accountId,
    campaignId: row.campaignId,
    before: row.before,
    after: row.after,
    names: Object.fromEntries(idsOf[index]!.flatMap((id) => (names.has(id) ? [[id, names.get(id)!]] : []))),
  }));
  return { entries, next: rows.length > limit ? (entries.at(-1)?.id ?? null) : null };
}
