// GET /api/health: is Tally up and can it reach its database.
import { handleHealth } from "@/server/http/health";

export const dynamic = "force-dynamic";

export function GET(): Promise<Response> {
  return handleHealth();
}
