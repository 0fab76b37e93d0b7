// GET /campaign/v2: the campaign listing report (API key: Authorization: Bearer <key>).
import { handleCampaignListing } from "@/server/http/report-routes";

export const dynamic = "force-dynamic";

export const GET = handleCampaignListing;
