// GET /api/metrics: Prometheus metrics of this process and the database-wide lags (docs/operations.md).
import { handleMetrics } from "@/server/http/metrics-route";

export const dynamic = "force-dynamic";

export const GET = handleMetrics;
