// `npm run rollups:verify [-- --from YYYY-MM-DD --to YYYY-MM-DD]` (default: the last 30 days):
// recounts the report rows from ad_events and attributions and prints every difference; exits 1
// when there is one. It also lists what the jobs set aside in those days: beacons and orders
// settling set aside (their own data, or a rule: orders per session, a publisher's plausibility
// limits), orders attribution could not attribute and rows exports could not deliver.

import { parseArgs } from "node:util";
import { env, exitOnEnvError } from "@/env";
import { daysFromToday, utcDay } from "@/server/core/days";
import { disconnectDb } from "@/server/db/client";
import { setAsideOrders } from "@/server/pipeline/attribute/set-aside-orders";
import { setAsideExportRows } from "@/server/pipeline/export/job/set-aside-rows.sql";
import { setAsideEvents } from "@/server/pipeline/settle/set-aside-events";
import { closeStore, store } from "@/server/store";

try {
  env();
} catch (error) {
  exitOnEnvError(error);
}
const DAY = /^\d{4}-\d{2}-\d{2}$/;
const today = utcDay();
const { values } = parseArgs({ options: { from: { type: "string" }, to: { type: "string" } } });
const from = values.from ?? daysFromToday(-29);
const to = values.to ?? today;
if (!DAY.test(from) || !DAY.test(to) || Number.isNaN(Date.parse(from)) || Number.isNaN(Date.parse(to)) || from > to) {
  console.error("tally: usage: npm run rollups:verify [-- --from YYYY-MM-DD --to YYYY-MM-DD] (from not after to)");
  process.exit(2);
}
try {
  const kept = await store().rollups.firstDayWithRawRows(from);
  if (kept > from) console.log(`tally: rollups: days before ${kept} are not recounted: retention has dropped their raw rows (the report rows stay)`);
  if (kept <= to) console.log(`tally: rollups: recounting ${kept} to ${to} from ad_events and attributions (${store().name})`);
  const started = Date.now();
  const differences = await store().rollups.verify(from, to);
  for (const d of differences) {
    // A kept zone's rows name their zone, and hourly cells their local hour (ClickHouse's checks add both).
    const { zone, hour } = d as { zone?: string; hour?: number };
    const at = hour === undefined ? null : `${String(hour).padStart(2, "0")}h`;
    const key = [zone ?? null, d.day, at, d.publisher_id, d.site, d.advertiser_id, d.campaign_id, d.ad_id, d.placement_name]
      .filter((part) => part !== null)
      .join(" ");
    console.log(`${d.table} ${key}: ${d.measure} stored ${d.stored}, recounted ${d.recounted}`);
  }
  // Orders attribution set aside are missing from the figures by design; an operator should see them.
  const setAside = await setAsideOrders({ startDate: from, endDate: to }, null, 100);
  for (const order of setAside.latest) {
    console.log(`attribution set aside: publisher ${order.publisher_id} order ${order.order_id} received ${order.received_at.toISOString()}: ${order.reason}`);
  }
  if (setAside.total > 0)
    console.log(
      `tally: rollups: ${setAside.total} orders set aside by attribution${setAside.total > setAside.latest.length ? ` (the latest ${setAside.latest.length} listed)` : ""}`,
    );
  // Beacons and orders settling set aside (their data failed, or a rule such as a publisher's
  // plausibility limit said so) never reached the figures; an operator should see them too.
  const setAsideBySettle = await setAsideEvents({ startDate: from, endDate: to }, 100);
  for (const event of setAsideBySettle.latest) {
    const order = event.order_id !== null ? ` (publisher ${event.publisher_id} order ${event.order_id})` : "";
    const why = event.rule !== null ? `${event.rule}: ` : "";
    console.log(
      `settle set aside: ${event.kind} ${event.event_id}${order} received ${event.received_at.toISOString()}: ${why}${event.reason}${event.sqlstate ? ` (${event.sqlstate})` : ""}`,
    );
  }
  if (setAsideBySettle.total > 0) console.log(`tally: rollups: ${setAsideBySettle.total} beacons and orders set aside by settling`);
  const exportRows = await setAsideExportRows({ startDate: from, endDate: to }, 100);
  for (const run of exportRows.runs) {
    for (const row of run.rows) {
      console.log(`export set aside: destination ${run.destination_id} (account ${run.account_id}) ${run.type} run ${run.run_id} row ${row.id}: ${row.reason}`);
    }
  }
  if (exportRows.totalRows > 0)
    console.log(`tally: rollups: ${exportRows.totalRows} rows set aside by exports${exportRows.runs.length === 100 ? " (the latest 100 runs listed)" : ""}`);
  const seconds = ((Date.now() - started) / 1000).toFixed(1);
  console.log(`tally: rollups: ${differences.length === 0 ? "every figure matches" : `${differences.length} figures differ`} (${seconds} s)`);
  if (differences.length > 0) process.exitCode = 1;
} finally {
  await closeStore();
  await disconnectDb();
}
