// GET /report/advertisers/campaigns-detailed: an advertiser's campaigns per day, with sub-publisher rows (API key: Authorization: Bearer <key>).
import { handleCampaignsDetailed } from "@/server/http/report-routes";

export const dynamic = "force-dynamic";

export const GET = handleCampaignsDetailed;
