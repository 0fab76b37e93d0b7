import { db } from "@/server/db/client";
import type { AccountKind } from "@/server/db/generated/enums";
import { newId } from "@/server/db/ids";
import { toMicros } from "@/server/money";
import { type TCreateAccountInput, ZCreateAccountInput } from "./account-input";

export { type TCreateAccountInput, ZCreateAccountInput } from "./account-input";

const ID_PREFIX: Record<AccountKind, string> = { publisher: "pub", advertiser: "adv", network: "net" };

/** Creates a publisher, network or advertiser account, with a publisher's sites. */
export async function createAccount(input: TCreateAccountInput) {
  const data = ZCreateAccountInput.parse(input);
  const id = data.id ?? newId(ID_PREFIX[data.kind]);
  return db.account.create({
    data: {
      id,
      kind: data.kind,
      name: data.name,
      currency: data.currency,
      sellerId: data.sellerId,
      walletBalanceMicros: data.walletBalance === undefined ? 0n : toMicros(data.walletBalance),
      dailyBudgetMicros: data.dailyBudget === undefined ? null : toMicros(data.dailyBudget),
      networkId: data.networkId,
      sites: { create: data.sites.map((site) => ({ id: newId("site"), name: site.name, domain: site.domain })) },
    },
    include: { sites: true },
  });
}
