// The currency a report's XLSX file shows money in (docs/reports.md, "XLSX columns"): the
// calling account's; for staff, the advertiser the report is filtered to, else the one currency
// every account holds. When the accounts hold several, the money columns show the amounts without
// a code rather than a wrong one (the advertiser report names each row's own currency).
import { pgPool } from "@/server/db/pg-pool";
import type { ReportIdParameter } from "@/server/store/report-query";
import { currencyOfAccounts } from "./report-currency.sql";
import type { ReportCaller } from "./report-scope";

export async function reportCurrency(caller: ReportCaller, ids: Partial<Record<ReportIdParameter, string>>): Promise<string | null> {
  const accountId = caller.accountId ?? ids.advertiser_id ?? null;
  const { rows } = await pgPool().query<{ currency: string | null }>(currencyOfAccounts(accountId));
  return rows[0]?.currency?.trim() || null;
}
