// POST /dashboard/table-file: a dashboard table as a CSV or XLSX file (src/server/http/table-file-route.ts).
import { handleTableFile } from "@/server/http/table-file-route";

export const dynamic = "force-dynamic";

export { handleTableFile as POST };
