// The TypeScript types of the API document, as openapi-typescript writes them: `npm run api:types`
// saves them to tally-api.d.ts beside this file, and api-types.test.ts fails when that file is
// not what the current document gives, so a changed route cannot leave its client types behind.
import path from "node:path";
import openapiTS, { astToString, COMMENT_HEADER, type OpenAPI3 } from "openapi-typescript";
import { API_VERSION, buildOpenApiDocument } from "@/server/http/openapi/document";

export const API_TYPES_FILE = path.join(import.meta.dirname, "tally-api.d.ts");

/** The file's text for the current document (its server is a placeholder: types do not hold it). */
export async function apiTypesSource(): Promise<string> {
  const document = buildOpenApiDocument({ serverUrl: "https://tally.example", eventsUrl: null, version: API_VERSION });
  // A field with a default (a job's filters) is one a client may leave out, not one it must send.
  const ast = await openapiTS(document as unknown as OpenAPI3, { alphabetize: false, rootTypes: false, defaultNonNullable: false });
  const reason = "// One file over 300 lines on purpose: openapi-typescript's output for the whole API document; regenerate with `npm run api:types`.\n";
  return `${reason}${COMMENT_HEADER}${astToString(ast)}`;
}
