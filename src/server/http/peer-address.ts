// How a Next.js route learns the address of the connection its request came on. Next.js gives
// route handlers no socket, and its own X-Forwarded-For is the client's when the client sent one
// (it only fills the header in when absent). Tally's Next.js server (src/cli/serve-next.ts) sets
// PEER_ADDRESS_HEADER on every request to the socket's address, overwriting any copy a client
// sent, and marks the process; a route believes the header only in a process so marked, so under
// a Next.js started any other way a client's copy of the header means nothing.
// No imports but a type: the server loads this before Next.js, and the routes' bundle carries its own copy.
import type { IncomingMessage } from "node:http";

/** The connection's address, as Tally's Next.js server writes it on each request. */
export const PEER_ADDRESS_HEADER = "x-tally-peer-address";

// A symbol of the global registry: the same in the server's modules and in the routes' bundle,
// which share the process's globalThis, and no request can set it.
const STAMPED = Symbol.for("tally.peerAddressStamped");

/** Called by Tally's Next.js server, before Next.js loads: every request here carries the header. */
export function markPeerAddressStamped(): void {
  (globalThis as Record<symbol, unknown>)[STAMPED] = true;
}

/** Whether this process is Tally's Next.js server, whose requests carry a trustworthy PEER_ADDRESS_HEADER. */
export function peerAddressStamped(): boolean {
  return (globalThis as Record<symbol, unknown>)[STAMPED] === true;
}

/** Writes the connection's address on a request, over whatever the client sent under that name. */
export function stampPeerAddress(req: IncomingMessage): void {
  const peer = req.socket.remoteAddress;
  if (peer === undefined) delete req.headers[PEER_ADDRESS_HEADER];
  else req.headers[PEER_ADDRESS_HEADER] = peer;
}
