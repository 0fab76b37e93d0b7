// GET /docs/api: the API reference, Redoc rendering /openapi.json; the guide around it, docs/api.md,
// is its own page (/docs/api-guide), linked from the reference's first line.
import { handleApiReference } from "@/server/http/openapi-routes";

export const dynamic = "force-dynamic";

export function GET(request: Request): Response {
  return handleApiReference(request);
}
