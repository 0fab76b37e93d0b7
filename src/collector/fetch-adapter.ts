// node:http ⇄ Fetch, as thin as the /v1 routes allow: the body is buffered (every /v1 body is
// small and limited) so the Request is built once with no stream plumbing, and the Response
// body is written in one piece.
import type { IncomingMessage, ServerResponse } from "node:http";

/** Bodies above this are refused before they reach a handler (each route has its own, lower limit). */
export const MAX_BUFFERED_BODY = 1024 * 1024;

export class BodyTooLarge extends Error {}

function readBody(req: IncomingMessage, limit: number): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on("data", (chunk: Buffer) => {
      size += chunk.length;
      if (size > limit) {
        reject(new BodyTooLarge());
        req.destroy();
        return;
      }
      chunks.push(chunk);
    });
    req.on("end", () => resolve(chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks)));
    req.on("error", reject);
  });
}

export async function toFetchRequest(req: IncomingMessage, origin: string): Promise<Request> {
  const headers = new Headers();
  const raw = req.rawHeaders;
  for (let i = 0; i < raw.length; i += 2) headers.append(raw[i]!, raw[i + 1]!);
  const method = req.method ?? "GET";
  const hasBody = method !== "GET" && method !== "HEAD" && method !== "OPTIONS";
  const body = hasBody ? await readBody(req, MAX_BUFFERED_BODY) : undefined;
  const bytes = body && body.length > 0 ? new Uint8Array(body.buffer as ArrayBuffer, body.byteOffset, body.length) : undefined;
  return new Request(`${origin}${req.url ?? "/"}`, { method, headers, body: bytes });
}

export async function writeFetchResponse(res: ServerResponse, response: Response): Promise<void> {
  const body = response.body ? Buffer.from(await response.arrayBuffer()) : undefined;
  const headers: Record<string, string | string[]> = {};
  response.headers.forEach((value, name) => {
    headers[name] = value;
  });
  if (body) headers["content-length"] = String(body.length);
  res.writeHead(response.status, headers);
  res.end(body);
}
