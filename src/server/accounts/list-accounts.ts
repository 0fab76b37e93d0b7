import { db } from "@/server/db/client";
import { type Actor, accountsInView } from "./actor";

/** The accounts the actor sees: every one for staff and the operator, a member's own only. */
export async function listAccounts({ actor }: { actor: Actor }) {
  const inView = accountsInView(actor);
  return db.account.findMany({
    where: inView === null ? {} : { id: { in: inView } },
    select: { id: true, name: true, kind: true, networkId: true, currency: true, timeZone: true },
    orderBy: [{ kind: "asc" }, { name: "asc" }],
  });
}
