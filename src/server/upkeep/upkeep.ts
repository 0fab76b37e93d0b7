// The upkeep job: every partitioned table's days made ahead, then retention of the logs (settled
// and past TALLY_LOG_RETENTION_DAYS), of the raw rows (past TALLY_RAW_RETENTION_DAYS and every
// hold, raw-retention.sql.ts), of what was set aside (past TALLY_SET_ASIDE_RETENTION_DAYS), of
// shoppers' brand purchases (past TALLY_NEW_TO_BRAND_DAYS), OAuth access tokens past their hour,
// report jobs and their files (past 7 days), and the shared rate limits' past windows; then kept
// time zones' report rows moved back over the raw days still held (zone-backfill.ts). Run hourly
// by the server and the worker, and by the cron route.
import { env } from "@/env";
import { purgeExpiredAccessTokens } from "@/server/accounts/oauth-tokens";
import { postgresLeaseStore } from "@/server/db/limit-windows.sql";
import { type RawRetentionPolicy, rawRetentionPolicy } from "@/server/pipeline/export/job/retention-holds";
import { deleteExpiredReportJobs } from "@/server/pipeline/report/jobs/report-job-retention";
import { dropExpiredBrandPurchases } from "./brand-purchase-retention.sql";
import { createPartitionsAhead } from "./day-partitions.sql";
import { dropSettledLogPartitions } from "./log-retention.sql";
import { dropExpiredRawDays } from "./raw-retention.sql";
import { dropExpiredSetAsides } from "./set-aside-retention.sql";
import { backfillZones, type ZoneBackfillLimits, type ZoneBackfillResult, zoneBackfillLimits } from "./zone-backfill";

export interface UpkeepResult {
  /** Partitions created, as `<table>_<YYYYMMDD>` names. */
  created: string[];
  /** Partitions dropped, logs and raw tables. */
  dropped: string[];
  /** Rows deleted from the default partitions. */
  deletedFromDefault: number;
  /** Set-aside records, set-aside orders and rows ClickHouse refused, deleted past their retention. */
  setAsideDeleted: { records: number; orders: number; refused: number };
  /** Shoppers' brand purchases deleted past new-to-brand's look-back. */
  brandPurchasesDeleted: number;
  /** OAuth access tokens deleted once expired. */
  accessTokensDeleted: number;
  /** Report jobs deleted with their files past their 7 days. */
  reportJobsDeleted: number;
  /** Kept zones' stretches of held raw days added to their report rows, and the zone-days that failed. */
  zonesBackfilled: ZoneBackfillResult;
}

export interface RetentionPolicy {
  logDays: number;
  raw: RawRetentionPolicy;
  setAsideDays: number;
  newToBrandDays: number;
}

/** The configured policy: TALLY_LOG_RETENTION_DAYS, TALLY_RAW_*, TALLY_SET_ASIDE_RETENTION_DAYS. */
export const retentionPolicy = (): RetentionPolicy => ({
  logDays: env().TALLY_LOG_RETENTION_DAYS,
  raw: rawRetentionPolicy(),
  setAsideDays: env().TALLY_SET_ASIDE_RETENTION_DAYS,
  newToBrandDays: env().TALLY_NEW_TO_BRAND_DAYS,
});

export async function upkeep(
  now: Date,
  retention: RetentionPolicy = retentionPolicy(),
  backfill: ZoneBackfillLimits = zoneBackfillLimits(),
): Promise<UpkeepResult> {
  const created = await createPartitionsAhead(now);
  const logs = await dropSettledLogPartitions(now, retention.logDays);
  const raw = await dropExpiredRawDays(now, retention.raw);
  const setAsideDeleted = await dropExpiredSetAsides(now, retention.setAsideDays);
  const brandPurchasesDeleted = await dropExpiredBrandPurchases(now, retention.newToBrandDays);
  const accessTokensDeleted = await purgeExpiredAccessTokens(now);
  // Processes forget the shared limits' past windows as they go; a process that stopped taking
  // leases leaves its last ones, which go here.
  await postgresLeaseStore().forgetBefore(now.getTime() - 60_000);
  // After retention, so that no day it drops is added; a zone-day that fails waits for the next run.
  const zonesBackfilled = await backfillZones(backfill);
  // Last: a bucket that cannot be reached stops only this step.
  const reportJobsDeleted = await deleteExpiredReportJobs(now);
  return {
    created,
    dropped: [...logs.dropped, ...raw.dropped],
    deletedFromDefault: logs.deletedFromDefault + raw.deletedFromDefault,
    setAsideDeleted,
    brandPurchasesDeleted,
    accessTokensDeleted,
    reportJobsDeleted,
    zonesBackfilled,
  };
}
