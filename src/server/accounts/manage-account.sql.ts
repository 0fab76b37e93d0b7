// Hand-written SQL of an account's money (manage-account.ts). Prisma's tagged template: every value a parameter.
import { db } from "@/server/db/client";

/**
 * Adds `micros` to an advertiser's wallet in one statement unless it would then hold more than
 * `ceiling`: the balance, and whether it was topped up; no row for an account that is not an advertiser.
 */
export async function addToWallet(accountId: string, micros: bigint, ceiling: bigint): Promise<{ wallet_balance_micros: bigint; topped_up: boolean }[]> {
  return db.$queryRaw`
    WITH topped AS (
      UPDATE accounts SET wallet_balance_micros = wallet_balance_micros + ${micros}, updated_at = now()
       WHERE id = ${accountId} AND kind = 'advertiser' AND wallet_balance_micros + ${micros} <= ${ceiling}
      RETURNING wallet_balance_micros
    )
    SELECT wallet_balance_micros, true AS topped_up FROM topped
    UNION ALL
    SELECT wallet_balance_micros, false FROM accounts WHERE id = ${accountId} AND kind = 'advertiser' AND NOT EXISTS (SELECT 1 FROM topped)`;
}
