// GET /docs/api: docs/api.md followed by the API reference, Redoc rendering /openapi.json.
import { marked } from "marked";
import { handleApiReference } from "@/server/http/openapi-routes";
import { readDoc } from "../documents";

export const dynamic = "force-dynamic";

export async function GET(request: Request): Promise<Response> {
  const guide = await readDoc("api");
  // The project's own doc, not user input: its HTML is trusted, as on every docs page.
  return handleApiReference(request, guide === null ? "" : await marked.parse(guide));
}
