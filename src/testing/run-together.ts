// Runs npm scripts at the same time and waits for all of them: `npm test` runs the hostile suite
// beside the end-to-end tests, each against its own servers and database, because both spend much
// of their time waiting on servers, timers and browsers rather than on the CPU. Each line is
// prefixed with its script's name; the exit code is the first failure's, after every script ended,
// so one red stage never hides another's result.
//
//   node --import tsx src/testing/run-together.ts <script> <script> ...
import { spawn } from "node:child_process";
import { createInterface } from "node:readline";

interface Outcome {
  script: string;
  code: number;
  seconds: number;
}

function run(script: string): Promise<Outcome> {
  const started = Date.now();
  const child = spawn("npm", ["run", "--silent", script], { stdio: ["ignore", "pipe", "pipe"], env: { ...process.env, FORCE_COLOR: "0" } });
  for (const stream of [child.stdout, child.stderr]) {
    createInterface({ input: stream }).on("line", (line) => process.stdout.write(`[${script}] ${line}\n`));
  }
  return new Promise((resolve) => {
    child.on("close", (code, signal) => resolve({ script, code: code ?? (signal ? 1 : 0), seconds: Math.round((Date.now() - started) / 1000) }));
  });
}

const scripts = process.argv.slice(2);
if (scripts.length === 0) {
  console.error("usage: run-together.ts <npm script> <npm script> ...");
  process.exit(2);
}
const outcomes = await Promise.all(scripts.map(run));
for (const { script, code, seconds } of outcomes) console.log(`run-together: ${script} ${code === 0 ? "passed" : `failed (exit ${code})`} in ${seconds} s`);
process.exit(outcomes.find((outcome) => outcome.code !== 0)?.code ?? 0);
