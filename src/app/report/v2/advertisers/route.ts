// GET /report/v2/advertisers: advertisers of the caller's inventory (API key: Authorization: Bearer <key>).
import { handleAdvertiserReport } from "@/server/http/report-routes";

export const dynamic = "force-dynamic";

export const GET = handleAdvertiserReport;
