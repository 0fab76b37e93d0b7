// GET /docs/api: the API reference, Redoc rendering /openapi.json (docs/api.md).
import { handleApiReference } from "@/server/http/openapi-routes";

export const dynamic = "force-dynamic";

export const GET = handleApiReference;
