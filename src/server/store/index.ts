import { env } from "@/env";
import { postgresStore } from "@/server/store/postgres/postgres-store";
import type { TallyStore } from "./store";

export type { ReportReads, SettledEvents, TallyStore } from "./store";

const STORES: Record<ReturnType<typeof env>["TALLY_STORE"], TallyStore> = { postgres: postgresStore };

/** The store of settled events, rollups and report reads that TALLY_STORE names (postgres, the default and only one). */
export function store(): TallyStore {
  return STORES[env().TALLY_STORE];
}
