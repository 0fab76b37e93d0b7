// The ClickHouse store (CLICKHOUSE_URL set): Postgres still decides and keeps what must be
// transactional (the logs, cursors, wallets, spend, the decisions' look-backs), and settled events
// and attributions go to ClickHouse through the outbox (ship-batches.ts), where materialized views
// keep the report rollups. Settling and attribution write no Postgres rollup rows in this mode, so
// every report takes its figures from ClickHouse (clickhouse-reports.ts).
import { attributionWriter } from "@/server/store/postgres/attribute-batch.sql";
import { postgresStore } from "@/server/store/postgres/postgres-store";
import { beaconHistory, beaconWriter } from "@/server/store/postgres/settle-beacons.sql";
import { storeConversions } from "@/server/store/postgres/store-conversions.sql";
import type { TallyStore } from "@/server/store/store";
import { clickhouseReports } from "./clickhouse-reports";
import { shipBatches, shipperState, unshippedSince } from "./ship-batches.sql";

export const clickhouseStore: TallyStore = {
  name: "clickhouse",
  settled: { beaconHistory, storeBeacons: beaconWriter("outbox"), storeConversions, attributeBatch: attributionWriter("outbox") },
  reports: clickhouseReports,
  exports: postgresStore.exports,
  rollups: postgresStore.rollups,
  shipping: { ship: shipBatches, state: shipperState, unshippedSince },
};
