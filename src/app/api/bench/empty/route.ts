// POST /api/bench/empty: the baseline of `npm run bench:ingest`, an empty route handler answering
// 202 from the same build as the real routes. 404 unless TALLY_BENCH_ROUTES=1.
import { env } from "@/env";

export const dynamic = "force-dynamic";

export function POST(): Response {
  return new Response(null, { status: env().TALLY_BENCH_ROUTES ? 202 : 404 });
}
