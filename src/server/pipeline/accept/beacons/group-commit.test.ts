import { describe, expect, it } from "vitest";
import { TallyError } from "@/server/core/errors";
import { isDataError } from "@/server/db/failures";
import { GroupCommit, QueueFull, RejectedItem, refusalOf } from "./group-commit";

/** A Postgres-like error with a SQLSTATE. */
const pgError = (code: string, message = `error ${code}`) => Object.assign(new Error(message), { code });

/** A store that refuses any batch holding a "bad" item, the way Postgres refuses a whole statement. */
function fakeStore(options: { failWith?: string } = {}) {
  const committed: string[][] = [];
  const flushes: string[][] = [];
  const flush = async (items: string[]) => {
    flushes.push(items);
    await new Promise((resolve) => setImmediate(resolve));
    if (items.some((item) => item.startsWith("bad"))) throw pgError(options.failWith ?? "22021", "invalid byte sequence");
    committed.push(items);
    return items.map((item) => `stored ${item}`);
  };
  return { flush, committed, flushes };
}

describe("group commit", () => {
  it("commits everything that arrives in one turn as one batch, and answers each item with its own result", async () => {
    const store = fakeStore();
    const writer = new GroupCommit(store.flush, { maxBatch: 100, maxInFlight: 1, maxQueuedWeight: 1000 });
    const results = await Promise.all(["a", "b", "c"].map((item) => writer.submit(item)));
    expect(results).toEqual(["stored a", "stored b", "stored c"]);
    expect(store.flushes).toEqual([["a", "b", "c"]]);
  });

  it("isolates the item whose data fails: it alone is rejected, every other item is committed once, in order", async () => {
    const store = fakeStore();
    const writer = new GroupCommit(store.flush, { maxBatch: 100, maxInFlight: 1, maxQueuedWeight: 1000 });
    const items = Array.from({ length: 16 }, (_, i) => (i === 11 ? "bad-11" : `good-${i}`));
    const outcomes = await Promise.allSettled(items.map((item) => writer.submit(item)));

    const rejected = outcomes.flatMap((outcome, i) => (outcome.status === "rejected" ? [[items[i], outcome.reason]] : []));
    expect(rejected).toHaveLength(1);
    expect(rejected[0]![0]).toBe("bad-11");
    expect(rejected[0]![1]).toBeInstanceOf(RejectedItem);
    expect((rejected[0]![1] as RejectedItem).cause).toMatchObject({ code: "22021" });
    expect(outcomes.filter((o) => o.status === "fulfilled").map((o) => (o as PromiseFulfilledResult<string>).value)).toEqual(
      items.filter((item) => item !== "bad-11").map((item) => `stored ${item}`),
    );
    // Each good item committed exactly once, earlier items before later ones.
    expect(store.committed.flat()).toEqual(items.filter((item) => item !== "bad-11"));
    // Halving, depth first: 16 fails; 0-7 commit; 8-15 fail; 8-11 fail; 8-9 commit; 10-11 fail;
    // 10 commits; 11 stands alone and is rejected; then 12-15 commit.
    expect(store.flushes.map((f) => f.length)).toEqual([16, 8, 8, 4, 2, 2, 1, 1, 4]);
  });

  it("isolates several bad items in one batch, and treats integrity violations (class 23) as data errors too", async () => {
    const store = fakeStore({ failWith: "23514" });
    const writer = new GroupCommit(store.flush, { maxBatch: 100, maxInFlight: 2, maxQueuedWeight: 1000 });
    const items = ["bad-0", "good-1", "good-2", "bad-3", "good-4", "good-5", "good-6", "bad-7"];
    const outcomes = await Promise.allSettled(items.map((item) => writer.submit(item)));
    expect(outcomes.map((o) => o.status)).toEqual(items.map((item) => (item.startsWith("bad") ? "rejected" : "fulfilled")));
    expect(store.committed.flat().sort()).toEqual(items.filter((item) => item.startsWith("good")).sort());
  });

  it("rejects every item of a batch alike when the database itself fails (not the data): nothing is split or half stored", async () => {
    const flushes: number[] = [];
    const writer = new GroupCommit<string, string>(
      async (items) => {
        flushes.push(items.length);
        throw pgError("08006", "connection failure");
      },
      { maxBatch: 100, maxInFlight: 1, maxQueuedWeight: 1000 },
    );
    const outcomes = await Promise.allSettled(["a", "b", "c"].map((item) => writer.submit(item)));
    expect(outcomes.every((o) => o.status === "rejected" && (o.reason as { code?: string }).code === "08006")).toBe(true);
    expect(flushes).toEqual([3]);
  });

  it("refuses a submit at once when the waiting weight would pass the ceiling, and takes more once it drains", async () => {
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    const writer = new GroupCommit<string, string>(
      async (items) => {
        await gate;
        return items;
      },
      { maxBatch: 2, maxInFlight: 1, maxQueuedWeight: 10 },
    );
    const first = writer.submit("in flight", 1);
    await new Promise((resolve) => setImmediate(resolve)); // the first batch leaves the queue
    const waiting = [writer.submit("w1", 4), writer.submit("w2", 6)];
    expect(writer.depth).toBe(10);
    await expect(writer.submit("one too many", 1)).rejects.toBeInstanceOf(QueueFull);
    expect(writer.depth).toBe(10);
    release();
    expect(await first).toBe("in flight");
    expect(await Promise.all(waiting)).toEqual(["w1", "w2"]);
    expect(writer.depth).toBe(0);
    expect(await writer.submit("later", 10)).toBe("later");
  });

  it("tells data errors (SQLSTATE classes 22 and 23) from everything else", () => {
    expect(isDataError(pgError("22003"))).toBe(true);
    expect(isDataError(pgError("22P05"))).toBe(true);
    expect(isDataError(pgError("23505"))).toBe(true);
    expect(isDataError(pgError("40P01"))).toBe(false);
    expect(isDataError(pgError("57014"))).toBe(false);
    expect(isDataError(Object.assign(new Error("x"), { code: "ECONNREFUSED" }))).toBe(false);
    expect(isDataError(new Error("no code"))).toBe(false);
    expect(isDataError(undefined)).toBe(false);
  });

  it("turns a full queue into 503 with Retry-After, a rejected item into a 422 entry, anything else into 503", () => {
    const full = refusalOf(new QueueFull(), "event");
    expect(full).toBeInstanceOf(TallyError);
    expect(full.code).toBe("unavailable");
    expect(full.details?.retryAfterSeconds).toBe(2);
    const rejected = refusalOf(new RejectedItem(pgError("22021")), "conversion");
    expect(rejected.code).toBe("validation_failed");
    expect(rejected.details?.entries).toEqual([
      { instancePath: "", schemaPath: "#", keyword: "storable", params: { sqlstate: "22021" }, message: "the conversion holds a value that cannot be stored" },
    ]);
    expect(refusalOf(pgError("08006"), "event").code).toBe("unavailable");
  });
});
