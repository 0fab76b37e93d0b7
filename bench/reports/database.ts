// The report benchmark's database: one embedded Postgres cluster under bench/results/ that
// `npm run bench:seed` fills once and `npm run bench:reports` reads as often as wanted, with a
// note of what was loaded beside it.
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { ensureDatabase, freePort, type LocalPostgres, startLocalPostgres } from "@/cli/local/embedded-postgres";

export const DATA_DIR = path.resolve("bench/results/reports-pg");
const SEED_NOTE = path.resolve("bench/results/reports-seed.json");

export interface SeedNote {
  events: number;
  /** The days the events cover (UTC), first and last. */
  firstDay: string;
  lastDay: string;
  seededAt: string;
  rollupRows: number;
  orders: number;
  seconds: number;
}

export const readSeedNote = (): SeedNote | null =>
  existsSync(SEED_NOTE) && existsSync(path.join(DATA_DIR, "PG_VERSION")) ? (JSON.parse(readFileSync(SEED_NOTE, "utf8")) as SeedNote) : null;

export const writeSeedNote = (note: SeedNote) => writeFileSync(SEED_NOTE, `${JSON.stringify(note, null, 2)}\n`);

export async function startBenchDatabase(): Promise<{ postgres: LocalPostgres; url: string }> {
  const postgres = await startLocalPostgres({ dataDir: DATA_DIR, port: await freePort(), unsafeFastWrites: true });
  await ensureDatabase(postgres.adminUrl, "tally");
  return { postgres, url: postgres.urlFor("tally") };
}
