// Checks a real answer of Tally against its OpenAPI document (src/server/http/openapi/): the
// status is one the operation declares, the content type one it declares for that status, a JSON
// body matches the schema (Ajv, JSON Schema 2020-12 as OpenAPI 3.1 reads it), and every header
// it requires is there and well-formed. The integration suites call it from their shared request
// helpers, so every answer they read is checked.
import { Ajv2020 } from "ajv/dist/2020.js";
import { default as addFormats } from "ajv-formats";
import { addStringFormats } from "@/contracts/string-formats";
import { API_VERSION, buildOpenApiDocument } from "@/server/http/openapi/document";

const DOCUMENT_ID = "https://tally.test/openapi.json";
export const contractDocument = buildOpenApiDocument({ serverUrl: "http://tally.test", eventsUrl: null, version: API_VERSION });

const ajv = new Ajv2020({ allErrors: true, strict: false });
addFormats(ajv);
addStringFormats(ajv);
ajv.addSchema({ ...contractDocument, $id: DOCUMENT_ID });

interface Header {
  required?: boolean;
  schema: object;
}
interface Answer {
  description: string;
  headers?: Record<string, Header | Reference>;
  content?: Record<string, unknown>;
}
type Reference = { $ref: string };

const paths = contractDocument.paths as Record<string, Record<string, { responses: Record<string, Answer | Reference> }>>;
const pointerSegment = (segment: string) => segment.replaceAll("~", "~0").replaceAll("/", "~1");

/** The document's path template a request path falls under, if any. */
function templateOf(pathname: string): string | undefined {
  const path = pathname.length > 1 ? pathname.replace(/\/$/, "") : pathname;
  if (paths[path]) return path;
  return Object.keys(paths).find((template) => {
    if (!template.includes("{")) return false;
    const pattern = new RegExp(`^${template.replace(/\{[^}]+\}/g, "[^/]+")}$`);
    return pattern.test(path);
  });
}

/** A declared response, with the JSON pointer where it sits (a $ref followed to the shared one). */
function declaredAnswer(template: string, method: string, status: number): { answer: Answer; pointer: string } | undefined {
  const responses = paths[template]?.[method]?.responses ?? {};
  const key = String(status) in responses ? String(status) : "default" in responses ? "default" : undefined;
  if (!key) return undefined;
  const found = responses[key]!;
  if ("$ref" in found) {
    const name = found.$ref.replace("#/components/responses/", "");
    return { answer: (contractDocument.components.responses as Record<string, Answer>)[name]!, pointer: `#/components/responses/${pointerSegment(name)}` };
  }
  return { answer: found, pointer: `#/paths/${pointerSegment(template)}/${method}/responses/${key}` };
}

/** A declared header, a `$ref` followed to the shared one, with the JSON pointer where it sits. */
function headerOf(declared: Header | Reference, pointer: string): { header: Header; at: string } {
  if (!("$ref" in declared)) return { header: declared, at: pointer };
  const name = declared.$ref.replace("#/components/headers/", "");
  return { header: (contractDocument.components.headers as Record<string, Header>)[name]!, at: `#/components/headers/${pointerSegment(name)}` };
}

function fail(what: string, request: { method: string; url: string }, status: number, detail: string): never {
  throw new Error(`off the API document: ${request.method} ${new URL(request.url).pathname} answered ${status}: ${what}${detail ? `\n${detail}` : ""}`);
}

/**
 * Throws when the answer is not what the document says this request may get. A path the document
 * does not know must be a 404; a method it does not list there, a 405 that names the methods.
 * A JSON body is read from a clone, so the caller can still read it; a file is not read at all.
 */
export async function checkAnswer(request: { method: string; url: string }, response: Response): Promise<void> {
  const method = request.method.toLowerCase();
  const template = templateOf(new URL(request.url).pathname);
  const status = response.status;
  if (!template) {
    if (status !== 404) fail("the path is not in the document, so only 404 may answer it", request, status, "");
    return;
  }
  if (!paths[template]?.[method]) {
    if (status !== 405 || !response.headers.get("allow"))
      fail(`the document lists no ${request.method} here, so only a 405 with Allow may answer`, request, status, "");
    return;
  }
  const declared = declaredAnswer(template, method, status);
  if (!declared) fail("status not in the document", request, status, `documented: ${Object.keys(paths[template]![method]!.responses).join(", ")}`);
  const { answer, pointer } = declared;

  for (const [name, declaredHeader] of Object.entries(answer.headers ?? {})) {
    const { header, at } = headerOf(declaredHeader, `${pointer}/headers/${pointerSegment(name)}`);
    const value = response.headers.get(name);
    if (value === null) {
      if (header.required) fail(`the required header ${name} is missing`, request, status, "");
      continue;
    }
    const validate = ajv.getSchema(`${DOCUMENT_ID}${at}/schema`);
    if (validate && !validate(value)) fail(`header ${name}: ${value}`, request, status, ajv.errorsText(validate.errors));
  }

  const contentType = response.headers.get("content-type")?.split(";")[0]?.trim();
  if (!answer.content) {
    const body = await response.clone().text();
    if (body !== "") fail("the document declares no body, yet one came", request, status, body.slice(0, 200));
    return;
  }
  if (!contentType || !(contentType in answer.content)) {
    fail(`content type ${contentType ?? "(none)"} is not declared`, request, status, `declared: ${Object.keys(answer.content).join(", ")}`);
  }
  // A file (XLSX) is left unread: a test may read it slowly, or stop half-way, on purpose.
  if (contentType !== "application/json") return;
  const body = await response.clone().text();
  const validate = ajv.getSchema(`${DOCUMENT_ID}${pointer}/content/application~1json/schema`);
  if (!validate) throw new Error(`no schema at ${pointer}`);
  let value: unknown;
  try {
    value = JSON.parse(body);
  } catch {
    fail("the body is not JSON", request, status, body.slice(0, 200));
  }
  if (!validate(value)) fail("the body does not match its schema", request, status, ajv.errorsText(validate.errors, { separator: "\n" }));
}
