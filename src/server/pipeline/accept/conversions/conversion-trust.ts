// A publisher's conversion trust settings (docs/conversions.md, "Verified orders" and
// "Plausibility limits"): whether orders sent without proof are credited too, the largest order total and
// line quantity settling keeps, and its signing secrets (listed, never shown). Staff, the operator
// and the publisher's own members read and change them; an advertiser's members, another
// publisher's or a network's for its sub-publishers reach nothing ("no such account").

import { env } from "@/env";
import { type Actor, assertMayAccess, assertMayChange } from "@/server/accounts/actor";
import { changedFields, recordActivity } from "@/server/activity/activity-log";
import { TallyError } from "@/server/core/errors";
import { fromMicros, toMicros } from "@/server/core/money";
import { db } from "@/server/db/client";
import { listSigningSecrets, type SigningSecretSummary } from "./signing-secrets";
import { lockAccountRow } from "./signing-secrets.sql";
import { type TConversionTrustInput, ZConversionTrustInput } from "./trust-input";

/** What settling holds a publisher's orders to (pipeline/settle/order-plausibility.ts). */
export interface PublisherTrust {
  /** Orders without proof are credited too; off (the default), only proven orders move figures. */
  creditUnverified: boolean;
  maxOrderTotalMicros: bigint;
  maxLineQuantity: number;
}

/** Tally's defaults, for a publisher without limits of its own (or one that no longer exists). */
export function defaultTrust(): PublisherTrust {
  const config = env();
  return { creditUnverified: false, maxOrderTotalMicros: toMicros(config.TALLY_MAX_ORDER_TOTAL), maxLineQuantity: config.TALLY_MAX_LINE_QUANTITY };
}

export interface ConversionTrust {
  publisherId: string;
  creditUnverified: boolean;
  /** The publisher's own limits; null: Tally's default applies. */
  maxOrderTotal: number | null;
  maxLineQuantity: number | null;
  /** Tally's defaults (TALLY_MAX_ORDER_TOTAL, TALLY_MAX_LINE_QUANTITY). */
  defaults: { maxOrderTotal: number; maxLineQuantity: number };
  /** The live signing secrets, newest first: prefixes and dates only. */
  secrets: SigningSecretSummary[];
}

const SETTINGS = { name: true, kind: true, creditUnverifiedConversions: true, maxOrderTotalMicros: true, maxLineQuantity: true } as const;

async function publisherSettings(actor: Actor, publisherId: string) {
  assertMayAccess(actor, publisherId, "account");
  const account = await db.account.findUnique({ where: { id: publisherId }, select: SETTINGS });
  if (!account) throw new TallyError("not_found", "no such account");
  if (account.kind === "advertiser") throw new TallyError("bad_request", "conversion settings belong to publishers and networks");
  return account;
}

/** The settings as the log keeps them: money in currency units. */
const loggedTrust = (account: { creditUnverifiedConversions: boolean; maxOrderTotalMicros: bigint | null; maxLineQuantity: number | null }) => ({
  creditUnverified: account.creditUnverifiedConversions,
  maxOrderTotal: account.maxOrderTotalMicros === null ? null : fromMicros(account.maxOrderTotalMicros),
  maxLineQuantity: account.maxLineQuantity,
});

function trustOf(publisherId: string, account: Awaited<ReturnType<typeof publisherSettings>>, secrets: SigningSecretSummary[]): ConversionTrust {
  const defaults = defaultTrust();
  return {
    publisherId,
    creditUnverified: account.creditUnverifiedConversions,
    maxOrderTotal: account.maxOrderTotalMicros === null ? null : fromMicros(account.maxOrderTotalMicros),
    maxLineQuantity: account.maxLineQuantity,
    defaults: { maxOrderTotal: fromMicros(defaults.maxOrderTotalMicros), maxLineQuantity: defaults.maxLineQuantity },
    secrets,
  };
}

export async function getConversionTrust({ actor, publisherId }: { actor: Actor; publisherId: string }): Promise<ConversionTrust> {
  const account = await publisherSettings(actor, publisherId);
  return trustOf(publisherId, account, await listSigningSecrets({ actor, publisherId }));
}

/**
 * Sets whether the publisher's orders without proof are credited, and its limits. They apply to orders settled from then on (a few
 * seconds after their receipt); orders already settled keep what was decided for them.
 */
export async function updateConversionTrust(input: TConversionTrustInput & { actor: Actor }): Promise<ConversionTrust> {
  const data = ZConversionTrustInput.parse(input);
  await publisherSettings(input.actor, data.publisherId);
  assertMayChange(input.actor, data.publisherId, "account");
  const account = await db.$transaction(async (tx) => {
    await lockAccountRow(tx, data.publisherId);
    const before = await tx.account.findUniqueOrThrow({ where: { id: data.publisherId }, select: SETTINGS });
    const after = await tx.account.update({
      where: { id: data.publisherId },
      data: {
        creditUnverifiedConversions: data.creditUnverified,
        maxOrderTotalMicros: data.maxOrderTotal === null ? null : toMicros(data.maxOrderTotal),
        maxLineQuantity: data.maxLineQuantity,
      },
      select: SETTINGS,
    });
    const change = changedFields(loggedTrust(before), loggedTrust(after));
    if (change) {
      await recordActivity(tx, input.actor, {
        action: "account.conversion_trust.set",
        subject: `conversion settings of ${after.name}`,
        accountId: data.publisherId,
        ...change,
      });
    }
    return after;
  });
  return trustOf(data.publisherId, account, await listSigningSecrets({ actor: input.actor, publisherId: data.publisherId }));
}
