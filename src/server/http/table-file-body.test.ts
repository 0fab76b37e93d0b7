import { describe, expect, it } from "vitest";
import { TallyError } from "@/server/core/errors";
import { readTableBody } from "./table-file-body";

/** A request whose body sends `first` and then nothing more, and whether its reader was cancelled. */
function trickling(first: string) {
  const state = { cancelled: false };
  const body = new ReadableStream<Uint8Array>({
    start(controller) {
      controller.enqueue(new TextEncoder().encode(first));
    },
    cancel() {
      state.cancelled = true;
    },
  });
  const request = new Request("http://tally.test/dashboard/table-file", { method: "POST", body, duplex: "half" } as RequestInit);
  return { request, state };
}

describe("readTableBody", () => {
  it("refuses a body that has not arrived by its deadline, and stops reading it", async () => {
    const { request, state } = trickling('{"rows":[[1],');
    const read = readTableBody(request, { maxBytes: 1000, maxCells: 1000, deadline: Date.now() + 200 });
    await expect(read).rejects.toThrow(new TallyError("bad_request", "the body did not arrive within 0.2 s"));
    expect(state.cancelled).toBe(true);
  });

  it("refuses a body past its cells before it has ended, and stops reading it", async () => {
    const { request, state } = trickling(`{"rows":[${"[1,2],".repeat(60)}`);
    const read = readTableBody(request, { maxBytes: 10_000, maxCells: 100, deadline: Date.now() + 10_000 });
    await expect(read).rejects.toMatchObject({ code: "payload_too_large" });
    expect(state.cancelled).toBe(true);
  });
});
