// `npm run bench:clickhouse`: ClickHouse as the store, against Postgres as the store, side by side
// in one run (docs/decisions/0042-clickhouse-behind-the-store-seam.md):
//   - settle: settling, shipping included, with ClickHouse as the store, over settling with
//     Postgres as the store (events per second, same processes, same traffic): target ≥ 1.0;
// Options: -- --only settle (comma-separated phases), --events N (per round, default 100,000),
// --advertisers N (64), --workers N (settle processes, 1), --rounds N (3).
// Prints the figures as JSON; exits 1 when a target is missed.
import { parseArgs } from "node:util";
import { log } from "../lib/stack";
import { measureSettling } from "./settle-throughput";

const { values } = parseArgs({
  options: {
    only: { type: "string", default: "settle" },
    events: { type: "string", default: "100000" },
    advertisers: { type: "string", default: "64" },
    workers: { type: "string", default: "1" },
    rounds: { type: "string", default: "3" },
  },
});
const phases = new Set(values.only.split(","));
const figures: Record<string, unknown> = {};
let missed = false;
const verdict = (name: string, met: boolean, line: string) => {
  if (!met) missed = true;
  log(`${met ? "PASS" : "FAIL"} ${name}: ${line}`);
};

if (phases.has("settle")) {
  const settle = await measureSettling({
    events: Number(values.events),
    advertisers: Number(values.advertisers),
    workers: Number(values.workers),
    rounds: Number(values.rounds),
  });
  figures.settle = settle;
  const spread = (rates: number[]) => `${Math.min(...rates).toLocaleString("en")}–${Math.max(...rates).toLocaleString("en")}`;
  verdict(
    "settle",
    settle.ratio >= 1 && settle.shippedRowsInClickhouse === settle.eventsInPostgres,
    `ClickHouse ${spread(settle.clickhouse)} events/s, Postgres ${spread(settle.postgres)} events/s; median ratio ${settle.ratio.toFixed(2)} (target ≥ 1.0); ${settle.shippedRowsInClickhouse.toLocaleString("en")} rows in ClickHouse for ${settle.eventsInPostgres.toLocaleString("en")} settled`,
  );
}

console.log(JSON.stringify(figures, null, 2));
process.exit(missed ? 1 : 0);
