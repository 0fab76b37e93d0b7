import { TallyError } from "@/server/errors";

// `sendBeacon` with a string sends text/plain; with a JSON Blob, application/json.
const ACCEPTED_TYPES = new Set(["application/json", "text/plain"]);

/**
 * Reads and parses a JSON body of at most `limitBytes`: 415 for another content type, 413 past
 * the limit (on the declared length before reading, and on the bytes read), 400 for anything
 * that is not JSON. The body is read whole with arrayBuffer(): the collector serves that without
 * building a stream, and caps any body at 1 MiB while reading it.
 */
export async function readJsonBody(request: Request, limitBytes: number): Promise<unknown> {
  const contentType = request.headers.get("content-type")?.split(";")[0]?.trim().toLowerCase();
  if (contentType && !ACCEPTED_TYPES.has(contentType)) {
    throw new TallyError("unsupported_media_type", `Content-Type must be application/json or text/plain, not ${contentType}`);
  }
  const tooLarge = () => new TallyError("payload_too_large", `the body is larger than ${limitBytes} bytes`);
  const declared = Number(request.headers.get("content-length") ?? "0");
  if (declared > limitBytes) throw tooLarge();

  let body: ArrayBuffer;
  try {
    body = await request.arrayBuffer();
  } catch (error) {
    if ((error as { status?: number }).status === 413) throw tooLarge();
    throw error;
  }
  if (body.byteLength > limitBytes) throw tooLarge();
  const text = Buffer.from(body).toString("utf8");
  try {
    return JSON.parse(text) as unknown;
  } catch {
    throw new TallyError("bad_request", "the body is not valid JSON");
  }
}
