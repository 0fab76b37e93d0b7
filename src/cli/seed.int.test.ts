// The demo seed: what `npm run dev` puts into a fresh database, and only once.
import { describe, expect, it } from "vitest";
import { OPERATOR } from "@/server/accounts/actor";
import { verifyPassword } from "@/server/accounts/passwords";
import { skuConflicts } from "@/server/campaigns/publisher-catalogue";
import { db } from "@/server/db/client";
import { DEMO, seedDemoData } from "../../prisma/seed";

describe("demo seed", () => {
  it("creates the demo publisher, network, advertisers, campaigns of each type, ads and a staff user", async () => {
    const lines: string[] = [];
    await seedDemoData((line) => lines.push(line));
    expect(lines.length).toBeGreaterThan(5);

    const publisher = await db.account.findUniqueOrThrow({ where: { id: DEMO.publisherId }, include: { sites: true } });
    expect(publisher.kind).toBe("publisher");
    expect(publisher.sites).toHaveLength(2);

    const network = await db.account.findUniqueOrThrow({ where: { id: DEMO.networkId }, include: { subPublishers: true } });
    expect(network.kind).toBe("network");
    expect(network.subPublishers).toHaveLength(2);

    const advertisers = await db.account.findMany({ where: { kind: "advertiser" } });
    expect(advertisers).toHaveLength(3);
    expect(advertisers.every((a) => a.walletBalanceMicros > 0n && a.sellerId)).toBe(true);

    const campaigns = await db.campaign.findMany({ include: { ads: true, products: true, publishers: true } });
    expect(new Set(campaigns.map((c) => c.type))).toEqual(new Set(["product", "display", "video"]));
    for (const campaign of campaigns) {
      expect(campaign.ads.length).toBeGreaterThan(0);
      expect(campaign.products.length).toBeGreaterThan(0);
      expect(campaign.publishers.length).toBeGreaterThan(0);
    }

    // Every campaign keeps to the SKU ownership rule: no SKU is promoted by two advertisers on one
    // publisher, and the listed SKUs are their brands'.
    expect(await skuConflicts({ actor: OPERATOR })).toEqual([]);
    // Acme's three coffees, promoted, and its travel mug, which no campaign promotes (the demo's halo sales).
    expect(await db.publisherCatalogueEntry.count({ where: { publisherId: DEMO.publisherId, advertiserId: "adv_acme_coffee" } })).toBe(4);
    const promoted = new Set(campaigns.flatMap((c) => c.products.map((p) => p.productRef)));
    const unpromoted = await db.product.findMany({ where: { id: { notIn: [...promoted] } }, orderBy: { sku: "asc" } });
    expect(unpromoted.map((p) => p.sku)).toEqual(["ACME-MUG-350", "NW-SOCKS-3P"]);

    const staff = await db.user.findUniqueOrThrow({ where: { email: DEMO.staffEmail } });
    expect(staff.role).toBe("staff");
    expect(await verifyPassword(DEMO.staffPassword, staff.passwordHash)).toBe(true);
    expect(lines.join("\n")).toContain(DEMO.staffEmail);

    // An advertiser's and a publisher's user, each an admin of their account only.
    for (const [email, password, accountId] of [
      [DEMO.advertiserEmail, DEMO.advertiserPassword, DEMO.advertiserId],
      [DEMO.publisherEmail, DEMO.publisherPassword, DEMO.publisherId],
    ] as const) {
      const user = await db.user.findUniqueOrThrow({ where: { email } });
      expect(user).toMatchObject({ role: "member", accountId, memberRole: "admin" });
      expect(await verifyPassword(password, user.passwordHash)).toBe(true);
      expect(lines.join("\n")).toContain(`${email} / password ${password}`);
    }
  });

  it("does nothing on a second run", async () => {
    const before = await Promise.all([db.account.count(), db.campaign.count(), db.ad.count(), db.product.count(), db.user.count()]);
    const lines: string[] = [];
    await seedDemoData((line) => lines.push(line));
    const after = await Promise.all([db.account.count(), db.campaign.count(), db.ad.count(), db.product.count(), db.user.count()]);
    expect(after).toEqual(before);
    expect(lines).toEqual(["seed: demo data already present, nothing to do"]);
  });
});
