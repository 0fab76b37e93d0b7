import { env } from "@/env";
import { clickhouseStore } from "@/server/store/clickhouse/clickhouse-store";
import { closeClickhouse } from "@/server/store/clickhouse/client";
import { postgresStore } from "@/server/store/postgres/postgres-store";
import type { TallyStore } from "./store";

export type { ReportReads, SettledEvents, TallyStore } from "./store";

/** The store of settled events, rollups and report reads: ClickHouse when CLICKHOUSE_URL is set, else Postgres. */
export function store(): TallyStore {
  return env().CLICKHOUSE_URL ? clickhouseStore : postgresStore;
}

/** Lets go of the store's connections outside Postgres (Postgres's go with disconnectDb), so a CLI can exit. */
export async function closeStore(): Promise<void> {
  if (env().CLICKHOUSE_URL) await closeClickhouse();
}
