// For the export tests: runs one destination's export and kills its own process (SIGKILL, as a
// platform ends a function at its time limit) right after the first file is uploaded.
// usage: node --import tsx src/testing/export-until-killed.ts <destination id> <now, epoch ms>
import { runDueExports } from "@/server/pipeline/export/job/run-exports";

const [destinationId, nowMs] = process.argv.slice(2);
await runDueExports({
  destinationId,
  now: () => new Date(Number(nowMs)),
  rowsPerFile: 1,
  onFile: () => {
    process.kill(process.pid, "SIGKILL");
  },
});
console.error("the export finished without being killed");
process.exit(3);
