// GET /docs/api: docs/api.md followed by the API reference, Redoc rendering /openapi.json.
import { handleApiReference } from "@/server/http/openapi-routes";
import { readDoc, renderDoc } from "../documents";

export const dynamic = "force-dynamic";

export async function GET(request: Request): Promise<Response> {
  const place = { folder: "", slug: "api" } as const;
  const guide = await readDoc(place);
  // The project's own doc, not user input: its HTML is trusted, as on every docs page.
  return handleApiReference(request, guide === null ? "" : await renderDoc(place, guide));
}
