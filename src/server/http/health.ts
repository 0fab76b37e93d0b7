import { db } from "@/server/db/client";
import { pingDatabase } from "@/server/db/ping";
import { type Lags, lagProblems, readLags } from "@/server/observability/lags.sql";

const holder = globalThis as unknown as { tallyHealthLags?: { lags: Lags; at: number } };
/** Lags are read at most this often: load balancers probe every few seconds, the lags move slowly. */
const LAGS_TTL_MS = 10_000;

async function cachedLags(): Promise<Lags> {
  const cached = holder.tallyHealthLags;
  if (cached && Date.now() - cached.at < LAGS_TTL_MS) return cached.lags;
  const lags = await readLags();
  holder.tallyHealthLags = { lags, at: Date.now() };
  return lags;
}

/**
 * For load balancers and monitors: 503 `error` when the database does not answer; otherwise 200,
 * `ok`, or `degraded` with its reasons when a background job (settle, attribution, an export) is
 * behind its threshold. Degraded still answers 200: the web tier can serve, and taking it out of
 * the balancer would not make a worker catch up.
 */
export async function handleHealth(): Promise<Response> {
  const headers = { "Cache-Control": "no-store" };
  const databaseOk = await pingDatabase(db);
  if (!databaseOk) return Response.json({ status: "error", database: "unreachable" }, { status: 503, headers });
  const lags = await cachedLags();
  const problems = lagProblems(lags);
  return Response.json(
    {
      status: problems.length === 0 ? "ok" : "degraded",
      database: "ok",
      ...(problems.length > 0 ? { problems } : {}),
      lags: {
        settle_seconds: Math.round(lags.settleLagSeconds),
        settle_backlog: lags.settleBacklog,
        attribution_seconds: Math.round(lags.attributionLagSeconds),
        attribution_backlog: lags.attributionBacklog,
      },
    },
    { status: 200, headers },
  );
}

/** Forgets the cached lags (tests). */
export function forgetHealthLags(): void {
  holder.tallyHealthLags = undefined;
}
