// Structured logs (pino): one JSON object per line on stdout, which every log collector reads
// without parsing rules; request ids tie a 5xx to the request that saw it. `npm run dev`
// (NODE_ENV=development) prints the same records as plain lines for the person at the terminal.
// CLI commands keep their human progress lines.
import { randomUUID } from "node:crypto";
import pino from "pino";
import { env } from "@/env";

const holder = globalThis as unknown as { tallyLogger?: pino.Logger };

const LEVELS: Record<number, string> = { 10: "trace", 20: "debug", 30: "info", 40: "warn", 50: "error", 60: "fatal" };

/** One record as a terminal line: `tally: settle: 3 events set aside (requestId=…)`. */
export function plainLine(record: Record<string, unknown>): string {
  const { level, time, pid, name, msg, job, ...rest } = record;
  const prefix = ["tally", typeof job === "string" ? job : null, Number(level) >= 40 ? LEVELS[Number(level)] : null].filter(Boolean).join(": ");
  const extra = Object.entries(rest)
    .filter(([, value]) => value !== undefined)
    .map(([key, value]) => `${key}=${typeof value === "string" ? value : JSON.stringify(value)}`);
  return `${prefix}: ${String(msg)}${extra.length > 0 ? ` (${extra.join(", ")})` : ""}`;
}

export function logger(): pino.Logger {
  if (!holder.tallyLogger) {
    const config = env();
    const options = { name: "tally", level: config.TALLY_LOG_LEVEL, base: { pid: process.pid } };
    holder.tallyLogger =
      config.NODE_ENV === "development"
        ? pino(options, { write: (json: string) => process.stdout.write(`${plainLine(JSON.parse(json) as Record<string, unknown>)}\n`) })
        : pino(options);
  }
  return holder.tallyLogger;
}

/** A job's log: each line is a message with the job's name, as an interval loop writes them. */
export const jobLog =
  (job: string) =>
  (line: string): void =>
    logger().info({ job }, line.replace(/^tally: [a-z ]+: /, ""));

const GIVEN_ID = /^[A-Za-z0-9._-]{8,64}$/;

/** The caller's X-Request-Id (`given`) when it is a sane token (a proxy's), else a new one. */
export function requestIdOf(given: string | null): string {
  return given && GIVEN_ID.test(given) ? given : randomUUID();
}
