// `npm run attribute`: attributes every waiting order now, batch by batch, printing each batch;
// for a backfill after the loop or the cron was down, or to see attribution work step by step.
import { env, exitOnEnvError } from "@/env";
import { disconnectDb } from "@/server/db/client";
import { attributePendingConversions } from "@/server/pipeline/attribute/attribute-pending";

try {
  env();
} catch (error) {
  exitOnEnvError(error);
}
try {
  const started = Date.now();
  let batches = 0;
  const done = await attributePendingConversions({
    onBatch: (batch) => {
      batches += 1;
      console.log(
        `tally: attribution: batch ${batches}: ${batch.orders} orders, ${batch.items} items attributed (${batch.attributedOrders} orders with a match)`,
      );
    },
  });
  const seconds = ((Date.now() - started) / 1000).toFixed(1);
  console.log(`tally: attribution: ${done.orders} orders, ${done.items} items attributed in ${seconds} s; orders younger than 5 s wait for the next run`);
} finally {
  await disconnectDb();
}
