// GET /report/v2/publishers: publishers of the caller's campaigns (API key: Authorization: Bearer <key>).
import { handlePublisherReport } from "@/server/http/report-routes";

export const dynamic = "force-dynamic";

export const GET = handlePublisherReport;
