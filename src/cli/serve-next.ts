// Tally's Next.js server: `npm start`, and the launcher (`npm run dev`, `npm run start:local`), the
// hostile suite and the benchmarks through nextServerArgs (next-server.ts). It is `next start` (or
// `next dev`) through Next.js's programmatic API, with one thing added in front: each request
// carries its connection's address in a header, written here over any copy the client
// sent, which is how the routes learn a client's address when no proxy stands in front
// (TALLY_TRUSTED_PROXY_HOPS=0; src/server/http/client-address.ts). A Next.js started otherwise has
// no such header it may believe, and says so at start (src/instrumentation.ts).
//   node --import tsx src/cli/serve-next.ts start|dev [--port 3000] [--hostname 0.0.0.0]
import http from "node:http";
import { parseArgs } from "node:util";
import { markPeerAddressStamped, stampPeerAddress } from "@/server/http/peer-address";

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: { port: { type: "string", short: "p" }, hostname: { type: "string", short: "H" } },
});
const mode = positionals[0] ?? "start";
if (mode !== "start" && mode !== "dev") {
  console.error(`tally: unknown mode '${mode}' (use start or dev)`);
  process.exit(2);
}
const dev = mode === "dev";
const port = Number(values.port ?? process.env.PORT ?? 3000);
const hostname = values.hostname;

// What the `next` command sets before it starts a server.
Object.assign(process.env, { NODE_ENV: process.env.NODE_ENV || (dev ? "development" : "production"), NEXT_RUNTIME: "nodejs" });
markPeerAddressStamped();

const { default: next } = await import("next");
const app = next({ dev, dir: process.cwd(), hostname: hostname ?? "localhost", port, turbopack: dev });
await app.prepare();
const handle = app.getRequestHandler();

const server = http.createServer((req, res) => {
  // Every request, whatever it carried: the client's own copy is overwritten or removed.
  stampPeerAddress(req);
  handle(req, res).catch((error: unknown) => {
    console.error(error);
    if (res.headersSent) res.destroy();
    else {
      res.statusCode = 500;
      res.end("Internal Server Error");
    }
  });
});
server.listen(port, hostname, () => console.log(`tally: Next.js (${mode}) on http://${hostname ?? "localhost"}:${port}`));

let stopping = false;
const stop = (signal: NodeJS.Signals, code: number) => {
  if (stopping) return;
  stopping = true;
  console.log(`tally: Next.js stopping on ${signal} (finishing requests in flight)`);
  setTimeout(() => process.exit(code), 10_000).unref();
  server.close(() => void app.close().finally(() => process.exit(code)));
  server.closeIdleConnections();
};
process.on("SIGINT", () => stop("SIGINT", 130));
process.on("SIGTERM", () => stop("SIGTERM", 143));
