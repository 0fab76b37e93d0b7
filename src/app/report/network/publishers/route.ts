// GET /report/network/publishers: a network's sub-publishers (API key of a network account).
import { handleNetworkPublisherReport } from "@/server/http/report-routes";

export const dynamic = "force-dynamic";

export const GET = handleNetworkPublisherReport;
