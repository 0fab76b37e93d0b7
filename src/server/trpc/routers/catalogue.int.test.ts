// The SKU ownership rule through the dashboard's procedures (campaigns, catalogue), as each kind
// of viewer meets it.
import { randomUUID } from "node:crypto";
import { beforeAll, describe, expect, it } from "vitest";
import { createUser } from "@/server/accounts/create-user";
import { signIn, type Viewer } from "@/server/accounts/sessions";
import { makeAdvertiser, makePublisher } from "@/testing/fixtures";
import { createCaller } from "../root";

let staff: Viewer;
let brandUser: Viewer;
let rivalUser: Viewer;
let shopUser: Viewer;
let otherShopUser: Viewer;
let shop: Awaited<ReturnType<typeof makePublisher>>;
let otherShop: Awaited<ReturnType<typeof makePublisher>>;
let brand: Awaited<ReturnType<typeof makeAdvertiser>>;
let rival: Awaited<ReturnType<typeof makeAdvertiser>>;

async function viewer(email: string, role: "staff" | "member", accountId?: string): Promise<Viewer> {
  await createUser({ email, name: email, password: "correct horse battery", role, accountId });
  return (await signIn(email, "correct horse battery")).viewer;
}
const as = (v: Viewer | null) => createCaller({ viewer: v });
const settings = (publisherIds: string[], productRefs: string[]) => ({
  name: `Campaign ${randomUUID().slice(0, 6)}`,
  type: "product" as const,
  status: "paused" as const,
  startDate: "2026-12-01",
  bidModel: "cpc" as const,
  bid: 0.4,
  publisherIds,
  productRefs,
});

beforeAll(async () => {
  [shop, otherShop, brand, rival] = [await makePublisher(), await makePublisher(), await makeAdvertiser(), await makeAdvertiser()];
  staff = await viewer("staff@catalogue.test", "staff");
  brandUser = await viewer("brand@catalogue.test", "member", brand.id);
  rivalUser = await viewer("rival@catalogue.test", "member", rival.id);
  shopUser = await viewer("shop@catalogue.test", "member", shop.id);
  otherShopUser = await viewer("other-shop@catalogue.test", "member", otherShop.id);
});

describe("campaign procedures and another advertiser's SKU", () => {
  it("refuse it on create, update and resume with a message for the products field; the owner goes on", async () => {
    const sku = `TEA-${randomUUID().slice(0, 8)}`;
    const { id: mine } = await as(brandUser).products.create({ advertiserId: brand.id, sku, name: "Green tea" });
    const { id: brandCampaign } = await as(brandUser).campaigns.create({ advertiserId: brand.id, ...settings([shop.id], [mine]) });

    const { id: copy } = await as(rivalUser).products.create({ advertiserId: rival.id, sku, name: "Green tea (ours)" });
    const expected = `productRefs: SKU ${sku} belongs to another advertiser on ${shop.name}, whose campaign already promotes it there`;
    await expect(as(rivalUser).campaigns.create({ advertiserId: rival.id, ...settings([shop.id], [copy]) })).rejects.toMatchObject({
      code: "BAD_REQUEST",
      message: expected,
    });
    // Staff acting for the rival meet the same rule.
    await expect(as(staff).campaigns.create({ advertiserId: rival.id, ...settings([shop.id], [copy]) })).rejects.toMatchObject({
      code: "BAD_REQUEST",
      message: expected,
    });

    const { id: rivalCampaign } = await as(rivalUser).campaigns.create({ advertiserId: rival.id, ...settings([otherShop.id], [copy]) });
    await expect(as(rivalUser).campaigns.update({ id: rivalCampaign, settings: settings([otherShop.id, shop.id], [copy]) })).rejects.toMatchObject({
      code: "BAD_REQUEST",
      message: expected,
    });

    // Ended, the brand's campaign lets go; the rival takes the SKU, and the brand cannot resume.
    await as(brandUser).campaigns.update({ id: brandCampaign, settings: { ...settings([shop.id], [mine]), status: "ended" } });
    await as(rivalUser).campaigns.update({ id: rivalCampaign, settings: settings([otherShop.id, shop.id], [copy]) });
    await expect(as(brandUser).campaigns.setStatus({ id: brandCampaign, status: "active" })).rejects.toMatchObject({ code: "BAD_REQUEST", message: expected });

    // The rival's own SKU stays usable by the rival, in a second campaign.
    await as(rivalUser).campaigns.create({ advertiserId: rival.id, ...settings([shop.id], [copy]) });
  });
});

