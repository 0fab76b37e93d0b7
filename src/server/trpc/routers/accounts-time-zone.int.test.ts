// The account page's time zone over tRPC, as the dashboard calls it: the account reads back its
// zone, the picker's choices, who may set it, and a bad zone reaching the browser on its field.
import { beforeAll, describe, expect, it } from "vitest";
import { createUser } from "@/server/accounts/create-user";
import { signIn, type Viewer } from "@/server/accounts/sessions";
import { db } from "@/server/db/client";
import { makeAdvertiser, makePublisher } from "@/testing/fixtures";
import { handleTrpcRequest } from "../http-handler";
import { createCaller } from "../root";

const as = (viewer: Viewer | null) => createCaller({ viewer });
const PASSWORD = "correct horse battery";
let staff: { viewer: Viewer; token: string };
let brandId: string;
let shopId: string;

const signedIn = async (email: string, fields: { role: "staff" } | { role: "member"; accountId: string; memberRole: "admin" | "viewer" }) => {
  await createUser({ email, name: email, password: PASSWORD, ...fields });
  return signIn(email, PASSWORD);
};

beforeAll(async () => {
  [brandId, shopId] = [(await makeAdvertiser()).id, (await makePublisher()).id];
  staff = await signedIn("staff@zones-trpc.test", { role: "staff" });
});

describe("accounts.setTimeZone and the account's zone", () => {
  it("reads UTC until set, then the zone set, in the account and in the list; the picker offers every zone with its offset", async () => {
    expect((await as(staff.viewer).accounts.get({ id: brandId })).timeZone).toBe("UTC");
    const set = await as(staff.viewer).accounts.setTimeZone({ accountId: brandId, timeZone: "America/Sao_Paulo" });
    expect(set).toMatchObject({ timeZone: "America/Sao_Paulo", previous: "UTC", changed: true });
    expect(set.since).toBeInstanceOf(Date);
    expect((await as(staff.viewer).accounts.get({ id: brandId })).timeZone).toBe("America/Sao_Paulo");
    expect((await as(staff.viewer).accounts.list()).find((account) => account.id === brandId)?.timeZone).toBe("America/Sao_Paulo");

    const choices = await as(staff.viewer).accounts.timeZones();
    expect(choices[0]).toEqual({ zone: "UTC", offset: "UTC+00:00" });
    expect(choices.find((choice) => choice.zone === "America/Sao_Paulo")?.offset).toMatch(/^UTC−0[23]:00$/);
  });

  it("lets the account's admin set it and refuses its viewer, and a member of another account finds no such account", async () => {
    const admin = await signedIn("admin@zones-trpc.test", { role: "member", accountId: shopId, memberRole: "admin" });
    const viewer = await signedIn("viewer@zones-trpc.test", { role: "member", accountId: shopId, memberRole: "viewer" });
    expect(await as(admin.viewer).accounts.setTimeZone({ accountId: shopId, timeZone: "Europe/Berlin" })).toMatchObject({ timeZone: "Europe/Berlin" });
    await expect(as(viewer.viewer).accounts.setTimeZone({ accountId: shopId, timeZone: "UTC" })).rejects.toMatchObject({ code: "FORBIDDEN" });
    await expect(as(admin.viewer).accounts.setTimeZone({ accountId: brandId, timeZone: "UTC" })).rejects.toMatchObject({ code: "NOT_FOUND" });
    await expect(as(null).accounts.setTimeZone({ accountId: shopId, timeZone: "UTC" })).rejects.toMatchObject({ code: "UNAUTHORIZED" });
    expect((await as(viewer.viewer).accounts.get({ id: shopId })).timeZone).toBe("Europe/Berlin");
    const logged = await db.activityEntry.findMany({ where: { action: "account.time_zone.set" }, orderBy: { id: "asc" } });
    expect(logged.map((entry) => [entry.accountId, entry.actorName, entry.after])).toEqual([
      [brandId, "staff@zones-trpc.test <staff@zones-trpc.test>", { timeZone: "America/Sao_Paulo" }],
      [shopId, "admin@zones-trpc.test <admin@zones-trpc.test>", { timeZone: "Europe/Berlin" }],
    ]);
  });

  it("sends a bad zone back on the timeZone field, as the browser reads it", async () => {
    const response = await handleTrpcRequest(
      new Request("http://localhost:3000/api/trpc/accounts.setTimeZone", {
        method: "POST",
        headers: { Host: "localhost:3000", "Content-Type": "application/json", Cookie: `tally_session=${staff.token}`, "Sec-Fetch-Site": "same-origin" },
        body: JSON.stringify({ json: { accountId: brandId, timeZone: "GMT+3" } }),
      }),
    );
    expect(response.status).toBe(400);
    const body = (await response.json()) as { error: { json: { data: { fieldErrors: Record<string, string> } } } };
    expect(body.error.json.data.fieldErrors).toEqual({ timeZone: "is not a time zone: name one as Area/City, such as America/Sao_Paulo, or UTC" });
    expect((await db.account.findUniqueOrThrow({ where: { id: brandId } })).timeZone).toBe("America/Sao_Paulo");
  });
});
