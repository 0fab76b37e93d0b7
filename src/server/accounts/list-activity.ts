// Who may read the activity log: staff and the operator every entry, the platform's own included;
// a member their own account's entries only, whatever account or campaign they ask for (another
// account's entries read as none). A member reads a staff member's changes as STAFF_ACTOR's, never
// their name or e-mail (nor finds them by it); staff read every name. Entries come with their
// account's name and currency, so money reads as the account's own.
import { type ActivityEntry, type ActivityPage, readActivity } from "@/server/activity/activity-log";
import { db } from "@/server/db/client";
import { type Actor, accountsInView, seesEveryAccount } from "./actor";

/** Who a staff member's change is by, as a member reads it. */
export const STAFF_ACTOR = "Tally staff";

export interface ListActivityInput {
  actor: Actor;
  accountId?: string;
  campaignId?: string;
  /** The start of the action's name ("campaign." or "campaign.updated"); several: any of them. */
  actionPrefix?: string | string[];
  /** Part of the actor's name or e-mail. */
  actorQuery?: string;
  /** Part of the subject. */
  text?: string;
  /** The `next` of the page before: entries older than it. */
  before?: string;
  limit?: number;
}

export interface ListedActivityEntry extends ActivityEntry {
  accountName: string | null;
  /** The account's currency, for its money; "USD" for platform entries. */
  currency: string;
}

export async function listActivity({ actor, ...filter }: ListActivityInput): Promise<ActivityPage & { entries: ListedActivityEntry[] }> {
  const page = await readActivity({ ...filter, readable: accountsInView(actor), staffShownAs: seesEveryAccount(actor) ? undefined : STAFF_ACTOR });
  const ids = [...new Set(page.entries.flatMap((entry) => (entry.accountId === null ? [] : [entry.accountId])))];
  const accounts = ids.length === 0 ? [] : await db.account.findMany({ where: { id: { in: ids } }, select: { id: true, name: true, currency: true } });
  const byId = new Map(accounts.map((account) => [account.id, account]));
  return {
    next: page.next,
    entries: page.entries.map((entry) => {
      const account = entry.accountId === null ? undefined : byId.get(entry.accountId);
      return { ...entry, accountName: account?.name ?? null, currency: account?.currency ?? "USD" };
    }),
  };
}
