// An account's money and places: wallet top-ups (account managers only), the advertiser's daily
// budget and a publisher's sites (the account's own users too).

import { TallyError } from "@/server/core/errors";
import { fromMicros, MAX_WALLET_BALANCE, toMicros } from "@/server/core/money";
import { db } from "@/server/db/client";
import { newId } from "@/server/db/ids";
import { type Actor, assertAccountManager, assertMayChange } from "./actor";
import { addToWallet } from "./manage-account.sql";

/**
 * Adds to an advertiser's wallet in one statement (beacons may be charging it at the same time),
 * unless the wallet would then hold more than MAX_WALLET_BALANCE. Money moves by account managers only.
 */
export async function topUpWallet({ actor, accountId, amount }: { actor: Actor; accountId: string; amount: number }): Promise<number> {
  assertAccountManager(actor);
  const ceiling = toMicros(MAX_WALLET_BALANCE);
  const rows = await addToWallet(accountId, toMicros(amount), ceiling);
  if (!rows[0]) throw new TallyError("bad_request", "only advertisers have a wallet");
  if (!rows[0].topped_up) {
    throw new TallyError(
      "bad_request",
      `a wallet may hold at most ${MAX_WALLET_BALANCE.toLocaleString("en")}; it holds ${fromMicros(rows[0].wallet_balance_micros).toLocaleString("en")}`,
    );
  }
  return fromMicros(rows[0].wallet_balance_micros);
}

export async function setDailyBudget({ actor, accountId, dailyBudget }: { actor: Actor; accountId: string; dailyBudget: number | null }): Promise<void> {
  assertMayChange(actor, accountId, "account");
  const updated = await db.account.updateMany({
    where: { id: accountId, kind: "advertiser" },
    data: { dailyBudgetMicros: dailyBudget === null ? null : toMicros(dailyBudget) },
  });
  if (updated.count === 0) throw new TallyError("bad_request", "only advertisers have a daily budget");
}

export async function addSite({ actor, accountId, name, domain }: { actor: Actor; accountId: string; name: string; domain?: string }) {
  assertMayChange(actor, accountId, "account");
  const account = await db.account.findUnique({ where: { id: accountId }, select: { kind: true } });
  if (!account || account.kind === "advertiser") throw new TallyError("bad_request", "sites belong to publishers and networks");
  const exists = await db.site.count({ where: { publisherId: accountId, name } });
  if (exists) throw new TallyError("bad_request", `the account already has a site named ${name}`);
  return db.site.create({ data: { id: newId("site"), publisherId: accountId, name, domain: domain || null } });
}
