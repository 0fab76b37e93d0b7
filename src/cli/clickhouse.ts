// ClickHouse as the store (CLICKHOUSE_URL), by hand:
//   npm run clickhouse:migrate    applies ClickHouse's migrations (the app also does at start)
//   npm run clickhouse:ship       ships the outbox's waiting batches until none waits, printing each run
//   npm run clickhouse:backfill [-- --from YYYY-MM-DD --to YYYY-MM-DD]
//                                 copies the rows Postgres settled before ClickHouse was the store,
//                                 day by day, printing each day; safe to run again (store/clickhouse/backfill.ts)
import { parseArgs } from "node:util";
import { env, exitOnEnvError } from "@/env";
import { disconnectDb } from "@/server/db/client";
import { closeStore, store } from "@/server/store";
import { backfillClickhouse } from "@/server/store/clickhouse/backfill";
import { migrateClickhouse } from "@/server/store/clickhouse/migrate.sql";

const USAGE = "tally: usage: npm run clickhouse:migrate | clickhouse:ship | clickhouse:backfill [-- --from YYYY-MM-DD --to YYYY-MM-DD]";
const DAY = /^\d{4}-\d{2}-\d{2}$/;

try {
  env();
} catch (error) {
  exitOnEnvError(error);
}
if (!env().CLICKHOUSE_URL) {
  console.error("tally: clickhouse: CLICKHOUSE_URL is not set");
  process.exit(2);
}
const { values, positionals } = parseArgs({ options: { from: { type: "string" }, to: { type: "string" } }, allowPositionals: true });
const [command] = positionals;
const days = [values.from, values.to].filter((day) => day !== undefined);
if (
  !["migrate", "ship", "backfill"].includes(command ?? "") ||
  positionals.length !== 1 ||
  (command !== "backfill" && days.length > 0) ||
  days.some((day) => !DAY.test(day) || Number.isNaN(Date.parse(day))) ||
  (values.from && values.to && values.from > values.to)
) {
  console.error(USAGE);
  process.exit(2);
}

async function migrate() {
  const applied = await migrateClickhouse();
  console.log(applied.length === 0 ? "tally: clickhouse: every migration was already applied" : `tally: clickhouse: applied migrations ${applied.join(", ")}`);
}

async function ship() {
  const shipping = store().shipping!;
  for (let run = 1; ; run++) {
    const outcome = await shipping.ship();
    const { waiting, setAside } = await shipping.state();
    console.log(
      `tally: clickhouse: run ${run}: ${outcome.batches} batches shipped (${outcome.rows} rows, ${outcome.setAside} set aside); ${waiting} waiting, ${setAside} rows set aside in all`,
    );
    if (outcome.error !== null) {
      console.error(`tally: clickhouse: shipping stopped: ${outcome.error}`);
      process.exitCode = 1;
      return;
    }
    if (waiting === 0) return;
    if (outcome.batches === 0) {
      // Taken by another shipper (its lease), or held back while the rollups are rebuilt.
      console.log(`tally: clickhouse: the ${waiting} waiting batches are another shipper's or wait for a rollup rebuild; run again later`);
      return;
    }
  }
}

async function backfill() {
  const started = Date.now();
  const outcome = await backfillClickhouse({
    ...(values.from ? { from: values.from } : {}),
    ...(values.to ? { to: values.to } : {}),
    onDay: (day) => {
      const what =
        day.heldBefore === day.postgresRows
          ? "already in ClickHouse, skipped"
          : `${day.sent} rows sent in ${day.chunks} ${day.chunks === 1 ? "insert" : "inserts"}${day.heldBefore > 0 ? ` (${day.heldBefore} were already there)` : ""}`;
      console.log(`tally: clickhouse: backfill ${day.table} ${day.day}: ${day.postgresRows} rows settled before ClickHouse: ${what}`);
    },
  });
  const { postgresKeptFrom: pg, clickhouseKeptFrom: ch } = outcome;
  if (pg.adEvents || pg.orders) {
    console.log(
      `tally: clickhouse: not backfilled: ad events before ${pg.adEvents ?? "-"} and orders before ${pg.orders ?? "-"}, whose raw rows Postgres retention has dropped (their figures stay in Postgres's rollups only)`,
    );
  }
  if (ch.adEvents || ch.orders) {
    console.log(`tally: clickhouse: not sent: ad events before ${ch.adEvents ?? "-"} and orders before ${ch.orders ?? "-"}, older than ClickHouse's TTL keeps`);
  }
  const sent = outcome.days.reduce((sum, day) => sum + day.sent, 0);
  console.log(`tally: clickhouse: backfill done: ${outcome.days.length} days, ${sent} rows sent (${((Date.now() - started) / 1000).toFixed(1)} s)`);
}

try {
  if (command === "migrate") await migrate();
  else if (command === "ship") await ship();
  else await backfill();
} finally {
  await closeStore();
  await disconnectDb();
}
