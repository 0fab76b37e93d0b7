// POST /dashboard/table-file: a dashboard table the page sends back as a CSV or XLSX file
// (src/server/formats/table-file.ts). The dashboard's own pages only, as its tRPC endpoint
// (403 for a request another site made a browser send), for a signed-in session (401 without
// one; a session refused for its rate is refused again from memory, before it is looked up, until
// its Retry-After: refused-sessions.ts); then, before its body is read, the person's and account's table files a minute and at
// once (429 with Retry-After and RateLimit fields: dashboard-rate-limit.ts, table-file-slots.ts);
// the body is JSON of at most 8 MB and TALLY_TABLE_FILE_MAX_CELLS cells (413 past either, as soon
// as it is passed), 400 naming the field at fault, or when it has not arrived within
// TALLY_TABLE_FILE_MAX_SECONDS. The slot is held until the file has gone out, or for that long
// again, past which the file is cut.
import { env } from "@/env";
import { sessionTokenOf, viewerOfSession } from "@/server/accounts/sessions";
import { countDashboardRefusal, countTableFileCut } from "@/server/core/counters";
import { TallyError } from "@/server/core/errors";
import { logger } from "@/server/core/log";
import { parseTableFileBody, TABLE_FILE_MAX_BYTES, tableFile } from "@/server/formats/table-file";
import { takeTableFileSlot } from "@/server/pipeline/report/table-file-slots";
import { countDashboardWork } from "./dashboard-rate-limit";
import { withRateLimitFields } from "./rate-limit-fields";
import { readJson } from "./read-json-body";
import { earlierRefusal, rememberRefusal } from "./refused-sessions";
import { assertSameOrigin } from "./request-origin";
import { errorResponse } from "./respond";
import { assertDeclaredLength, readTableBody } from "./table-file-body";

export async function handleTableFile(request: Request): Promise<Response> {
  let fields: Record<string, string> = {};
  let free: (() => Promise<void>) | null = null;
  try {
    assertSameOrigin(request);
    const token = sessionTokenOf(request);
    const earlier = earlierRefusal(token);
    if (earlier) {
      fields = earlier.fields;
      countDashboardRefusal("table_file", earlier.reason);
      return withRateLimitFields(errorResponse(earlier.refusal), fields);
    }
    const viewer = await viewerOfSession(token);
    if (!viewer) throw new TallyError("unauthorized", "sign in to the dashboard to download its tables");
    assertDeclaredLength(request, TABLE_FILE_MAX_BYTES);
    const asker = { user: `user:${viewer.userId}`, account: viewer.accountId ?? "staff" };
    const rate = await countDashboardWork("table_file", asker);
    fields = rate.fields;
    if (rate.refusal) {
      if (token && rate.reason) rememberRefusal(token, { refusal: rate.refusal, reason: rate.reason, fields });
      throw rate.refusal;
    }
    free = await takeTableFileSlot(asker);
    const { TALLY_TABLE_FILE_MAX_CELLS: maxCells, TALLY_TABLE_FILE_MAX_SECONDS: maxSeconds } = env();
    const deadline = Date.now() + maxSeconds * 1000;
    const body = await readJson(
      { headers: request.headers, readBody: (maxBytes) => readTableBody(request, { maxBytes, maxCells, deadline }) },
      TABLE_FILE_MAX_BYTES,
    );
    const { stream, headers } = tableFile(parseTableFileBody(body));
    const response = new Response(freedWhenDone(stream, free, maxSeconds * 1000, asker.user), { headers });
    free = null;
    return withRateLimitFields(response, fields);
  } catch (error) {
    await free?.();
    return withRateLimitFields(errorResponse(error), fields);
  }
}

/** The file's bytes, its slot freed once they have all gone out, the client has left, or the time is up (then the file ends in an error). */
function freedWhenDone(file: ReadableStream<Uint8Array>, free: () => Promise<void>, maxMs: number, user: string): ReadableStream<Uint8Array> {
  const reader = file.getReader();
  let cut = false;
  const timer = setTimeout(() => {
    cut = true;
    countTableFileCut();
    logger().warn({ user, seconds: maxMs / 1000 }, "table file cut: it was not written and taken within its time");
    void reader.cancel().catch(() => {});
    void free();
  }, maxMs);
  timer.unref();
  // The file ends once its slot is free, so the person's next table file finds it free in every process.
  const done = () => {
    clearTimeout(timer);
    return free();
  };
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      try {
        const next = await reader.read();
        if (cut) throw new TallyError("unavailable", "the table file was cut: it took longer than its time limit");
        if (next.done) {
          await done();
          controller.close();
        } else controller.enqueue(next.value);
      } catch (error) {
        await done();
        controller.error(error);
      }
    },
    async cancel(reason) {
      await done();
      await reader.cancel(reason);
    },
  });
}
