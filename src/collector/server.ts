// `npm run collector`: the events host (/v1/ads, /v1/beacon/...) as a bare Node HTTP server, with
// no Next.js in the path. Beacons and conversions go to the transport-free handlers the Next.js
// routes also call (direct-routes.ts); the ad query to the very same Fetch handler as the Next.js
// route (src/server/http/events-routes.ts) through a lazy Request. docs/decisions/0016-collector-on-node-http.md says why.
import http from "node:http";
import { pathToFileURL } from "node:url";
import { env, exitOnEnvError } from "@/env";
import { TallyError } from "@/server/core/errors";
import { disconnectDb } from "@/server/db/client";
import { corsHeaders } from "@/server/http/cors";
import { AD_QUERY_BODY_LIMIT, handleEventsRequest, isBeaconPath, isConversionPath } from "@/server/http/events-routes";
import { errorAnswer } from "@/server/http/respond";
import { isMalformedPath } from "@/server/http/security-headers";
import { serveBeacon, serveConversion } from "./direct-routes";
import { toFetchRequest, writeFetchResponse } from "./fetch-adapter";
import { writeAnswer } from "./node-http";
import { COLLECTOR_ORIGIN, pathnameOf } from "./request-path";

export function createCollectorServer(): http.Server {
  const server = http.createServer(async (req, res) => {
    try {
      const pathname = pathnameOf(req.url ?? "/");
      // A beacon's address holds no "%"; Next.js's routes answer a broken escape the same way (src/proxy.ts).
      if (isMalformedPath(pathname)) {
        return writeAnswer(
          req,
          res,
          errorAnswer(new TallyError("bad_request", "the path is not valid percent-encoding"), corsHeaders(req.headers.origin ?? null)),
        );
      }
      if (isBeaconPath(pathname)) return await serveBeacon(req, res, pathname);
      if (isConversionPath(pathname)) return await serveConversion(req, res);
      // The ad query's body limit is counted while the body is read (413 past it), chunked or not;
      // any other path is a 404 that reads no body.
      const response = await handleEventsRequest(toFetchRequest(req, COLLECTOR_ORIGIN, AD_QUERY_BODY_LIMIT));
      await writeFetchResponse(req, res, response);
    } catch (error) {
      // Handlers answer their own errors (eventsRoute); this is only for a failure around them.
      if (res.headersSent) return res.destroy();
      writeAnswer(req, res, errorAnswer(error));
    }
  });
  // Browsers and SDKs keep connections open between beacons (docs/interface.md §4.1: keep-alive).
  server.keepAliveTimeout = 65_000;
  server.headersTimeout = 66_000;
  server.requestTimeout = 30_000;
  return server;
}
async function main(): Promise<void> {
  let port: number;
  try {
    // Checked at start, port given or not: a missing key stops the process here, not at the first beacon.
    const config = env();
    port = Number(process.argv[2] ?? config.COLLECTOR_PORT);
  } catch (error) {
    exitOnEnvError(error);
  }
  const server = createCollectorServer();
  server.listen(port, "0.0.0.0", () => console.log(`collector: serving /v1 on http://localhost:${port}`));
  const stop = () => {
    console.log("collector: stopping (finishing requests in flight)");
    server.close(() => void disconnectDb().then(() => process.exit(0)));
    server.closeIdleConnections();
    setTimeout(() => process.exit(0), 10_000).unref();
  };
  process.on("SIGINT", stop);
  process.on("SIGTERM", stop);
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) void main();
