// GET /report/jobs/:id: one report job's status, and once done its file's download address.
import { handleGetReportJob } from "@/server/http/report-job-routes";

export const dynamic = "force-dynamic";

export const GET = handleGetReportJob;
