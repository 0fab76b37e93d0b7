// Reading a body and writing an answer on node:http, for the collector's two paths: the direct
// beacon and conversion paths (direct-routes.ts) and the lazy Fetch adapter (fetch-adapter.ts).
import type { IncomingMessage, ServerResponse } from "node:http";
import type { HttpAnswer } from "@/server/http/answer";
import { bodyTooLarge } from "@/server/http/read-json-body";

/**
 * The body's bytes, counted as they arrive: 413 (bodyTooLarge) on a declared length past `limit`
 * before anything is read, and as soon as the bytes read pass it, chunked or not.
 */
export function readNodeBody(req: IncomingMessage, limit: number): Promise<Buffer> {
  const declared = req.headers["content-length"];
  if (declared !== undefined && Number(declared) > limit) {
    // Not read: the 413 discards a little of it and closes a connection still sending (writeResponse).
    return Promise.reject(bodyTooLarge(limit));
  }
  return new Promise((resolve, reject) => new BodyReader(req, limit, resolve, reject));
}

/**
 * One body being read by readNodeBody. A class rather than closures: the collector runs under tsx,
 * whose esbuild transform names every closure assigned to a name with Object.defineProperty, per
 * request, a measurable part of the collector's time under the ingest benchmark (bench/results.md).
 */
class BodyReader {
  private readonly chunks: Buffer[] = [];
  private size = 0;
  private readonly onData = this.data.bind(this);
  private readonly onEnd = this.end.bind(this);
  private readonly onError = this.error.bind(this);

  constructor(
    private readonly req: IncomingMessage,
    private readonly limit: number,
    private readonly resolve: (body: Buffer) => void,
    private readonly reject: (error: unknown) => void,
  ) {
    req.on("data", this.onData);
    req.on("end", this.onEnd);
    req.on("error", this.onError);
  }

  private done(): void {
    this.req.off("data", this.onData);
    this.req.off("end", this.onEnd);
    this.req.off("error", this.onError);
  }

  private data(chunk: Buffer): void {
    this.size += chunk.length;
    if (this.size > this.limit) {
      this.done();
      // Read no further here: the 413 decides what happens to the rest (writeResponse).
      this.req.pause();
      this.reject(bodyTooLarge(this.limit));
      return;
    }
    this.chunks.push(chunk);
  }

  private end(): void {
    this.done();
    this.resolve(this.chunks.length === 1 ? this.chunks[0]! : Buffer.concat(this.chunks, this.size));
  }

  private error(error: Error): void {
    this.done();
    this.reject(error);
  }
}

const NULL_BODY_STATUS = new Set([101, 103, 204, 205, 304]);

/** Writes a handler's answer (writeResponse). */
export function writeAnswer(req: IncomingMessage, res: ServerResponse, { status, headers, body }: HttpAnswer): void {
  const flat: string[] = [];
  for (const name in headers) flat.push(name, headers[name]!);
  writeResponse(req, res, status, flat, body);
}

/**
 * Writes a response; /v1 bodies are small, so the body goes out in one piece with its length.
 * `headers` is Node's flat list: name, value, name, value.
 */
export function writeResponse(req: IncomingMessage, res: ServerResponse, status: number, headers: string[], body: string | Buffer): void {
  // Without a length Node would send an empty 202 chunked.
  if (!NULL_BODY_STATUS.has(status) && req.method !== "HEAD") headers.push("content-length", String(Buffer.byteLength(body)));
  // As next.config.js gives every answer of the app: a browser takes a JSON answer for JSON only.
  headers.push("x-content-type-options", "nosniff");
  // A body refused as too large may still be arriving: answer, then close the connection rather
  // than read the rest of it (lingerThenClose). No `Connection: close` header: with it Node closes
  // the socket as soon as the answer is written, unread input makes the kernel reset it, and a
  // client still sending loses the answer.
  const unread = status === 413 && !req.complete;
  res.writeHead(status, headers);
  res.end(body, unread ? () => lingerThenClose(req) : undefined);
}

/**
 * Closing a socket with unread input makes the kernel reset it, and a client still sending may
 * then lose the answer it was sent (Node closes at once after a `Connection: close` answer, so the
 * 413 goes without that header). The rest of the body is discarded for a while, as web servers'
 * lingering close does: a body that ends within LINGER_BYTES leaves a healthy keep-alive
 * connection; past that the connection stops being read (the client's sends back up in the socket
 * buffers and cost Tally nothing) and is closed LINGER_MS after the answer, time enough for the
 * client to read it.
 */
function lingerThenClose(req: IncomingMessage): void {
  const socket = req.socket;
  let discarded = 0;
  const timer = setTimeout(() => socket.destroy(), LINGER_MS);
  timer.unref();
  const onClose = () => clearTimeout(timer);
  const stop = () => {
    req.off("data", onData);
    req.off("end", onEnd);
  };
  const onData = (chunk: Buffer) => {
    discarded += chunk.length;
    if (discarded > LINGER_BYTES) {
      stop();
      req.pause();
    }
  };
  const onEnd = () => {
    // The whole body arrived: the connection serves its next request as usual.
    stop();
    clearTimeout(timer);
    socket.off("close", onClose);
  };
  req.on("data", onData);
  req.on("end", onEnd);
  socket.once("close", onClose);
  req.resume();
}

/** How much of a refused body is read and thrown away, so that a client sending it can read the 413. */
const LINGER_BYTES = 1024 * 1024;
/** How long a connection whose body is still arriving stays open after its 413. */
const LINGER_MS = 2000;
