// Who reaches an export destination, with no tRPC in the path: the account's own users, staff and
// the operator; anyone else finds nothing, as if it did not exist, and cannot move one to an
// account it may not see.
import { beforeAll, describe, expect, it } from "vitest";
import { OPERATOR } from "@/server/accounts/actor";
import type { Viewer } from "@/server/accounts/sessions";
import { makeAdvertiser, makePublisher } from "@/testing/fixtures";
import { createDestination, deleteDestination, destinationRuns, getDestination, listDestinations, testDestination, updateDestination } from "./destinations";

const staff: Viewer = { userId: "usr_staff", email: "staff@rules.test", name: "Staff", role: "staff", accountId: null };
const member = (accountId: string): Viewer => ({
  userId: `usr_${accountId}`,
  email: `${accountId}@rules.test`,
  name: accountId,
  role: "member",
  accountId,
  memberRole: "admin",
});
const input = (accountId: string, name = "Lake") => ({
  accountId,
  name,
  bucket: "customer-lake",
  region: "eu-west-1",
  credentials: { kind: "assume_role" as const, roleArn: "arn:aws:iam::123456789012:role/tally-export" },
});

let shopId: string;
let brandId: string;

beforeAll(async () => {
  [shopId, brandId] = [(await makePublisher()).id, (await makeAdvertiser()).id];
});

describe("export destinations, called directly", () => {
  it("are managed by the account's users and staff, and nobody else", async () => {
    const [shopUser, brandUser] = [member(shopId), member(brandId)];
    await expect(createDestination(input(shopId), { actor: brandUser })).rejects.toMatchObject({ code: "not_found", message: "no such account" });
    const mine = await createDestination(input(shopId), { actor: shopUser });
    const theirs = await createDestination(input(brandId, "Brand lake"), { actor: staff });

    const unknown = { code: "not_found", message: "no such export destination" };
    for (const call of [
      () => getDestination(mine.id, { actor: brandUser }),
      () => updateDestination(mine.id, input(shopId, "Mine now"), { actor: brandUser }),
      () => deleteDestination(mine.id, { actor: brandUser }),
      () => testDestination({ actor: brandUser, id: mine.id }),
      () => destinationRuns({ actor: brandUser, id: mine.id, limit: 10 }),
      () => getDestination("dst_unknown", { actor: staff }),
    ]) {
      await expect(call()).rejects.toMatchObject(unknown);
    }
    // Moving one's destination to an account one may not see is refused; staff meet the rule that it never moves.
    await expect(updateDestination(mine.id, input(brandId), { actor: shopUser })).rejects.toMatchObject({ code: "not_found" });
    await expect(updateDestination(mine.id, input(brandId), { actor: staff })).rejects.toMatchObject({ code: "bad_request" });
    await expect(listDestinations(shopId, { actor: brandUser })).rejects.toMatchObject({ code: "not_found" });

    expect((await listDestinations(undefined, { actor: shopUser })).map((d) => d.id)).toEqual([mine.id]);
    expect((await listDestinations(undefined, { actor: brandUser })).map((d) => d.id)).toEqual([theirs.id]);
    expect((await listDestinations(undefined, { actor: staff })).map((d) => d.id)).toEqual(expect.arrayContaining([mine.id, theirs.id]));
    expect((await listDestinations(shopId, { actor: OPERATOR })).map((d) => d.id)).toEqual([mine.id]);
    expect(await destinationRuns({ actor: shopUser, id: mine.id, limit: 10 })).toEqual([]);

    expect((await updateDestination(mine.id, input(shopId, "Renamed"), { actor: shopUser })).name).toBe("Renamed");
    await deleteDestination(mine.id, { actor: shopUser });
    await expect(getDestination(mine.id, { actor: OPERATOR })).rejects.toMatchObject(unknown);
  });
});
