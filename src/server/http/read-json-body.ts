import { TallyError } from "@/server/core/errors";
import type { HeaderReader } from "./answer";

// `sendBeacon` with a string sends text/plain; with a JSON Blob, application/json.
const ACCEPTED_TYPES = new Set(["application/json", "text/plain"]);

/**
 * Requests whose `arrayBuffer()` already counts the bytes as they arrive and stops at the route's
 * limit carry this key (the collector's, which knows each route's limit): reading them whole is
 * as safe as reading a stream chunk by chunk, and much cheaper than building one.
 */
export const BODY_LIMITED_WHILE_READ = Symbol.for("tally.bodyLimitedWhileRead");

/** The one 413 of every body reader, Fetch's or the collector's. */
export const bodyTooLarge = (limitBytes: number) => new TallyError("payload_too_large", `the body is larger than ${limitBytes} bytes`);

/**
 * The body's bytes, at most `limitBytes` of them: 413 on a declared length past the limit before
 * anything is read, and 413 as soon as the bytes read pass it, chunked or not, so a client can
 * make the server hold no more than the limit however much it sends.
 */
export async function readBodyWithin(request: Request, limitBytes: number): Promise<Uint8Array> {
  const declared = Number(request.headers.get("content-length") ?? "0");
  if (declared > limitBytes) throw bodyTooLarge(limitBytes);
  if ((request as unknown as Record<symbol, unknown>)[BODY_LIMITED_WHILE_READ]) {
    const whole = new Uint8Array(await request.arrayBuffer());
    if (whole.byteLength > limitBytes) throw bodyTooLarge(limitBytes);
    return whole;
  }
  if (!request.body) return new Uint8Array(0);
  const reader = request.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > limitBytes) {
      await reader.cancel().catch(() => {});
      throw bodyTooLarge(limitBytes);
    }
    chunks.push(value);
  }
  if (chunks.length === 1) return chunks[0]!;
  const body = new Uint8Array(size);
  let at = 0;
  for (const chunk of chunks) {
    body.set(chunk, at);
    at += chunk.byteLength;
  }
  return body;
}

/**
 * A request as the JSON reader needs it, whatever carries it: its headers, and its body's bytes
 * read only when asked, at most `limitBytes` of them (413 past the limit, as readBodyWithin).
 */
export interface BodySource {
  headers: HeaderReader;
  readBody(limitBytes: number): Promise<Uint8Array>;
}

/**
 * Reads and parses a JSON body of at most `limitBytes`: 415 for another content type (before
 * anything is read), 413 past the limit, 400 for anything that is not JSON.
 */
export async function readJson(source: BodySource, limitBytes: number): Promise<unknown> {
  const given = source.headers.get("content-type");
  // The two types as browsers send them need no parsing (three strings fewer per beacon).
  const contentType = given === null || ACCEPTED_TYPES.has(given) ? given : given.split(";")[0]?.trim().toLowerCase();
  if (contentType && !ACCEPTED_TYPES.has(contentType)) {
    throw new TallyError("unsupported_media_type", `Content-Type must be application/json or text/plain, not ${contentType}`);
  }
  const body = await source.readBody(limitBytes);
  const text = Buffer.from(body.buffer, body.byteOffset, body.byteLength).toString("utf8");
  try {
    return JSON.parse(text) as unknown;
  } catch {
    throw new TallyError("bad_request", "the body is not valid JSON");
  }
}

/** readJson of a Fetch Request. */
export function readJsonBody(request: Request, limitBytes: number): Promise<unknown> {
  return readJson({ headers: request.headers, readBody: (limit) => readBodyWithin(request, limit) }, limitBytes);
}
