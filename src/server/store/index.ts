import { env } from "@/env";
import { clickhouseStore } from "@/server/store/clickhouse/clickhouse-store";
import { postgresStore } from "@/server/store/postgres/postgres-store";
import type { TallyStore } from "./store";

export type { ReportReads, SettledEvents, TallyStore } from "./store";

/** The store of settled events, rollups and report reads: ClickHouse when CLICKHOUSE_URL is set, else Postgres. */
export function store(): TallyStore {
  return env().CLICKHOUSE_URL ? clickhouseStore : postgresStore;
}
