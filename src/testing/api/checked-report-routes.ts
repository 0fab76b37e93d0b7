// The report, report job and token handlers as the integration suites call them: the same
// handlers, each answer checked against the API document (contract.ts) before the test reads it.
import * as hours from "@/server/http/hours-route";
import * as token from "@/server/http/oauth-token";
import * as jobs from "@/server/http/report-job-routes";
import * as routes from "@/server/http/report-routes";
import { checkAnswer } from "./contract";

type Handler = (request: Request) => Promise<Response>;
const originals = new WeakMap<Handler, Handler>();

function checked(handler: Handler): Handler {
  const wrapped = async (request: Request) => {
    const response = await handler(request);
    await checkAnswer(request, response);
    return response;
  };
  originals.set(wrapped, handler);
  return wrapped;
}

/** The handler a checked one wraps (itself when it wraps none). */
export const uncheckedHandler = (handler: Handler): Handler => originals.get(handler) ?? handler;

export const handleCampaignListing = checked(routes.handleCampaignListing);
export const handleCampaignDetail = checked(routes.handleCampaignDetail);
export const handleAdResults = checked(routes.handleAdResults);
export const handleAdvertiserReport = checked(routes.handleAdvertiserReport);
export const handlePublisherReport = checked(routes.handlePublisherReport);
export const handleNetworkPublisherReport = checked(routes.handleNetworkPublisherReport);
export const handleCampaignsDetailed = checked(routes.handleCampaignsDetailed);
export const handleAdsDetailed = checked(routes.handleAdsDetailed);
export const handleHours = checked(hours.handleHours);

export const handleCreateReportJob = checked(jobs.handleCreateReportJob);
export const handleListReportJobs = checked(jobs.handleListReportJobs);
export const handleGetReportJob = checked(jobs.handleGetReportJob);
export const handleTokenRequest = checked(token.handleTokenRequest);
