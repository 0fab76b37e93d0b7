// `npm run export -- [--destination <id>] [--type <name>] [--from <YYYY-MM-DD> --to <YYYY-MM-DD>] [--rows-per-file <n>]`:
// runs the export job by hand with a line per file. Without --from/--to it delivers what is due
// (as the cron does); with them it backfills those days for one destination (UTC days of events,
// local days of the account's zone of aggregates), leaving its watermarks where they are.
import { parseArgs } from "node:util";
import { env, exitOnEnvError } from "@/env";
import { EXPORT_TYPES } from "@/server/core/export-types";
import { disconnectDb } from "@/server/db/client";
import type { ExportType } from "@/server/db/generated/enums";
import { backfillExports, type ExportRunSummary, runDueExports } from "@/server/pipeline/export/job/run-exports";

const USAGE = "usage: npm run export -- [--destination <id>] [--type <name>] [--from <YYYY-MM-DD> --to <YYYY-MM-DD>] [--rows-per-file <n>]";

try {
  env();
} catch (error) {
  exitOnEnvError(error);
}

const { values } = parseArgs({
  options: { destination: { type: "string" }, type: { type: "string" }, from: { type: "string" }, to: { type: "string" }, "rows-per-file": { type: "string" } },
});
const DAY = /^\d{4}-\d{2}-\d{2}$/;
const fail = (message: string): never => {
  console.error(`tally: ${message}\ntally: ${USAGE}`);
  process.exit(2);
};
if (values.type && !(EXPORT_TYPES as readonly string[]).includes(values.type)) fail(`--type must be one of ${EXPORT_TYPES.join(", ")}`);
if ((values.from === undefined) !== (values.to === undefined)) fail("--from and --to go together");
if (values.from && (!DAY.test(values.from) || !DAY.test(values.to!) || values.from > values.to!)) fail("--from and --to are days YYYY-MM-DD, --from first");
if (values.from && !values.destination) fail("a backfill (--from, --to) needs --destination");
const rowsPerFile = values["rows-per-file"] ? Number(values["rows-per-file"]) : undefined;
if (rowsPerFile !== undefined && !(Number.isInteger(rowsPerFile) && rowsPerFile > 0)) fail("--rows-per-file must be a whole number above 0");

const mb = (bytes: number) => `${(bytes / 1_048_576).toFixed(2)} MB`;
const options = {
  types: values.type ? [values.type as ExportType] : undefined,
  rowsPerFile,
  onFile: (f: { destinationId: string; type: string; index: number; files: number; rows: number; bytes: number; key: string }) =>
    console.log(`tally: export: ${f.destinationId} ${f.type} file ${f.index + 1}/${f.files}: ${f.rows.toLocaleString("en")} rows, ${mb(f.bytes)} → ${f.key}`),
  onRun: (r: ExportRunSummary) => {
    // An aggregate run is a local day: its date and zone first, then the UTC moments it spans.
    const range = `${r.day ? `${r.day} (${r.timeZone}) ` : ""}${r.rangeStart} to ${r.rangeEnd}`;
    console.log(
      r.status === "succeeded"
        ? `tally: export: ${r.destinationId} ${r.type} ${range}: delivered ${r.rows.toLocaleString("en")} rows in ${r.files} files (${mb(r.bytes)}, ${(r.durationMs / 1000).toFixed(1)} s)${r.setAsideRows > 0 ? `; ${r.setAsideRows.toLocaleString("en")} set aside` : ""}`
        : `tally: export: ${r.destinationId} ${r.type} ${range}: failed (attempt ${r.attempt}): ${r.error}`,
    );
    // Rows that could not be read or encoded: left out of the files, each with its id and reason.
    for (const row of r.setAside) console.log(`tally: export: ${r.destinationId} ${r.type}: set aside ${row.id}: ${row.reason}`);
  },
};

try {
  let runs: ExportRunSummary[];
  if (values.from) {
    console.log(`tally: export: backfilling ${values.destination} from ${values.from} to ${values.to}`);
    runs = await backfillExports({ ...options, destinationId: values.destination!, fromDay: values.from, toDay: values.to! });
  } else {
    console.log(`tally: export: delivering what is due${values.destination ? ` for ${values.destination}` : ""}`);
    runs = (await runDueExports({ ...options, destinationId: values.destination })).runs;
  }
  if (runs.length === 0) console.log("tally: export: nothing is due");
  if (runs.some((r) => r.status === "failed")) process.exitCode = 1;
} finally {
  await disconnectDb();
}
