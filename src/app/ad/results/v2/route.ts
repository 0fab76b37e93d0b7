// GET /ad/results/v2: performance of individual ads (API key: Authorization: Bearer <key>).
import { handleAdResults } from "@/server/http/report-routes";

export const dynamic = "force-dynamic";

export const GET = handleAdResults;
