// One file over 300 lines on purpose: every case builds on the same publishers, brands and SKUs, and reads as one rule.
// The SKU ownership rule against a real database: an advertiser cannot put a SKU (or product id)
// into a campaign on a publisher where another advertiser's campaign promotes it, unless the
// publisher's catalogue lists it as theirs; and attribution credits a listed SKU to its brand only.
import { randomUUID } from "node:crypto";
import { describe, expect, it } from "vitest";
import { OPERATOR } from "@/server/accounts/actor";
import { createAccount } from "@/server/accounts/create-account";
import { TallyError } from "@/server/core/errors";
import { db } from "@/server/db/client";
import type { CampaignStatus } from "@/server/db/generated/enums";
import { attribute, before, HOUR, placeOrder, touch } from "@/testing/attribution-fixture";
import { daysFromToday, makeAdvertiser, makePublisher } from "@/testing/fixtures";
import { createAd } from "./create-ad";
import { createCampaign } from "./create-campaign";
import { createProduct } from "./create-product";
import { removeCatalogueEntry, setCatalogueEntry, skuConflicts } from "./publisher-catalogue";
import { lockSellingKeys } from "./sku-ownership";
import { campaignSettings, setCampaignStatus, updateCampaign } from "./update-campaign";

const tag = () => randomUUID().slice(0, 8).toUpperCase();
const product = (advertiserId: string, sku: string, productId?: string) =>
  createProduct({ actor: OPERATOR, advertiserId, sku, productId, name: `Product ${sku}` });

function campaign(advertiserId: string, publisherIds: string[], productRefs: string[], status: CampaignStatus = "active") {
  return createCampaign({
    actor: OPERATOR,
    advertiserId,
    name: `Campaign ${tag()}`,
    type: "product",
    status,
    startDate: daysFromToday(-1),
    bidModel: "cpc",
    bid: 0.5,
    publisherIds,
    productRefs,
  });
}

/** The settings form's view of a campaign, for an update that changes only what is given. */
async function update(id: string, change: { status?: CampaignStatus; publisherIds?: string[]; productRefs?: string[] }) {
  const settings = await campaignSettings({ actor: OPERATOR, id });
  return updateCampaign({ actor: OPERATOR, id, settings: { ...settings, ...change } });
}

