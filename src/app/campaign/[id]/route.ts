// GET /campaign/:id: one campaign's report (API key: Authorization: Bearer <key>).
import { handleCampaignDetail } from "@/server/http/report-routes";

export const dynamic = "force-dynamic";

export const GET = handleCampaignDetail;
