// An HTTP answer with no transport in it. The /v1 handlers return one, and each server writes it
// its own way: the Next.js routes as a Fetch Response, the collector straight onto node:http,
// where a Fetch Request and Response per beacon took about half of the accept path's time
// (docs/decisions/0016-collector-on-node-http.md).

/** What a handler reads of a request's headers: a Fetch `Headers` is one, the collector's view of an IncomingMessage another. */
export interface HeaderReader {
  get(name: string): string | null;
}

export interface HttpAnswer {
  status: number;
  headers: Record<string, string>;
  /** The body as sent; "" for none. */
  body: string;
}

/** A JSON answer, with the headers `Response.json` would give it. */
export function jsonAnswer(status: number, value: unknown, headers: Record<string, string> = {}): HttpAnswer {
  return { status, headers: { "Content-Type": "application/json", ...headers }, body: JSON.stringify(value) };
}

/** The answer as a Fetch Response (a null body: Fetch refuses any body, even "", on a 204). */
export function answerResponse({ status, headers, body }: HttpAnswer): Response {
  return new Response(body === "" ? null : body, { status, headers });
}
