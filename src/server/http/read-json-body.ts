import { TallyError } from "@/server/errors";

// `sendBeacon` with a string sends text/plain; with a JSON Blob, application/json.
const ACCEPTED_TYPES = new Set(["application/json", "text/plain"]);

/**
 * Reads and parses a JSON body of at most `limitBytes`: 415 for another content type, 413 past
 * the limit (checked on the header and again while reading, so a lying client is cut off), 400
 * for anything that is not JSON.
 */
export async function readJsonBody(request: Request, limitBytes: number): Promise<unknown> {
  const contentType = request.headers.get("content-type")?.split(";")[0]?.trim().toLowerCase();
  if (contentType && !ACCEPTED_TYPES.has(contentType)) {
    throw new TallyError("unsupported_media_type", `Content-Type must be application/json or text/plain, not ${contentType}`);
  }
  const tooLarge = () => new TallyError("payload_too_large", `the body is larger than ${limitBytes} bytes`);
  const declared = Number(request.headers.get("content-length") ?? "0");
  if (declared > limitBytes) throw tooLarge();

  const chunks: Uint8Array[] = [];
  let size = 0;
  if (request.body) {
    const reader = request.body.getReader();
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      size += value.byteLength;
      if (size > limitBytes) {
        await reader.cancel().catch(() => {});
        throw tooLarge();
      }
      chunks.push(value);
    }
  }
  const text = Buffer.concat(chunks).toString("utf8");
  try {
    return JSON.parse(text) as unknown;
  } catch {
    throw new TallyError("bad_request", "the body is not valid JSON");
  }
}
