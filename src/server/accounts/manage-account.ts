// An account's money and places: wallet top-ups, the advertiser's daily budget, a publisher's
// sites, and what the dashboard shows of an account.
import { db } from "@/server/db/client";
import { newId } from "@/server/db/ids";
import { TallyError } from "@/server/errors";
import { fromMicros, MAX_WALLET_BALANCE, toMicros } from "@/server/money";

export async function accountDetail(id: string) {
  const a = await db.account.findUnique({
    where: { id },
    include: {
      sites: { orderBy: { name: "asc" } },
      subPublishers: { select: { id: true, name: true }, orderBy: { name: "asc" } },
      network: { select: { id: true, name: true } },
    },
  });
  if (!a) return null;
  return {
    id: a.id,
    kind: a.kind,
    name: a.name,
    currency: a.currency,
    sellerId: a.sellerId,
    walletBalance: fromMicros(a.walletBalanceMicros),
    dailyBudget: a.dailyBudgetMicros === null ? null : fromMicros(a.dailyBudgetMicros),
    network: a.network,
    sites: a.sites.map((s) => ({ id: s.id, name: s.name, domain: s.domain })),
    subPublishers: a.subPublishers,
  };
}

/**
 * Adds to an advertiser's wallet in one statement (beacons may be charging it at the same time),
 * unless the wallet would then hold more than MAX_WALLET_BALANCE.
 */
export async function topUpWallet(accountId: string, amount: number): Promise<number> {
  const ceiling = toMicros(MAX_WALLET_BALANCE);
  const rows = await db.$queryRaw<{ wallet_balance_micros: bigint; topped_up: boolean }[]>`
    WITH topped AS (
      UPDATE accounts SET wallet_balance_micros = wallet_balance_micros + ${toMicros(amount)}, updated_at = now()
       WHERE id = ${accountId} AND kind = 'advertiser' AND wallet_balance_micros + ${toMicros(amount)} <= ${ceiling}
      RETURNING wallet_balance_micros
    )
    SELECT wallet_balance_micros, true AS topped_up FROM topped
    UNION ALL
    SELECT wallet_balance_micros, false FROM accounts WHERE id = ${accountId} AND kind = 'advertiser' AND NOT EXISTS (SELECT 1 FROM topped)`;
  if (!rows[0]) throw new TallyError("bad_request", "only advertisers have a wallet");
  if (!rows[0].topped_up) {
    throw new TallyError(
      "bad_request",
      `a wallet may hold at most ${MAX_WALLET_BALANCE.toLocaleString("en")}; it holds ${fromMicros(rows[0].wallet_balance_micros).toLocaleString("en")}`,
    );
  }
  return fromMicros(rows[0].wallet_balance_micros);
}

export async function setDailyBudget(accountId: string, dailyBudget: number | null): Promise<void> {
  const updated = await db.account.updateMany({
    where: { id: accountId, kind: "advertiser" },
    data: { dailyBudgetMicros: dailyBudget === null ? null : toMicros(dailyBudget) },
  });
  if (updated.count === 0) throw new TallyError("bad_request", "only advertisers have a daily budget");
}

export async function addSite(accountId: string, site: { name: string; domain?: string }) {
  const account = await db.account.findUnique({ where: { id: accountId }, select: { kind: true } });
  if (!account || account.kind === "advertiser") throw new TallyError("bad_request", "sites belong to publishers and networks");
  const exists = await db.site.count({ where: { publisherId: accountId, name: site.name } });
  if (exists) throw new TallyError("bad_request", `the account already has a site named ${site.name}`);
  return db.site.create({ data: { id: newId("site"), publisherId: accountId, name: site.name, domain: site.domain || null } });
}
