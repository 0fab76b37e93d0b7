// An advertiser's wallet as a ledger: what came in (each top-up, kept in wallet_top_ups by
// topUpWallet in its own transaction) and what went out (each day's charges). Days and times are
// the account's local ones (accounts.time_zone), the days its daily budget runs over. The charges are
// read from advertiser_daily_spend, the per-day sum that settling writes in the statement that
// takes the same amount from the wallet (store/postgres/settle-beacons.sql.ts), in either store,
// so the ledger and the balance cannot disagree and no write per event is added for it.
import { type ActivityActor, actorOf } from "@/server/activity/activity-log";
import { dayStart } from "@/server/core/days";
import { fromMicros } from "@/server/core/money";
import { localRangeSpan, offsetMinutes, UTC } from "@/server/core/time-zones";
import { db } from "@/server/db/client";
import type { Prisma } from "@/server/db/generated/client";
import { newId } from "@/server/db/ids";
import { type Actor, assertMayAccess, isOperator } from "./actor";

type Tx = Prisma.TransactionClient;

/** Most top-ups one range lists (newest first); the page says when more were left out. */
export const LEDGER_TOP_UP_LIMIT = 500;

export async function recordTopUp(
  tx: Tx,
  actor: ActivityActor,
  topUp: { accountId: string; requestId: string; amountMicros: bigint; balanceAfterMicros: bigint },
): Promise<void> {
  const { actorUserId, actorName } = actorOf(actor);
  await tx.walletTopUp.create({ data: { id: newId("wtu"), ...topUp, actorUserId, actorName } });
}

export interface LedgerRow {
  id: string;
  /** A top-up's moment (local time in the account's zone, to the second) or a local day of charges (YYYY-MM-DD): newest first either way. */
  when: string;
  entry: "top-up" | "charges";
  /** Money in (a top-up) is positive, out (a day's charges) negative. */
  amount: number;
  /** Who topped up; members read "Tally staff", as in the activity log. Null for charges. */
  by: string | null;
  /** The wallet just after a top-up; null for a day's charges, taken event by event. */
  balanceAfter: number | null;
}

/** A moment as the local time in `zone`, "YYYY-MM-DD HH:MM:SS" (offsets are whole minutes, so shifting by one is exact). */
const localMoment = (at: Date, zone: string) => new Date(at.getTime() + offsetMinutes(at, zone) * 60_000).toISOString().slice(0, 19).replace("T", " ");

/**
 * The wallet's top-ups and daily charges from `startDate` to `endDate` (the account's local days,
 * inclusive), newest first, for whoever may see the account: staff, and the account's own
 * members; with the zone they are in.
 */
export async function walletLedger({
  actor,
  accountId,
  startDate,
  endDate,
}: {
  actor: Actor;
  accountId: string;
  startDate: string;
  endDate: string;
}): Promise<{ rows: LedgerRow[]; moreTopUps: boolean; timeZone: string }> {
  assertMayAccess(actor, accountId);
  const account = await db.account.findUnique({ where: { id: accountId }, select: { timeZone: true } });
  const timeZone = account?.timeZone ?? UTC;
  // Top-ups by their moment within the local days; charges by their row's date, already local.
  const span = localRangeSpan({ startDate, endDate }, timeZone);
  const from = dayStart(startDate);
  const until = new Date(dayStart(endDate).getTime() + 86_400_000);
  const [topUps, charges] = await Promise.all([
    db.walletTopUp.findMany({
      where: { accountId, at: { gte: span.from, lt: span.to } },
      orderBy: [{ at: "desc" }, { id: "desc" }],
      take: LEDGER_TOP_UP_LIMIT + 1,
    }),
    db.advertiserDailySpend.findMany({ where: { advertiserId: accountId, day: { gte: from, lt: until }, spendMicros: { gt: 0 } }, orderBy: { day: "desc" } }),
  ]);
  const staffShown = isOperator(actor) || actor.role === "staff";
  const rows: LedgerRow[] = [
    ...topUps.slice(0, LEDGER_TOP_UP_LIMIT).map((t) => ({
      id: t.id,
      when: localMoment(t.at, timeZone),
      entry: "top-up" as const,
      amount: fromMicros(t.amountMicros),
      by: staffShown ? t.actorName : "Tally staff",
      balanceAfter: fromMicros(t.balanceAfterMicros),
    })),
    ...charges.map((c) => {
      const day = c.day.toISOString().slice(0, 10);
      return { id: `charges-${day}`, when: day, entry: "charges" as const, amount: -fromMicros(c.spendMicros), by: null, balanceAfter: null };
    }),
  ];
  // A day's charges after that day's top-ups: "2026-12-02" sorts before "2026-12-02 09:00:00".
  rows.sort((a, b) => b.when.localeCompare(a.when));
  return { rows, moreTopUps: topUps.length > LEDGER_TOP_UP_LIMIT, timeZone };
}
