// Which report rows an account may read (decisions §1): an advertiser its own campaigns' rows on
// every publisher; a publisher the rows of its own inventory; a network its own and its
// sub-publishers'. Everything else is as if it did not exist.
import type { ApiKeyCaller } from "@/server/accounts/api-keys";
import { pgPool } from "@/server/db/pg-pool";

export interface ReportScope {
  /** Rows of this advertiser only. */
  advertiserId: string | null;
  /** Rows of these publishers only (a publisher, or a network and its sub-publishers). */
  publisherIds: string[] | null;
  /** Publishers whose campaigns are listed even without rows in the range (targeting). */
  targetedPublisherIds: string[] | null;
}

/** Who asks for a report: an account (by API key or a member's session), or staff, who see every account. */
export type ReportCaller = Pick<ApiKeyCaller, "accountId" | "accountKind"> | { accountId: null; accountKind: "staff" };

export async function reportScope(caller: ReportCaller): Promise<ReportScope> {
  if (caller.accountKind === "staff") return { advertiserId: null, publisherIds: null, targetedPublisherIds: null };
  if (caller.accountKind === "advertiser") return { advertiserId: caller.accountId, publisherIds: null, targetedPublisherIds: null };
  const { rows } = await pgPool().query<{ publisher_ids: string[]; network_id: string | null }>(
    `SELECT array_append(coalesce((SELECT array_agg(s.id ORDER BY s.id) FROM accounts s WHERE s.network_id = a.id AND a.kind = 'network'), '{}'), a.id) AS publisher_ids,
            a.network_id
       FROM accounts a WHERE a.id = $1`,
    [caller.accountId],
  );
  const publisherIds = rows[0]?.publisher_ids ?? [caller.accountId];
  const networkId = rows[0]?.network_id ?? null;
  return { advertiserId: null, publisherIds, targetedPublisherIds: networkId ? [...publisherIds, networkId] : publisherIds };
}

/** An account as a report caller (its kind decides its scope), or null for an unknown id. */
export async function accountCaller(accountId: string): Promise<ReportCaller | null> {
  const { rows } = await pgPool().query<{ kind: ApiKeyCaller["accountKind"] }>("SELECT kind::text AS kind FROM accounts WHERE id = $1", [accountId]);
  return rows[0] ? { accountId, accountKind: rows[0].kind } : null;
}
