// Hand-written SQL of an account's money (manage-account.ts). Prisma's tagged template: every value a parameter.
import type { Prisma } from "@/server/db/generated/client";

type Tx = Prisma.TransactionClient;

/**
 * Adds `micros` to an advertiser's wallet in one statement unless it would then hold more than
 * `ceiling`: the balance, and whether it was topped up; no row for an account that is not an advertiser.
 */
export async function addToWallet(
  tx: Tx,
  accountId: string,
  micros: bigint,
  ceiling: bigint,
): Promise<{ wallet_balance_micros: bigint; topped_up: boolean }[]> {
  return tx.$queryRaw`
    WITH topped AS (
      UPDATE accounts SET wallet_balance_micros = wallet_balance_micros + ${micros}, updated_at = now()
       WHERE id = ${accountId} AND kind = 'advertiser' AND wallet_balance_micros + ${micros} <= ${ceiling}
      RETURNING wallet_balance_micros
    )
    SELECT wallet_balance_micros, true AS topped_up FROM topped
    UNION ALL
    SELECT wallet_balance_micros, false FROM accounts WHERE id = ${accountId} AND kind = 'advertiser' AND NOT EXISTS (SELECT 1 FROM topped)`;
}

/**
 * The account's name, kind and daily budget, its row locked until the transaction ends, so two
 * changes take turns and each logs what the other left. NO KEY UPDATE: beacons' spend, which
 * refers to the account, never waits for it.
 */
export async function lockAccountSettings(tx: Tx, accountId: string): Promise<{ name: string; kind: string; daily_budget_micros: bigint | null }[]> {
  return tx.$queryRaw`SELECT name, kind::text AS kind, daily_budget_micros FROM accounts WHERE id = ${accountId} FOR NO KEY UPDATE`;
}