async function refusal(promise: Promise<unknown>): Promise<string> {
  const error = await promise.then(
    () => null,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(TallyError);
  expect((error as TallyError).code).toBe("bad_request");
  return (error as TallyError).message;
}

async function network(subPublishers: number) {
  const net = await createAccount({ actor: OPERATOR, kind: "network", name: `Network ${tag()}` });
  const subs: Awaited<ReturnType<typeof makePublisher>>[] = [];
  for (let i = 0; i < subPublishers; i += 1) subs.push(await makePublisher({ networkId: net.id }));
  return { net, subs };
}

describe("putting a SKU into a campaign", () => {
  it("is refused when another advertiser's campaign promotes it on that publisher, naming the SKU and the publisher", async () => {
    const shop = await makePublisher();
    const elsewhere = await makePublisher();
    const [brand, rival] = [await makeAdvertiser(), await makeAdvertiser()];
    const sku = `BEANS-${tag()}`;
    await campaign(brand.id, [shop.id], [(await product(brand.id, sku)).id]);

    const copied = await product(rival.id, sku);
    const message = await refusal(campaign(rival.id, [shop.id], [copied.id]));
    expect(message).toBe(`productRefs: SKU ${sku} belongs to another advertiser on ${shop.name}, whose campaign already promotes it there`);
    expect(await db.campaign.count({ where: { advertiserId: rival.id } })).toBe(0);

    // On another publisher nobody promotes it: the rival may.
    await campaign(rival.id, [elsewhere.id], [copied.id]);
    // Adding the first shop to that campaign is the same claim, and leaves the campaign as it was.
    const [rivals] = await db.campaign.findMany({ where: { advertiserId: rival.id } });
    expect(await refusal(update(rivals!.id, { publisherIds: [elsewhere.id, shop.id] }))).toContain(`SKU ${sku} belongs to another advertiser on ${shop.name}`);
    expect((await campaignSettings({ actor: OPERATOR, id: rivals!.id })).publisherIds).toEqual([elsewhere.id]);
  });

  it("lets the owner promote its SKU in more campaigns, edit them, and pause and resume them", async () => {
    const shop = await makePublisher();
    const brand = await makeAdvertiser();
    const beans = await product(brand.id, `BEANS-${tag()}`, `coffee-${tag()}`);
    const first = await campaign(brand.id, [shop.id], [beans.id]);
    const second = await campaign(brand.id, [shop.id], [beans.id], "draft");
    await update(first.id, { productRefs: [beans.id, (await product(brand.id, `PODS-${tag()}`)).id] });
    await setCampaignStatus({ actor: OPERATOR, id: first.id, status: "paused" });
    await setCampaignStatus({ actor: OPERATOR, id: first.id, status: "active" });
    await update(second.id, { status: "active" });
    expect(await db.campaign.count({ where: { advertiserId: brand.id, status: "active" } })).toBe(2);
  });

  it("covers product ids, which attribution matches too", async () => {
    const shop = await makePublisher();
    const [brand, rival] = [await makeAdvertiser(), await makeAdvertiser()];
    const group = `boot-${tag()}`;
    await campaign(brand.id, [shop.id], [(await product(brand.id, `BOOT-42-${tag()}`, group)).id]);

    // A SKU of its own, with the brand's product id: every size of the boot would be credited to it.
    const lookalike = await product(rival.id, `MY-BOOT-${tag()}`, group);
    expect(await refusal(campaign(rival.id, [shop.id], [lookalike.id]))).toBe(
      `productRefs: product id ${group} belongs to another advertiser on ${shop.name}, whose campaign already promotes it there`,
    );
    // The same SKU without a product id is still a product of its own.
    await campaign(rival.id, [shop.id], [(await product(rival.id, `MY-BOOT-2-${tag()}`)).id]);
  });
});

describe("network publishers", () => {
  it("mean every sub-publisher, in both directions, and the network itself", async () => {
    const { net, subs } = await network(2);
    const [grocer] = subs as [Awaited<ReturnType<typeof makePublisher>>];
    const [brand, rival, third] = [await makeAdvertiser(), await makeAdvertiser(), await makeAdvertiser()];
    const sku = `PASTE-${tag()}`;
    await campaign(brand.id, [net.id], [(await product(brand.id, sku)).id]);

    // Directly on a sub-publisher: the network campaign promotes it there.
    const direct = await product(rival.id, sku);
    expect(await refusal(campaign(rival.id, [grocer.id], [direct.id]))).toBe(
      `productRefs: SKU ${sku} belongs to another advertiser on ${grocer.name}, whose campaign already promotes it there`,
    );

    // The other way round: a SKU promoted directly on a sub-publisher keeps network campaigns off it.
    const other = `BRUSH-${tag()}`;
    await campaign(third.id, [grocer.id], [(await product(third.id, other)).id]);
    const onNetwork = await product(rival.id, other);
    expect(await refusal(campaign(rival.id, [net.id], [onNetwork.id]))).toBe(
      `productRefs: SKU ${other} belongs to another advertiser on ${grocer.name} (through ${net.name}), whose campaign already promotes it there`,
    );

    // A network without sub-publishers yet is a place of its own: two brands cannot share a SKU
    // there and collide on its first sub-publisher later.
    const empty = await network(0);
    const lonely = `TEA-${tag()}`;
    await campaign(brand.id, [empty.net.id], [(await product(brand.id, lonely)).id]);
    expect(await refusal(campaign(rival.id, [empty.net.id], [(await product(rival.id, lonely)).id]))).toContain(
      `SKU ${lonely} belongs to another advertiser on ${empty.net.name}`,
    );
  });
});

describe("which campaigns hold their SKUs", () => {
  it("draft and paused campaigns hold them; ended and archived ones release them, and coming back claims them again", async () => {
    const shop = await makePublisher();
    const [brand, rival] = [await makeAdvertiser(), await makeAdvertiser()];
    const sku = `KETTLE-${tag()}`;
    const mine = await product(brand.id, sku);
    const theirs = await product(rival.id, sku);
    const held = await campaign(brand.id, [shop.id], [mine.id], "draft");
    expect(await refusal(campaign(rival.id, [shop.id], [theirs.id]))).toContain(`SKU ${sku} belongs to another advertiser`);
    await setCampaignStatus({ actor: OPERATOR, id: held.id, status: "paused" });
    expect(await refusal(campaign(rival.id, [shop.id], [theirs.id]))).toContain(`SKU ${sku} belongs to another advertiser`);

    await setCampaignStatus({ actor: OPERATOR, id: held.id, status: "ended" });
    const rivals = await campaign(rival.id, [shop.id], [theirs.id]);
    // The ended campaign cannot come back with the SKU, by status or by an edit...
    expect(await refusal(setCampaignStatus({ actor: OPERATOR, id: held.id, status: "active" }))).toContain(
      `SKU ${sku} belongs to another advertiser on ${shop.name}`,
    );
    expect(await refusal(update(held.id, { status: "paused" }))).toContain(`SKU ${sku} belongs to another advertiser`);
    expect((await campaignSettings({ actor: OPERATOR, id: held.id })).status).toBe("ended");
    // ...but it can be edited while it stays ended, and archived.
    await update(held.id, { publisherIds: [shop.id, (await makePublisher()).id] });
    await setCampaignStatus({ actor: OPERATOR, id: held.id, status: "archived" });

    // Once the rival archives its campaign, the brand's comes back.
    await setCampaignStatus({ actor: OPERATOR, id: rivals.id, status: "archived" });
    await setCampaignStatus({ actor: OPERATOR, id: held.id, status: "active" });
    expect(await refusal(setCampaignStatus({ actor: OPERATOR, id: rivals.id, status: "active" }))).toContain(`SKU ${sku} belongs to another advertiser`);
  });
});

describe("the publisher's catalogue", () => {
  it("lets the listed brand in beside a squatter, keeps everyone else out, and can be taken back", async () => {
    const shop = await makePublisher();
    const [brand, squatter, third] = [await makeAdvertiser(), await makeAdvertiser(), await makeAdvertiser()];
    const sku = `BEANS-${tag()}`;
    const squatted = await campaign(squatter.id, [shop.id], [(await product(squatter.id, sku)).id], "paused");
    const mine = await product(brand.id, sku);
    expect(await refusal(campaign(brand.id, [shop.id], [mine.id]))).toContain(`SKU ${sku} belongs to another advertiser`);

    const { entry, displaced } = await setCatalogueEntry({ actor: OPERATOR, publisherId: shop.id, sku: ` ${sku} `, advertiserId: brand.id });
    expect(entry).toMatchObject({ publisherId: shop.id, sku, advertiserId: brand.id, advertiserName: brand.name, productId: null });
    expect(displaced).toEqual([{ campaignId: squatted.id, campaignName: squatted.name, advertiserId: squatter.id, advertiserName: squatter.name }]);
    await campaign(brand.id, [shop.id], [mine.id]);

    // Listed, it is the brand's even where nobody promotes it: a third advertiser is refused, and
    // so is the squatter's next campaign.
    expect(await refusal(campaign(third.id, [shop.id], [(await product(third.id, sku)).id]))).toBe(
      `productRefs: SKU ${sku} belongs to another advertiser on ${shop.name}, by ${shop.name}'s catalogue`,
    );
    expect(
      await refusal(
        campaign(
          squatter.id,
          [shop.id],
          [(await product(squatter.id, `${sku}-X`)).id, (await db.product.findFirstOrThrow({ where: { advertiserId: squatter.id, sku } })).id],
        ),
      ),
    ).toContain(`by ${shop.name}'s catalogue`);

    await removeCatalogueEntry({ actor: OPERATOR, publisherId: shop.id, sku });
    await expect(removeCatalogueEntry({ actor: OPERATOR, publisherId: shop.id, sku })).rejects.toMatchObject({ code: "not_found" });
    // Unlisted again, it is first come: both the brand's and the squatter's campaigns promote it.
    expect(await refusal(campaign(third.id, [shop.id], [(await db.product.findFirstOrThrow({ where: { advertiserId: third.id, sku } })).id]))).toContain(
      "whose campaign already promotes it there",
    );
  });

  it("gives the brand the product id listed with a SKU, one brand per product id", async () => {
    const shop = await makePublisher();
    const [brand, rival] = [await makeAdvertiser(), await makeAdvertiser()];
    const group = `tent-${tag()}`;
    await setCatalogueEntry({ actor: OPERATOR, publisherId: shop.id, sku: `TENT-2P-${tag()}`, productId: group, advertiserId: brand.id });
    expect(await refusal(campaign(rival.id, [shop.id], [(await product(rival.id, `TENT-X-${tag()}`, group)).id]))).toBe(
      `productRefs: product id ${group} belongs to another advertiser on ${shop.name}, by ${shop.name}'s catalogue`,
    );
    await campaign(brand.id, [shop.id], [(await product(brand.id, `TENT-3P-${tag()}`, group)).id]);
    await expect(
      setCatalogueEntry({ actor: OPERATOR, publisherId: shop.id, sku: `TENT-4P-${tag()}`, productId: group, advertiserId: rival.id }),
    ).rejects.toThrow(`productId: product id ${group} is listed for another advertiser`);
    await expect(setCatalogueEntry({ actor: OPERATOR, publisherId: brand.id, sku: "X", advertiserId: brand.id })).rejects.toThrow(
      "publisherId: catalogues belong to publisher and network accounts",
    );
    await expect(setCatalogueEntry({ actor: OPERATOR, publisherId: shop.id, sku: "X", advertiserId: shop.id })).rejects.toThrow(
      "advertiserId: a SKU belongs to an advertiser account",
    );
  });
});

/** Advisory locks that transactions on this test file's database are waiting for. */
async function waitingLocks(): Promise<number> {
  const [row] = await db.$queryRaw<{ n: number }[]>`
    SELECT count(*)::int AS n FROM pg_locks WHERE locktype = 'advisory' AND NOT granted AND database = (SELECT oid FROM pg_database WHERE datname = current_database())`;
  return row!.n;
}

describe("two advertisers claiming one SKU at the same moment", () => {
  it("exactly one wins, when both checks run while neither has written", async () => {
    const shop = await makePublisher();
    const [first, second] = [await makeAdvertiser(), await makeAdvertiser()];
    const sku = `RACE-${tag()}`;
    const [a, b] = [await product(first.id, sku), await product(second.id, sku)];
    // Hold the SKU's lock so both claims are under way and waiting at once, then let them go.
    let claims: Promise<unknown>[] = [];
    await db.$transaction(async (tx) => {
      await lockSellingKeys(tx, [{ kind: "sku", value: sku }]);
      claims = [campaign(first.id, [shop.id], [a.id]), campaign(second.id, [shop.id], [b.id])];
      for (let i = 0; i < 200 && (await waitingLocks()) < 2; i += 1) await new Promise((resolve) => setTimeout(resolve, 10));
      expect(await waitingLocks()).toBe(2);
    });
    const outcomes = await Promise.allSettled(claims);
    expect(outcomes.filter((o) => o.status === "fulfilled")).toHaveLength(1);
    const [lost] = outcomes.filter((o) => o.status === "rejected") as PromiseRejectedResult[];
    expect(lost!.reason).toBeInstanceOf(TallyError);
    expect(String(lost!.reason.message)).toContain(`SKU ${sku} belongs to another advertiser on ${shop.name}`);
    expect(await db.campaign.count({ where: { advertiserId: { in: [first.id, second.id] } } })).toBe(1);
  });

  it("exactly one wins when one claim is a campaign of more SKUs than it takes locks for", async () => {
    const shop = await makePublisher();
    const [big, small] = [await makeAdvertiser(), await makeAdvertiser()];
    const prefix = `BULK-${tag()}`;
    const many: Awaited<ReturnType<typeof product>>[] = [];
    for (let i = 0; i < 70; i += 1) many.push(await product(big.id, `${prefix}-${i}`));
    const one = await product(small.id, `${prefix}-42`);
    let claims: Promise<unknown>[] = [];
    await db.$transaction(async (tx) => {
      await lockSellingKeys(
        tx,
        many.map((p) => ({ kind: "sku" as const, value: p.sku })),
      );
      claims = [
        campaign(
          big.id,
          [shop.id],
          many.map((p) => p.id),
        ),
        campaign(small.id, [shop.id], [one.id]),
      ];
      for (let i = 0; i < 200 && (await waitingLocks()) < 2; i += 1) await new Promise((resolve) => setTimeout(resolve, 10));
      expect(await waitingLocks()).toBe(2);
    });
    const outcomes = await Promise.allSettled(claims);
    expect(outcomes.filter((o) => o.status === "fulfilled")).toHaveLength(1);
    expect(await db.campaign.count({ where: { advertiserId: { in: [big.id, small.id] } } })).toBe(1);
  });

  it("exactly one wins in each of many unsynchronised pairs of claims, creates and edits mixed", async () => {
    const shop = await makePublisher();
    const [first, second] = [await makeAdvertiser(), await makeAdvertiser()];
    const rounds = await Promise.all(
      Array.from({ length: 4 }, async (_, round) => {
        const sku = `RACE-${round}-${tag()}`;
        const [a, b] = [await product(first.id, sku), await product(second.id, sku)];
        const parked = await campaign(second.id, [shop.id], [], "active");
        return { a, b, parked };
      }),
    );
    const outcomes = await Promise.all(
      rounds.map(({ a, b, parked }) => Promise.allSettled([campaign(first.id, [shop.id], [a.id]), update(parked.id, { productRefs: [b.id] })])),
    );
    for (const pair of outcomes) expect(pair.filter((o) => o.status === "fulfilled")).toHaveLength(1);
  });
});

// ---------------------------------------------------------------- attribution

async function withAd(advertiserId: string, publisherIds: string[], productRefs: string[]) {
  const made = await campaign(advertiserId, publisherIds, productRefs);
  const ad = await createAd({ actor: OPERATOR, campaignId: made.id, name: `Ad ${tag()}`, type: "product" });
  return { campaign: made, ad };
}

async function creditedAdvertisers(publisherId: string, who: { session: string; user: string }, items: { sku: string; product_id?: string }[]) {
  const { orderId } = await placeOrder(publisherId, who, items);
  await attribute();
  const rows = await db.attribution.findMany({ where: { orderId }, orderBy: { itemPosition: "asc" } });
  return items.map((_, position) => rows.find((r) => r.itemPosition === position)?.advertiserId ?? null);
}

describe("attribution and the catalogue", () => {
  it("credits a SKU two advertisers promote (data from before the rule) to the catalogue's brand only, by SKU or by product id", async () => {
    const shop = await makePublisher();
    const [brand, squatter] = [await makeAdvertiser(), await makeAdvertiser()];
    const [sku, group] = [`BEANS-${tag()}`, `coffee-${tag()}`];
    const brands = await withAd(brand.id, [shop.id], [(await product(brand.id, sku, group)).id]);
    // Written straight to the tables, as a campaign made before the rule would be.
    const squatters = await withAd(squatter.id, [shop.id], []);
    await db.campaignProduct.create({ data: { campaignId: squatters.campaign.id, productRef: (await product(squatter.id, sku, group)).id } });
    expect(await skuConflicts({ actor: OPERATOR, publisherId: shop.id })).toEqual([
      {
        publisherId: shop.id,
        publisherName: shop.name,
        kind: "sku",
        value: sku,
        advertisers: expect.arrayContaining([
          { id: brand.id, name: brand.name },
          { id: squatter.id, name: squatter.name },
        ]),
        ownerId: null,
      },
      {
        publisherId: shop.id,
        publisherName: shop.name,
        kind: "product_id",
        value: group,
        advertisers: expect.arrayContaining([
          { id: brand.id, name: brand.name },
          { id: squatter.id, name: squatter.name },
        ]),
        ownerId: null,
      },
    ]);

    // The squatter's click is later than the brand's view and wins: unsettled, it is credited as before.
    const shopper = () => ({ session: `s-${randomUUID()}`, user: `u-${randomUUID()}` });
    const beforeListing = shopper();
    await touch("view", brands, shop, beforeListing, before(3 * HOUR));
    await touch("click", squatters, shop, beforeListing, before(HOUR));
    expect(await creditedAdvertisers(shop.id, beforeListing, [{ sku }])).toEqual([squatter.id]);

    // Listed, the SKU and every SKU of its product id go to the brand's touch, however weaker.
    await setCatalogueEntry({ actor: OPERATOR, publisherId: shop.id, sku, productId: group, advertiserId: brand.id });
    expect((await skuConflicts({ actor: OPERATOR, publisherId: shop.id })).map((c) => c.ownerId)).toEqual([brand.id, brand.id]);
    const afterListing = shopper();
    await touch("impression", brands, shop, afterListing, before(3 * HOUR));
    await touch("click", squatters, shop, afterListing, before(HOUR));
    expect(await creditedAdvertisers(shop.id, afterListing, [{ sku }, { sku: `${sku}-REFILL`, product_id: group }, { sku: "UNRELATED" }])).toEqual([
      brand.id,
      brand.id,
      null,
    ]);

    // Without a touch of the brand's, the listed SKU is credited to nobody.
    const squattersOnly = shopper();
    await touch("click", squatters, shop, squattersOnly, before(HOUR));
    expect(await creditedAdvertisers(shop.id, squattersOnly, [{ sku }])).toEqual([null]);

    // The catalogue is the publisher's own: on another shop the squatter's campaign is still credited.
    const other = await makePublisher();
    await db.campaignPublisher.create({ data: { campaignId: squatters.campaign.id, publisherId: other.id } });
    const there = shopper();
    await touch("click", squatters, other, there, before(HOUR));
    expect(await creditedAdvertisers(other.id, there, [{ sku }])).toEqual([squatter.id]);
  });
});
