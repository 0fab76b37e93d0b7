// The campaign listing's page through the store seam, as the route reads it, for tests that
// compare report rows before and after something (retention, invalid traffic).
import { store } from "@/server/store";
import type { ReportQuery, ReportScope } from "@/server/store/report-query";
import type { CampaignListingOrderBy } from "@/server/store/report-rows";

export const campaignListing = (scope: ReportScope, query: ReportQuery<CampaignListingOrderBy>) => store().reports.campaigns(scope, query).page(query);
