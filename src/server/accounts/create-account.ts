import { recordActivity } from "@/server/activity/activity-log";
import { TallyError } from "@/server/core/errors";
import { toMicros } from "@/server/core/money";
import { db } from "@/server/db/client";
import type { AccountKind } from "@/server/db/generated/enums";
import { newId } from "@/server/db/ids";
import { type TCreateAccountInput, ZCreateAccountInput } from "./account-input";
import { type Actor, assertAccountManager, isOperator } from "./actor";

export { type TCreateAccountInput, ZCreateAccountInput } from "./account-input";

const ID_PREFIX: Record<AccountKind, string> = { publisher: "pub", advertiser: "adv", network: "net" };

/**
 * Creates a publisher, network or advertiser account, with a publisher's sites: for account
 * managers (the operator when no actor is given). A sub-publisher's `networkId` must name a
 * network account. Only the operator (the seed, fixtures) chooses the id; a viewer's is Tally's.
 */
export async function createAccount(input: TCreateAccountInput & { actor: Actor }) {
  const actor = input.actor;
  assertAccountManager(actor);
  const data = ZCreateAccountInput.parse(input);
  if (data.networkId) {
    const network = await db.account.findUnique({ where: { id: data.networkId }, select: { kind: true } });
    if (network?.kind !== "network") throw new TallyError("bad_request", "networkId must be a network account");
  }
  const id = (isOperator(actor) ? data.id : undefined) ?? newId(ID_PREFIX[data.kind]);
  return db.$transaction(async (tx) => {
    const account = await tx.account.create({
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
    await recordActivity(tx, actor, {
      action: "account.created",
      subject: `${data.kind} ${data.name} (${id})`,
      accountId: id,
      before: null,
      after: {
        kind: data.kind,
        name: data.name,
        currency: data.currency,
        walletBalance: data.walletBalance ?? null,
        dailyBudget: data.dailyBudget ?? null,
        networkId: data.networkId ?? null,
        sites: data.sites.map((site) => site.name),
      },
    });
    return account;
  });
}
