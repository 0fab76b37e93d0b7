// POST /dashboard/table-file: a dashboard table the page sends back as a CSV or XLSX file
// (src/server/formats/table-file.ts). The dashboard's own pages only, as its tRPC endpoint
// (403 for a request another site made a browser send), for a signed-in session (401 without
// one); the body is JSON of at most 8 MB (413 past it), 400 naming the field at fault.
import { sessionTokenOf, viewerOfSession } from "@/server/accounts/sessions";
import { TallyError } from "@/server/core/errors";
import { parseTableFileBody, TABLE_FILE_MAX_BYTES, tableFile } from "@/server/formats/table-file";
import { readJsonBody } from "./read-json-body";
import { assertSameOrigin } from "./request-origin";
import { errorResponse } from "./respond";

export async function handleTableFile(request: Request): Promise<Response> {
  try {
    assertSameOrigin(request);
    const viewer = await viewerOfSession(sessionTokenOf(request));
    if (!viewer) throw new TallyError("unauthorized", "sign in to the dashboard to download its tables");
    const { stream, headers } = tableFile(parseTableFileBody(await readJsonBody(request, TABLE_FILE_MAX_BYTES)));
    return new Response(stream, { headers });
  } catch (error) {
    return errorResponse(error);
  }
}
