// GET /report/advertisers/ads-detailed: an advertiser's ads per day, with sub-publisher rows (API key: Authorization: Bearer <key>).
import { handleAdsDetailed } from "@/server/http/report-routes";

export const dynamic = "force-dynamic";

export const GET = handleAdsDetailed;
