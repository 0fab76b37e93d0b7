// A bench child: settles (the default) or ships (`ship`) in a loop until killed, with nothing else
// of the worker (no attribution, export or upkeep), so the two stores' runs differ only in where
// settled rows go. With CLICKHOUSE_URL set, settling writes the outbox; `ship` sends it.
import { settlePending } from "@/server/pipeline/settle/settle-pending";
import { SHIP_GATHER_SECONDS } from "@/server/pipeline/ship/ship-pending";
import { store } from "@/server/store";
import { migrateClickhouse } from "@/server/store/clickhouse/migrate.sql";

const role = process.argv[2] ?? "settle";
const pause = () => new Promise((resolve) => setTimeout(resolve, 20));

// An interrupt ends the process normally, so a --cpu-prof profile is written (ship-alone.ts).
process.on("SIGINT", () => process.exit(0));
if (role === "ship") {
  await migrateClickhouse();
  process.stdout.write("ready\n");
}
for (;;) {
  if (role === "ship") {
    // Gathering batches as the worker's ship loop does (ship-pending.ts).
    const shipped = await store().shipping!.ship({ deadline: Date.now() + 5_000, gatherSeconds: SHIP_GATHER_SECONDS });
    if (shipped.error) console.error(`bench: ship: ${shipped.error}`);
    if (shipped.batches === 0 || shipped.error) await pause();
  } else {
    const done = await settlePending();
    if (done.events === 0 && done.orders === 0) await pause();
  }
}
