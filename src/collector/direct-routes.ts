// The collector's beacons and conversions, straight from node:http: the transport-free handlers
// read the IncomingMessage's headers, socket address and body bytes (counted against the limit as
// they arrive), and their answer is written with writeHead/end. Beacons and orders are the events
// host's bulk, and a Fetch Request and Response per beacon took about half of the accept path's
// time when storage is left out (docs/decisions/0016-collector-on-node-http.md).
import type { IncomingMessage, ServerResponse } from "node:http";
import { beaconAddressOf, handleBeaconRequest } from "@/server/http/beacon-handler";
import { clientAddressOf } from "@/server/http/client-address";
import { handleConversionRequest } from "@/server/http/conversion-handler";
import type { PlainEventsRequest } from "@/server/http/events-envelope";
import { nodeHeaders } from "./fetch-adapter";
import { readNodeBody, writeAnswer } from "./node-http";

/** Answers a request to a /v1/beacon/ path (isBeaconPath); the handler answers its own errors. */
export async function serveBeacon(req: IncomingMessage, res: ServerResponse, pathname: string): Promise<void> {
  writeAnswer(req, res, await handleBeaconRequest({ ...plainRequestOf(req), ...beaconAddressOf(pathname) }));
}

/** Answers a request to the conversion route (isConversionPath); the handler answers its own errors. */
export async function serveConversion(req: IncomingMessage, res: ServerResponse): Promise<void> {
  writeAnswer(req, res, await handleConversionRequest(plainRequestOf(req)));
}

/** An IncomingMessage as the transport-free handlers read it. */
function plainRequestOf(req: IncomingMessage): PlainEventsRequest {
  const headers = nodeHeaders(req);
  return {
    method: req.method ?? "GET",
    headers,
    clientAddress: clientAddressOf(req.socket.remoteAddress, headers.get("x-forwarded-for")),
    // A method, not an arrow: tsx names an arrow property with Object.defineProperty per request.
    readBody(limit) {
      return readNodeBody(req, limit);
    },
  };
}
