// One number read from a chdb folder by a child process (count-child.ts): chdb opens one folder
// per process, and the bench's own process opens none, so its ClickHouse-mode children can.
import { runBenchChild } from "../lib/stack";

export async function selectCount(clickhouseUrl: string, query: string): Promise<number> {
  const result = await runBenchChild("bench/clickhouse/count-child.ts", [query], {
    ...process.env,
    CLICKHOUSE_URL: clickhouseUrl,
    NODE_ENV: "test",
    DATABASE_URL: "postgresql://unused@localhost/unused",
  });
  if (result.status !== 0) throw new Error("counting in ClickHouse failed (its error is above)");
  const line = result.stdout.trim().split("\n").at(-1)!;
  return Number((JSON.parse(line) as { n: string }).n);
}
