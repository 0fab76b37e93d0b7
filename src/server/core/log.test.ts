import { describe, expect, it } from "vitest";
import { plainLine, requestIdOf } from "./log";

const withId = (id?: string) =>
  new Request("http://tally.test/v1/ads", { headers: id === undefined ? {} : { "X-Request-Id": id } }).headers.get("x-request-id");

describe("requestIdOf", () => {
  it("keeps a proxy's request id, so its logs and Tally's name the same request", () => {
    expect(requestIdOf(withId("lb-0f3a9c2e-77"))).toBe("lb-0f3a9c2e-77");
  });

  it("makes a new one when there is none, or when the given one could forge log lines", () => {
    const fresh = requestIdOf(withId());
    expect(fresh).toMatch(/^[0-9a-f-]{36}$/);
    expect(requestIdOf(withId())).not.toBe(fresh);
    for (const bad of ['a"},{"level":60', "short", "x".repeat(65), "id with spaces"]) expect(requestIdOf(withId(bad))).not.toBe(bad);
  });
});

describe("plainLine", () => {
  it("prints a record for the terminal: the job, the level when it is a warning or worse, the message and its fields", () => {
    expect(plainLine({ level: 30, time: 1, pid: 7, name: "tally", job: "settle", msg: "3 events set aside" })).toBe("tally: settle: 3 events set aside");
    expect(plainLine({ level: 50, time: 1, pid: 7, name: "tally", msg: "the database is unavailable", status: 503, requestId: "r-12345678" })).toBe(
      "tally: error: the database is unavailable (status=503, requestId=r-12345678)",
    );
  });
});
