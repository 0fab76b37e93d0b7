// For the tests of limits shared by processes: one more process serving GET /campaign/v2,
// POST /oauth/token and POST /dashboard/table-file over HTTP against the test's database
// (DATABASE_URL in its environment), as a second web server would. Prints its origin on the first line once it listens.
// usage: node --import tsx src/testing/report-server.ts (or startReportServer() from a test)
import http from "node:http";
import type { AddressInfo } from "node:net";
import { toFetchRequest, writeFetchResponse } from "@/collector/fetch-adapter";
import { TABLE_FILE_MAX_BYTES } from "@/server/formats/table-file";
import { handleTokenRequest } from "@/server/http/oauth-token";
import { handleCampaignListing } from "@/server/http/report-routes";
import { handleTableFile } from "@/server/http/table-file-route";

const server = http.createServer(async (req, res) => {
  const tableFile = req.url === "/dashboard/table-file";
  const request = toFetchRequest(req, `http://${req.headers.host}`, tableFile ? TABLE_FILE_MAX_BYTES : 64 * 1024);
  const handler = tableFile ? handleTableFile : req.url === "/oauth/token" ? handleTokenRequest : handleCampaignListing;
  await writeFetchResponse(req, res, await handler(request));
});
server.listen(0, "127.0.0.1", () => {
  console.log(`http://127.0.0.1:${(server.address() as AddressInfo).port}`);
});
