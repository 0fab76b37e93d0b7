// The hours report with ClickHouse as the store: not kept there yet, so it answers 400 rather
// than figures it does not have.
import { TallyError } from "@/server/core/errors";
import type { HoursReport } from "@/server/store/hours-report";

export async function clickhouseHours(): Promise<HoursReport> {
  throw new TallyError("bad_request", "the hours report is not served with ClickHouse as the store yet");
}
