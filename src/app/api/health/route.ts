// GET /api/health: is Tally up and can it reach its database (the details only with the metrics token).
import { handleHealth } from "@/server/http/health";

export const dynamic = "force-dynamic";

export function GET(request: Request): Promise<Response> {
  return handleHealth(request);
}
