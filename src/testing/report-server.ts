// For the tests of limits shared by processes: one more process serving GET /campaign/v2 over
// HTTP against the test's database (DATABASE_URL in its environment), as a second web server
// would. Prints its origin on the first line once it listens.
// usage: node --import tsx src/testing/report-server.ts
import http from "node:http";
import type { AddressInfo } from "node:net";
import { toFetchRequest, writeFetchResponse } from "@/collector/fetch-adapter";
import { handleCampaignListing } from "@/server/http/report-routes";

const server = http.createServer(async (req, res) => {
  const origin = `http://${req.headers.host}`;
  await writeFetchResponse(req, res, await handleCampaignListing(toFetchRequest(req, origin, 64 * 1024)));
});
server.listen(0, "127.0.0.1", () => {
  console.log(`http://127.0.0.1:${(server.address() as AddressInfo).port}`);
});
