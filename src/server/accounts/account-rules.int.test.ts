// The accounts domain's rules hold for every caller, with no tRPC in the path: who may create
// accounts and move money, what a sub-publisher's network must be, and that a member reaches its
// own account's budget, sites, keys and figures only, as viewers built by hand.
import { randomUUID } from "node:crypto";
import { beforeAll, describe, expect, it } from "vitest";
import { db } from "@/server/db/client";
import { accountSetAsideOrders, accountStats } from "@/server/pipeline/report/account-stats";
import { makeAdvertiser, makePublisher } from "@/testing/fixtures";
import { mayAccess, OPERATOR } from "./actor";
import { createApiKey, listApiKeys, revokeApiKey } from "./api-keys";
import { createAccount } from "./create-account";
import { getAccount } from "./get-account";
import { listAccounts } from "./list-accounts";
import { addSite, setDailyBudget, topUpWallet } from "./manage-account";
import type { Viewer } from "./sessions";

const staff: Viewer = { userId: "usr_staff", email: "staff@rules.test", name: "Staff", role: "staff", accountId: null };
const member = (accountId: string): Viewer => ({
  userId: `usr_${accountId}`,
  email: `${accountId}@rules.test`,
  name: accountId,
  role: "member",
  accountId,
  memberRole: "admin",
});
const range = { startDate: "2026-11-01", endDate: "2026-11-02" };

let shop: Awaited<ReturnType<typeof makePublisher>>;
let brand: Awaited<ReturnType<typeof makeAdvertiser>>;

beforeAll(async () => {
  [shop, brand] = [await makePublisher(), await makeAdvertiser()];
});

describe("creating accounts, called directly", () => {
  it("refuses a network id that is not a network account, and members altogether", async () => {
    await expect(createAccount({ actor: OPERATOR, kind: "publisher", name: "Stray shop", networkId: brand.id })).rejects.toMatchObject({
      code: "bad_request",
      message: "networkId must be a network account",
    });
    await expect(createAccount({ kind: "publisher", name: "Stray shop", networkId: shop.id, actor: staff })).rejects.toMatchObject({ code: "bad_request" });
    await expect(createAccount({ kind: "advertiser", name: "Mine", actor: member(brand.id) })).rejects.toMatchObject({
      code: "forbidden",
      message: "for account managers only",
    });
    const network = await createAccount({ actor: OPERATOR, kind: "network", name: `Network ${randomUUID().slice(0, 6)}` });
    expect((await createAccount({ kind: "publisher", name: "Sub shop", networkId: network.id, actor: staff })).networkId).toBe(network.id);
  });

  it("lets only the operator choose the id", async () => {
    const chosen = `adv_chosen_${randomUUID().slice(0, 8)}`;
    expect((await createAccount({ id: chosen, kind: "advertiser", name: "Picked", actor: staff })).id).not.toBe(chosen);
    expect((await createAccount({ actor: OPERATOR, id: chosen, kind: "advertiser", name: "Picked" })).id).toBe(chosen);
  });
});

describe("an account's money, sites and view, called directly", () => {
  it("moves money for account managers only and lets a member manage its own account only", async () => {
    await expect(topUpWallet({ actor: member(brand.id), accountId: brand.id, amount: 10 })).rejects.toMatchObject({ code: "forbidden" });
    expect(await topUpWallet({ actor: staff, accountId: brand.id, amount: 10 })).toBe(1010);

    const stranger = member(shop.id);
    await expect(setDailyBudget({ actor: stranger, accountId: brand.id, dailyBudget: 1 })).rejects.toMatchObject({ code: "not_found" });
    await expect(addSite({ actor: member(brand.id), accountId: shop.id, name: "x" })).rejects.toMatchObject({ code: "not_found" });
    await expect(getAccount({ actor: stranger, id: brand.id })).rejects.toMatchObject({ code: "not_found", message: "no such account" });
    await expect(getAccount({ actor: staff, id: "adv_unknown" })).rejects.toMatchObject({ code: "not_found", message: "no such account" });
    await setDailyBudget({ actor: member(brand.id), accountId: brand.id, dailyBudget: 25 });
    await addSite({ actor: stranger, accountId: shop.id, name: "Shop App" });
    expect(await getAccount({ actor: member(brand.id), id: brand.id })).toMatchObject({ dailyBudget: 25, walletBalance: 1010 });
    expect((await getAccount({ actor: OPERATOR, id: shop.id })).sites.map((s) => s.name)).toContain("Shop App");

    expect((await listAccounts({ actor: member(shop.id) })).map((a) => a.id)).toEqual([shop.id]);
    expect((await listAccounts({ actor: staff })).map((a) => a.id)).toEqual(expect.arrayContaining([shop.id, brand.id]));
    // A member with no account, however built, sees nothing; and no object is the operator but the operator.
    const orphan = { ...member(brand.id), accountId: null } as unknown as Viewer;
    expect(await listAccounts({ actor: orphan })).toEqual([]);
    expect(mayAccess({ role: "operator" }, brand.id)).toBe(false);
  });

  it("keeps keys and figures to the account's own users", async () => {
    const stranger = member(shop.id);
    await expect(createApiKey({ accountId: brand.id, name: "x", actor: stranger })).rejects.toMatchObject({ code: "not_found" });
    const key = await createApiKey({ accountId: brand.id, name: "BI", actor: member(brand.id) });
    await expect(listApiKeys({ actor: stranger, accountId: brand.id })).rejects.toMatchObject({ code: "not_found" });
    // Another account's key, with or without naming its account: as if it did not exist.
    await expect(revokeApiKey({ keyId: key.id, actor: stranger })).rejects.toMatchObject({ code: "not_found" });
    await expect(revokeApiKey({ keyId: key.id, accountId: shop.id, actor: stranger })).rejects.toMatchObject({ code: "not_found" });
    expect((await db.apiKey.findUniqueOrThrow({ where: { id: key.id } })).revokedAt).toBeNull();
    await revokeApiKey({ keyId: key.id, actor: member(brand.id) });
    expect((await listApiKeys({ actor: staff, accountId: brand.id }))[0]!.revokedAt).not.toBeNull();

    await expect(accountStats({ actor: stranger, accountId: brand.id, ...range })).rejects.toMatchObject({ code: "not_found" });
    await expect(accountStats({ actor: staff, accountId: "adv_unknown", ...range })).rejects.toMatchObject({ code: "not_found" });
    expect((await accountStats({ actor: member(brand.id), ...range })).daily).toHaveLength(2);
    // Orders are publishers' data: an advertiser's scope is not "every publisher's".
    expect(await accountSetAsideOrders({ actor: member(brand.id), ...range })).toEqual({ total: 0, latest: [] });
  });
});
