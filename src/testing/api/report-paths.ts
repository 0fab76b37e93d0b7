// The path each report handler is served at (src/app/), so a test that calls a handler directly
// sends the Request a client would and its answer is checked against that operation.
import { handleHours } from "@/server/http/hours-route";
import {
  handleAdResults,
  handleAdsDetailed,
  handleAdvertiserReport,
  handleCampaignListing,
  handleCampaignsDetailed,
  handleNetworkPublisherReport,
  handlePublisherReport,
} from "@/server/http/report-routes";
import { uncheckedHandler } from "./checked-report-routes";

export type ReportHandler = (request: Request) => Promise<Response>;

const PATHS = new Map<ReportHandler, string>([
  [handleCampaignListing, "/campaign/v2"],
  [handleAdResults, "/ad/results/v2"],
  [handleAdvertiserReport, "/report/v2/advertisers"],
  [handlePublisherReport, "/report/v2/publishers"],
  [handleNetworkPublisherReport, "/report/network/publishers"],
  [handleCampaignsDetailed, "/report/advertisers/campaigns-detailed"],
  [handleAdsDetailed, "/report/advertisers/ads-detailed"],
  [handleHours, "/report/hours"],
]);

export function reportPathOf(handler: ReportHandler): string {
  const path = PATHS.get(uncheckedHandler(handler));
  if (!path) throw new Error("not a report handler with a path: add it to src/testing/api/report-paths.ts");
  return path;
}
