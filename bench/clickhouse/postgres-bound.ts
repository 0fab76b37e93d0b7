// Postgres's size against stored history, with ClickHouse and with Postgres as the store: the same
// traffic per day, `horizonDays` of it (all inside the decision horizon) against `horizonDays ×
// growth` days, each case generated into a database of its own by bound-child.ts.
import { log, runBenchChild, startDatabase } from "../lib/stack";

export interface BoundCase {
  days: number;
  events: number;
  bytes: number;
  eventsKept: number;
  outboxRows: number;
}

export interface BoundFigures {
  clickhouse: { small: BoundCase; large: BoundCase; ratio: number };
  postgres: { small: BoundCase; large: BoundCase; ratio: number };
}

async function oneCase(mode: "clickhouse" | "postgres", days: number, perDay: number): Promise<BoundCase> {
  // Migrated here, seeded by the child: this process reads no database itself.
  const { postgres, url } = await startDatabase(`bound-${mode}-${days}`);
  try {
    const env: NodeJS.ProcessEnv = { ...process.env, DATABASE_URL: url, NODE_ENV: "test", TALLY_LOG_LEVEL: "warn" };
    // The mode is whether CLICKHOUSE_URL is set; the child never opens it.
    if (mode === "clickhouse") env.CLICKHOUSE_URL = "chdb:/nonexistent/never-opened";
    else delete env.CLICKHOUSE_URL;
    const child = await runBenchChild("bench/clickhouse/bound-child.ts", [String(days), String(perDay)], env);
    if (child.status !== 0) throw new Error(`bound-child ${mode} ${days} failed`);
    const result = JSON.parse(child.stdout.trim().split("\n").at(-1)!) as Omit<BoundCase, "days" | "events">;
    log(
      `bound: ${mode} as the store, ${days} days of ${perDay.toLocaleString("en")} events: Postgres ${(result.bytes / 2 ** 20).toFixed(0)} MiB, ${result.eventsKept.toLocaleString("en")} events kept`,
    );
    return { days, events: days * perDay, ...result };
  } finally {
    await postgres.stop();
  }
}

export async function measureBound(options: { smallEvents: number; growth: number; horizonDays: number }): Promise<BoundFigures> {
  const perDay = Math.round(options.smallEvents / options.horizonDays);
  const largeDays = options.horizonDays * options.growth;
  const figures = {} as BoundFigures;
  for (const mode of ["clickhouse", "postgres"] as const) {
    const small = await oneCase(mode, options.horizonDays, perDay);
    const large = await oneCase(mode, largeDays, perDay);
    figures[mode] = { small, large, ratio: large.bytes / small.bytes };
  }
  return figures;
}
