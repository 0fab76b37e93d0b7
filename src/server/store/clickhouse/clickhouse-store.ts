// The ClickHouse store (CLICKHOUSE_URL set): Postgres still decides and keeps what must be
// transactional (the logs, cursors, wallets, spend, the decisions' look-backs), and settled events
// and attributions go to ClickHouse through the outbox (ship-batches.sql.ts), where materialized views
// keep the report rollups. Settling and attribution write no Postgres rollup rows in this mode, so
// every report takes its figures from ClickHouse (clickhouse-reports.ts).
import { attributionWriter } from "@/server/store/postgres/attribute-batch.sql";
import { beaconHistory, beaconWriter } from "@/server/store/postgres/settle-beacons.sql";
import { storeConversions } from "@/server/store/postgres/store-conversions.sql";
import type { ReportReads, TallyStore } from "@/server/store/store";
import { clickhouseReports } from "./clickhouse-reports";
import { clickhouseExportReads } from "./export-reads";
import { syncReportZones } from "./report-zones.sql";
import { clickhouseRollups } from "./rollup-checks";
import { asRollupWriter } from "./rollup-writers.sql";
import { forgetShipped, oldestUnshippedRow, shipBatches, shipperState, unshippedSince } from "./ship-batches.sql";

const reports: ReportReads = clickhouseReports;

export const clickhouseStore: TallyStore = {
  name: "clickhouse",
  settled: { beaconHistory, storeBeacons: beaconWriter("outbox"), storeConversions, attributeBatch: attributionWriter("outbox") },
  reports,
  exports: clickhouseExportReads(reports),
  rollups: clickhouseRollups,
  shipping: {
    // A rollup rebuild replaces whole months of rollups: batches wait until it is done (the next
    // run ships them), so no shipped row is counted twice or lost (rollup-checks.ts). Each run
    // first brings ClickHouse's kept zones in step with Postgres's (report-zones.sql.ts), so the
    // views count a newly kept zone from its start on.
    ship: async (options) => {
      const outcome = await asRollupWriter(async () => {
        await syncReportZones();
        return shipBatches(options);
      });
      return outcome === "rebuilding" ? { batches: 0, rows: 0, setAside: 0, error: null } : outcome;
    },
    state: shipperState,
    unshippedSince,
    oldestUnshippedRow,
    forgetShipped,
  },
};
