// GET /api/health, for load balancers and monitors. The public answer says whether Tally is up
// and which store serves its reports: {"status":"ok"|"degraded","store":"postgres"|"clickhouse"},
// or 503 {"status":"error"} when the database does not answer. How far behind each job is (lags,
// backlogs, the reasons for `degraded`, and with ClickHouse as the store the shipper's lag and
// batches waiting) tells an outsider how busy a deployment is, so it comes only with the metrics
// token, as /api/metrics does.
import { env } from "@/env";
import { db } from "@/server/db/client";
import { pingDatabase } from "@/server/db/ping.sql";
import { store } from "@/server/store";
import { type Lags, lagProblems, readLags } from "@/server/upkeep/lags.sql";
import { bearerMatches } from "./bearer";

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
 * 503 `error` when the database does not answer; otherwise 200, `ok`, or `degraded` when a
 * background job (settle, attribution, an export, the shipper to ClickHouse) is behind its threshold. Degraded still answers
 * 200: the web tier can serve, and taking it out of the balancer would not make a worker catch up.
 * With `Authorization: Bearer <TALLY_METRICS_TOKEN>` the answer adds the database's state, the
 * reasons and the lags.
 */
export async function handleHealth(request: Request): Promise<Response> {
  const headers = { "Cache-Control": "no-store" };
  const detailed = bearerMatches(request.headers.get("authorization"), env().TALLY_METRICS_TOKEN);
  const databaseOk = await pingDatabase(db);
  if (!databaseOk) return Response.json({ status: "error", ...(detailed ? { database: "unreachable" } : {}) }, { status: 503, headers });
  const lags = await cachedLags();
  const problems = lagProblems(lags);
  const status = problems.length === 0 ? "ok" : "degraded";
  if (!detailed) return Response.json({ status, store: store().name }, { status: 200, headers });
  return Response.json(
    {
      status,
      database: "ok",
      store: store().name,
      ...(problems.length > 0 ? { problems } : {}),
      lags: {
        settle_seconds: Math.round(lags.settleLagSeconds),
        settle_backlog: lags.settleBacklog,
        attribution_seconds: Math.round(lags.attributionLagSeconds),
        attribution_backlog: lags.attributionBacklog,
        ...(lags.shipper
          ? {
              ship_seconds: Math.round(lags.shipper.lagSeconds),
              ship_waiting_batches: lags.shipper.waiting,
              ship_set_aside_rows: lags.shipper.setAside,
              ...(lags.shipper.lastError !== null ? { ship_last_error: lags.shipper.lastError } : {}),
            }
          : {}),
      },
    },
    { status: 200, headers },
  );
}

/** Forgets the cached lags (tests). */
export function forgetHealthLags(): void {
  holder.tallyHealthLags = undefined;
}
