import { beforeAll, describe, expect, it } from "vitest";
import { createUser } from "@/server/accounts/create-user";
import { signIn, type Viewer } from "@/server/accounts/sessions";
import { db } from "@/server/db/client";
import { createCaller } from "@/server/trpc/root";
import { makeAdvertiser } from "@/testing/fixtures";
import { MAX_SAVED_VIEWS, MAX_VIEW_PATH_LENGTH } from "./saved-view-input";

let staff: Viewer;
let member: Viewer;
const as = (v: Viewer | null) => createCaller({ viewer: v });

beforeAll(async () => {
  const advertiserId = (await makeAdvertiser()).id;
  await createUser({ email: "staff@views.test", name: "Staff", password: "correct horse battery", role: "staff" });
  await createUser({ email: "brand@views.test", name: "Brand", password: "correct horse battery", role: "member", accountId: advertiserId });
  staff = (await signIn("staff@views.test", "correct horse battery")).viewer;
  member = (await signIn("brand@views.test", "correct horse battery")).viewer;
});

describe("saved views", () => {
  it("are saved by name, listed by name, replaced under the same name, and each user's own", async () => {
    const weekly = await as(staff).views.save({ name: " Weekly ", path: "/dashboard?from=2026-11-01&to=2026-11-07#top" });
    await as(staff).views.save({ name: "Acme campaigns", path: "/dashboard/campaigns?sort=-clicks_total" });
    expect((await as(staff).views.list()).map((v) => [v.name, v.path])).toEqual([
      ["Acme campaigns", "/dashboard/campaigns?sort=-clicks_total"],
      ["Weekly", "/dashboard?from=2026-11-01&to=2026-11-07"],
    ]);
    const again = await as(staff).views.save({ name: "Weekly", path: "/dashboard?from=2026-11-08&to=2026-11-14" });
    expect(again.id).toBe(weekly.id);
    expect((await as(staff).views.list()).find((v) => v.name === "Weekly")?.path).toBe("/dashboard?from=2026-11-08&to=2026-11-14");

    expect(await as(member).views.list()).toEqual([]);
    await expect(as(member).views.remove({ id: weekly.id })).rejects.toMatchObject({ code: "NOT_FOUND" });
    await as(member).views.save({ name: "Weekly", path: "/dashboard" }); // the same name is free for another user
    await as(staff).views.remove({ id: weekly.id });
    expect((await as(staff).views.list()).map((v) => v.name)).toEqual(["Acme campaigns"]);
    await expect(as(staff).views.remove({ id: weekly.id })).rejects.toMatchObject({ code: "NOT_FOUND" });
  });

  it("refuse an address outside the dashboard, a bad name, and anyone signed out", async () => {
    for (const path of ["https://elsewhere.example/dashboard", "//elsewhere.example/dashboard", "/dashboard/../api/metrics", "/api/trpc"]) {
      await expect(as(member).views.save({ name: "Out", path }), path).rejects.toMatchObject({ code: "BAD_REQUEST" });
    }
    await expect(as(member).views.save({ name: "", path: "/dashboard" })).rejects.toMatchObject({ code: "BAD_REQUEST" });
    await expect(as(null).views.list()).rejects.toMatchObject({ code: "UNAUTHORIZED" });
    await expect(as(null).views.save({ name: "x", path: "/dashboard" })).rejects.toMatchObject({ code: "UNAUTHORIZED" });
    expect(await db.savedView.count({ where: { name: "Out" } })).toBe(0);
  });

  it(`keep at most ${MAX_SAVED_VIEWS} a user, even when saved all at once, and go with the user`, async () => {
    await createUser({ email: "many@views.test", name: "Many", password: "correct horse battery", role: "staff" });
    const many = (await signIn("many@views.test", "correct horse battery")).viewer;
    // The largest name and address the limits allow, every one of them.
    const longest = (i: number) => ({ name: `View ${i} `.padEnd(80, "x"), path: `/dashboard?n=${i}&q=`.padEnd(MAX_VIEW_PATH_LENGTH, "a") });
    const results = await Promise.allSettled(Array.from({ length: MAX_SAVED_VIEWS + 10 }, (_, i) => as(many).views.save(longest(i))));
    expect(results.filter((r) => r.status === "fulfilled")).toHaveLength(MAX_SAVED_VIEWS);
    const refused = results.filter((r): r is PromiseRejectedResult => r.status === "rejected");
    expect(refused).toHaveLength(10);
    expect(refused[0]!.reason).toMatchObject({ code: "BAD_REQUEST", message: expect.stringContaining(`at most ${MAX_SAVED_VIEWS} saved views`) });
    expect(await db.savedView.count({ where: { userId: many.userId } })).toBe(MAX_SAVED_VIEWS);
    // At the limit, a view saved again under its name still changes.
    const kept = (await as(many).views.list())[0]!;
    expect((await as(many).views.save({ name: kept.name, path: "/dashboard/activity" })).path).toBe("/dashboard/activity");
    expect((await as(many).views.list()).every((view) => view.path.length <= MAX_VIEW_PATH_LENGTH)).toBe(true);
    // One removed, the next view goes in.
    await as(many).views.remove({ id: kept.id });
    expect((await as(many).views.save({ name: "After", path: "/dashboard" })).name).toBe("After");

    await db.user.delete({ where: { id: many.userId } });
    expect(await db.savedView.count({ where: { userId: many.userId } })).toBe(0);
  });
});
