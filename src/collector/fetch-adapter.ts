// node:http → the /v1 Fetch handler of the ad query (beacons and conversions skip Fetch altogether,
// direct-routes.ts), cheaply. Building a real (undici) Request per request costs more CPU than the
// whole bare server (measured: docs/decisions/0016-collector-on-node-http.md), so the
// Request handed to handlers is lazy: method, url, headers.get/has and the body readers (text,
// json, arrayBuffer) are served straight from the IncomingMessage; any other member builds the
// real Request on first use, so handlers can still use the whole Fetch API.
import type { IncomingMessage, ServerResponse } from "node:http";
import type { HeaderReader } from "@/server/http/answer";
import { SOCKET_ADDRESS } from "@/server/http/client-address";
import { BODY_LIMITED_WHILE_READ } from "@/server/http/read-json-body";
import { readNodeBody, writeResponse } from "./node-http";

const NO_BODY = new Set(["GET", "HEAD"]);
// Node keeps only the first value of these when repeated (and joins cookies with "; "), where
// Fetch joins every repeat with ", ": a repeated one is read from the raw headers instead.
const NODE_SINGLE_VALUE = new Set([
  "age",
  "authorization",
  "content-length",
  "content-type",
  "etag",
  "expires",
  "from",
  "host",
  "if-modified-since",
  "if-unmodified-since",
  "last-modified",
  "location",
  "max-forwards",
  "proxy-authorization",
  "referer",
  "retry-after",
  "server",
  "user-agent",
  "cookie",
  "set-cookie",
]);
const TOKEN = /^[!#$%&'*+\-.^_`|~0-9a-z]+$/;

/** Makes `Lazy` an instance of `Native` whose unknown members are answered by a materialised native object. */
function delegateTo(Lazy: { prototype: object }, Native: { prototype: object }, materialise: (lazy: never) => object): void {
  Object.setPrototypeOf(Lazy.prototype, Native.prototype);
  for (const key of [...Object.getOwnPropertyNames(Native.prototype), Symbol.iterator] as (string | symbol)[]) {
    const descriptor = Object.getOwnPropertyDescriptor(Native.prototype, key);
    if (!descriptor || key === "constructor" || Object.hasOwn(Lazy.prototype, key)) continue;
    if (typeof descriptor.value === "function") {
      Object.defineProperty(Lazy.prototype, key, {
        configurable: true,
        writable: true,
        value(this: never, ...args: unknown[]) {
          const real = materialise(this) as Record<string | symbol, (...a: unknown[]) => unknown>;
          return real[key]!(...args);
        },
      });
    } else if (descriptor.get) {
      Object.defineProperty(Lazy.prototype, key, {
        configurable: true,
        get(this: never) {
          return (materialise(this) as Record<string | symbol, unknown>)[key];
        },
      });
    }
  }
}

class LazyHeaders {
  real: Headers | undefined;
  constructor(readonly req: IncomingMessage) {}

  get(name: string): string | null {
    if (this.real) return this.real.get(name);
    const lower = name.toLowerCase();
    const value = Object.hasOwn(this.req.headers, lower) ? this.req.headers[lower] : undefined;
    if (value === undefined) return TOKEN.test(lower) ? null : realHeaders(this).get(name);
    if (NODE_SINGLE_VALUE.has(lower) && countRaw(this.req, lower) > 1) return realHeaders(this).get(name);
    return Array.isArray(value) ? value.join(", ") : value;
  }

  has(name: string): boolean {
    if (this.real) return this.real.has(name);
    const lower = name.toLowerCase();
    return Object.hasOwn(this.req.headers, lower) || (!TOKEN.test(lower) && realHeaders(this).has(name));
  }
}

function countRaw(req: IncomingMessage, lower: string): number {
  let count = 0;
  for (let i = 0; i < req.rawHeaders.length; i += 2) if (req.rawHeaders[i]!.toLowerCase() === lower) count += 1;
  return count;
}

function realHeaders(lazy: LazyHeaders): Headers {
  if (!lazy.real) {
    const headers = new Headers();
    const raw = lazy.req.rawHeaders;
    for (let i = 0; i < raw.length; i += 2) headers.append(raw[i]!, raw[i + 1]!);
    lazy.real = headers;
  }
  return lazy.real;
}
delegateTo(LazyHeaders, Headers, realHeaders as (lazy: never) => object);

/**
 * A request's headers read as Fetch reads them (repeats joined with ", "), from the IncomingMessage
 * itself; the direct beacon path reads them through this too, so both paths see the same values.
 */
export function nodeHeaders(req: IncomingMessage): HeaderReader {
  return new LazyHeaders(req);
}

class LazyRequest {
  private lazyHeaders: LazyHeaders | undefined;
  private used = false;
  real: Request | undefined;

  constructor(
    readonly req: IncomingMessage,
    readonly url: string,
    readonly limit: number,
  ) {}

  /** readNodeBody counts bytes as they arrive and stops at `limit` (read-json-body.ts trusts this). */
  get [BODY_LIMITED_WHILE_READ](): true {
    return true;
  }

  /** The connection's own address: no header can pose as it (client-address.ts). */
  get [SOCKET_ADDRESS](): string | undefined {
    return this.req.socket.remoteAddress;
  }

  get method(): string {
    return this.req.method ?? "GET";
  }

  get headers(): LazyHeaders {
    this.lazyHeaders ??= new LazyHeaders(this.req);
    return this.lazyHeaders;
  }

  get bodyUsed(): boolean {
    return this.real ? this.real.bodyUsed : this.used;
  }

  private buffer(): Promise<Buffer> {
    if (this.real) return this.real.arrayBuffer().then((body) => Buffer.from(body));
    if (this.used) return Promise.reject(new TypeError("Body is unusable: Body has already been read"));
    this.used = true;
    return NO_BODY.has(this.method) ? Promise.resolve(Buffer.alloc(0)) : readNodeBody(this.req, this.limit);
  }

  text(): Promise<string> {
    return this.buffer().then((body) => body.toString("utf8"));
  }

  json(): Promise<unknown> {
    return this.text().then((text) => JSON.parse(text) as unknown);
  }

  arrayBuffer(): Promise<ArrayBuffer> {
    return this.buffer().then((body) => body.buffer.slice(body.byteOffset, body.byteOffset + body.length) as ArrayBuffer);
  }
}

function realRequest(lazy: LazyRequest): Request {
  if (!lazy.real) {
    // Rare path (a handler used a member the lazy object does not serve): buffer, then build.
    const body = NO_BODY.has(lazy.method) || lazy.bodyUsed ? undefined : readNodeBody(lazy.req, lazy.limit);
    lazy.real = new Request(lazy.url, {
      method: lazy.method,
      headers: realHeaders(lazy.headers),
      body: body
        ? new ReadableStream({
            start: (controller) =>
              void body.then(
                (b) => {
                  controller.enqueue(new Uint8Array(b));
                  controller.close();
                },
                (e: unknown) => controller.error(e),
              ),
          })
        : undefined,
      duplex: body ? "half" : undefined,
    } as RequestInit);
  }
  return lazy.real;
}
delegateTo(LazyRequest, Request, realRequest as (lazy: never) => object);

export function toFetchRequest(req: IncomingMessage, origin: string, limit: number): Request {
  return new LazyRequest(req, `${origin}${req.url ?? "/"}`, limit) as unknown as Request;
}

/** Writes a handler's Response (writeResponse). */
export async function writeFetchResponse(req: IncomingMessage, res: ServerResponse, response: Response): Promise<void> {
  const headers: string[] = [];
  response.headers.forEach((value, name) => {
    headers.push(name, value);
  });
  const body = response.body ? Buffer.from(await response.arrayBuffer()) : "";
  writeResponse(req, res, response.status, headers, body);
}
