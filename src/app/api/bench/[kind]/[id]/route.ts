// POST /api/bench/{kind}/{id}: the baseline of `npm run bench:ingest`, an empty route handler
// answering 202 from the same build as the real routes. Its two dynamic segments give it the shape
// of /v1/beacon/[kind]/[id]: Next.js's matching of such a route is part of what the beacon route
// costs, so a static baseline would charge it to the handler. 404 unless TALLY_BENCH_ROUTES=1.
import { env } from "@/env";

export const dynamic = "force-dynamic";

export function POST(): Response {
  return new Response(null, { status: env().TALLY_BENCH_ROUTES ? 202 : 404 });
}
