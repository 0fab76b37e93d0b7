// GET /openapi.json: Tally's OpenAPI 3.1 document, built from the schemas that validate each route (docs/api.md).
import { handleOpenApiDocument } from "@/server/http/openapi-routes";

export const dynamic = "force-dynamic";

export const GET = handleOpenApiDocument;
