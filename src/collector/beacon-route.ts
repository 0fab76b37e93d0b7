// The collector's beacons, straight from node:http: the transport-free beacon handler reads the
// IncomingMessage's headers, socket address and body bytes (counted against the limit as they
// arrive), and its answer is written with writeHead/end. Beacons are the events host's bulk, and a
// Fetch Request and Response per beacon took about half of the accept path's time when storage is
// left out (bench/README.md, "The transport-free beacon handler").
import type { IncomingMessage, ServerResponse } from "node:http";
import { beaconAddressOf, handleBeaconRequest } from "@/server/http/beacon-handler";
import { clientAddressOf } from "@/server/http/client-address";
import { nodeHeaders } from "./fetch-adapter";
import { readNodeBody, writeAnswer } from "./node-http";

/** Answers a request to a /v1/beacon/ path (isBeaconPath); the handler answers its own errors. */
export async function serveBeacon(req: IncomingMessage, res: ServerResponse, pathname: string): Promise<void> {
  const headers = nodeHeaders(req);
  const answer = await handleBeaconRequest({
    method: req.method ?? "GET",
    ...beaconAddressOf(pathname),
    headers,
    clientAddress: clientAddressOf(req.socket.remoteAddress, headers.get("x-forwarded-for")),
    // A method, not an arrow: tsx names an arrow property with Object.defineProperty per request.
    readBody(limit) {
      return readNodeBody(req, limit);
    },
  });
  writeAnswer(req, res, answer);
}