describe("catalogue procedures", () => {
  it("let staff list a SKU for its brand, which then wins it back; the publisher's users read it; nobody else", async () => {
    const sku = `MUG-${randomUUID().slice(0, 8)}`;
    const { id: squatted } = await as(rivalUser).products.create({ advertiserId: rival.id, sku, name: "Mug" });
    const { id: squatter } = await as(rivalUser).campaigns.create({ advertiserId: rival.id, ...settings([shop.id], [squatted]) });
    const { id: mine } = await as(brandUser).products.create({ advertiserId: brand.id, sku, name: "Mug", productId: "mug" });
    await expect(as(brandUser).campaigns.create({ advertiserId: brand.id, ...settings([shop.id], [mine]) })).rejects.toMatchObject({ code: "BAD_REQUEST" });

    expect(await as(staff).catalogue.conflicts({ publisherId: shop.id })).toEqual([]);
    const listed = await as(staff).catalogue.set({ publisherId: shop.id, sku, advertiserId: brand.id, productId: "mug" });
    expect(listed.displaced).toEqual([expect.objectContaining({ campaignId: squatter, advertiserId: rival.id })]);
    await as(brandUser).campaigns.create({ advertiserId: brand.id, ...settings([shop.id], [mine]) });
    // Both promote it now (the rival's campaign came first); the catalogue settles whose it is.
    expect(await as(staff).catalogue.conflicts({ publisherId: shop.id })).toEqual([expect.objectContaining({ kind: "sku", value: sku, ownerId: brand.id })]);

    const entry = { publisherId: shop.id, sku, productId: "mug", advertiserId: brand.id, advertiserName: brand.name };
    expect(await as(shopUser).catalogue.list({ publisherId: shop.id })).toEqual([entry]);
    expect(await as(staff).catalogue.list({ publisherId: shop.id })).toEqual([entry]);
    await expect(as(otherShopUser).catalogue.list({ publisherId: shop.id })).rejects.toMatchObject({ code: "NOT_FOUND" });
    await expect(as(brandUser).catalogue.list({ publisherId: shop.id })).rejects.toMatchObject({ code: "NOT_FOUND" });
    await expect(as(null).catalogue.list({ publisherId: shop.id })).rejects.toMatchObject({ code: "UNAUTHORIZED" });

    // Listing decides whose ads are credited: members cannot, not even the publisher's own.
    for (const member of [shopUser, brandUser, rivalUser]) {
      await expect(as(member).catalogue.set({ publisherId: shop.id, sku, advertiserId: rival.id })).rejects.toMatchObject({ code: "FORBIDDEN" });
      await expect(as(member).catalogue.remove({ publisherId: shop.id, sku })).rejects.toMatchObject({ code: "FORBIDDEN" });
      await expect(as(member).catalogue.conflicts({})).rejects.toMatchObject({ code: "FORBIDDEN" });
    }
    await expect(as(staff).catalogue.set({ publisherId: shop.id, sku: " ", advertiserId: brand.id })).rejects.toMatchObject({ code: "BAD_REQUEST" });
    await expect(as(staff).catalogue.set({ publisherId: brand.id, sku, advertiserId: brand.id })).rejects.toMatchObject({ code: "BAD_REQUEST" });

    await as(staff).catalogue.remove({ publisherId: shop.id, sku });
    expect(await as(shopUser).catalogue.list({ publisherId: shop.id })).toEqual([]);
    await expect(as(staff).catalogue.remove({ publisherId: shop.id, sku })).rejects.toMatchObject({ code: "NOT_FOUND" });
  });
});
