// Where a screen about one account (its page, its API keys, its exports) opens when the address
// names none. A member has one account. Staff land on the advertiser that spent most recently,
// rather than on the first name of the list (often an account with nothing in it yet): the latest
// day of advertiser_daily_spend, and the most spent that day. That table is written as events are
// settled whatever the store (ClickHouse too), holds one row per advertiser and day, and its index
// on (day, spend) makes this one short index read. With no spend anywhere yet, the list's first.
import { db } from "@/server/db/client";
import { type Actor, accountsInView } from "./actor";
import { listAccounts } from "./list-accounts";

/** The account to open when none is asked for; null when the actor sees none. */
export async function landingAccount({ actor }: { actor: Actor }): Promise<{ accountId: string | null }> {
  const inView = accountsInView(actor);
  if (inView !== null) return { accountId: inView[0] ?? null };
  const latest = await db.advertiserDailySpend.findFirst({
    where: { spendMicros: { gt: 0 } },
    orderBy: [{ day: "desc" }, { spendMicros: "desc" }],
    select: { advertiserId: true },
  });
  if (latest) return { accountId: latest.advertiserId };
  const [first] = await listAccounts({ actor });
  return { accountId: first?.id ?? null };
}
