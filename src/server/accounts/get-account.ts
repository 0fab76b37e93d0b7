import { TallyError } from "@/server/core/errors";
import { fromMicros } from "@/server/core/money";
import { db } from "@/server/db/client";
import { type Actor, assertMayAccess } from "./actor";

/** What the dashboard shows of an account the actor may see: money, network, sites and sub-publishers. */
export async function getAccount({ actor, id }: { actor: Actor; id: string }) {
  assertMayAccess(actor, id, "account");
  const a = await db.account.findUnique({
    where: { id },
    include: {
      sites: { orderBy: { name: "asc" } },
      subPublishers: { select: { id: true, name: true }, orderBy: { name: "asc" } },
      network: { select: { id: true, name: true } },
    },
  });
  if (!a) throw new TallyError("not_found", "no such account");
  return {
    id: a.id,
    kind: a.kind,
    name: a.name,
    currency: a.currency,
    /** The IANA zone its reports, budgets and exports count days in (docs/time-zones.md). */
    timeZone: a.timeZone,
    sellerId: a.sellerId,
    walletBalance: fromMicros(a.walletBalanceMicros),
    dailyBudget: a.dailyBudgetMicros === null ? null : fromMicros(a.dailyBudgetMicros),
    network: a.network,
    sites: a.sites.map((s) => ({ id: s.id, name: s.name, domain: s.domain })),
    subPublishers: a.subPublishers,
  };
}
