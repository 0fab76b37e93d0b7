// Who changed what, when: every change to how sales are credited (attribution windows, a
// campaign's own windows) is written here in the transaction that makes it, with the values before
// and after. Account managers read it; nothing updates or deletes an entry.
import { type Actor, assertAccountManager, isOperator } from "@/server/accounts/actor";
import { db } from "@/server/db/client";
import type { Prisma } from "@/server/db/generated/client";

type Tx = Prisma.TransactionClient;

export interface ActivityChange {
  /** A dotted name: attribution.windows.set, campaign.windows.set. */
  action: string;
  /** What was changed, in words. */
  subject: string;
  /** The account the change concerns; null for the whole platform. */
  accountId: string | null;
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
  before: unknown;
  after: unknown;
}

const actorOf = (actor: Actor) =>
  isOperator(actor) ? { actorUserId: null, actorName: "operator" } : { actorUserId: actor.userId, actorName: `${actor.name} <${actor.email}>` };

/** Writes one entry inside the caller's transaction, so a change and its entry stand or fall together. */
export async function recordActivity(tx: Tx, actor: Actor, change: ActivityChange): Promise<void> {
  await tx.activityEntry.create({
    data: {
      ...actorOf(actor),
      action: change.action,
      subject: change.subject,
      accountId: change.accountId,
      before: change.before ?? undefined,
      after: change.after ?? undefined,
    },
  });
}

/** The latest entries, newest first (in the order they were written) (up to `limit`, at most 200), optionally of one action's prefix; for account managers. */
export async function listActivity({ actor, actionPrefix, limit = 50 }: { actor: Actor; actionPrefix?: string; limit?: number }): Promise<ActivityEntry[]> {
  assertAccountManager(actor);
  const rows = await db.activityEntry.findMany({
    where: actionPrefix ? { action: { startsWith: actionPrefix } } : {},
    orderBy: { id: "desc" },
    take: Math.min(Math.max(1, Math.trunc(limit)), 200),
  });
  return rows.map((row) => ({
    id: String(row.id),
    at: row.at,
    actor: row.actorName,
    action: row.action,
    subject: row.subject,
    accountId: row.accountId,
    before: row.before,
    after: row.after,
  }));
}
