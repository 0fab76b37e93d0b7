// Structured logs (pino): one JSON object per line on stdout, which every log collector reads
// without parsing rules; request ids tie a 5xx to the request that saw it. CLI commands keep
// their human progress lines.
import { randomUUID } from "node:crypto";
import pino from "pino";
import { env } from "@/env";

const holder = globalThis as unknown as { tallyLogger?: pino.Logger };

export function logger(): pino.Logger {
  holder.tallyLogger ??= pino({ name: "tally", level: env().TALLY_LOG_LEVEL, base: { pid: process.pid } });
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
