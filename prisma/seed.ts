// Demo data for a fresh local install: a publisher with two sites, a network with two
// sub-publishers, three advertisers with catalogues, the publishers' catalogues of whose SKU is
// whose, campaigns of each type with ads, a staff user, and an admin user of one advertiser and
// one of the publisher. Runs once: a database that already holds the demo publisher is left alone.
// Everything goes through the same domain functions the dashboard uses, as the operator, and meets
// the same rules (account kinds, whose products and SKUs) as an account manager would.
import { OPERATOR } from "@/server/accounts/actor";
import { createAccount } from "@/server/accounts/create-account";
import { createUser } from "@/server/accounts/create-user";
import { createAd } from "@/server/campaigns/create-ad";
import { createCampaign } from "@/server/campaigns/create-campaign";
import { createProduct } from "@/server/campaigns/create-product";
import { setCatalogueEntry } from "@/server/campaigns/publisher-catalogue";
import { db } from "@/server/db/client";
import { rotateSigningSecret } from "@/server/pipeline/accept/conversions/signing-secrets";

export const DEMO = {
  publisherId: "pub_demo_market",
  networkId: "net_demo_retail",
  staffEmail: "staff@tally.local",
  staffPassword: "tally-demo-staff",
  /** An admin of Acme Coffee, an advertiser: sees that account only. */
  advertiserEmail: "acme@tally.local",
  advertiserPassword: "tally-demo-advertiser",
  advertiserId: "adv_acme_coffee",
  /** An admin of Demo Market, the publisher: sees that account only. */
  publisherEmail: "market@tally.local",
  publisherPassword: "tally-demo-publisher",
} as const;

type Log = (line: string) => void;

export async function isSeeded(): Promise<boolean> {
  return (await db.account.count({ where: { id: DEMO.publisherId } })) > 0;
}

function daysFromToday(days: number): string {
  return new Date(Date.now() + days * 86_400_000).toISOString().slice(0, 10);
}

export async function seedDemoData(log: Log = console.log): Promise<void> {
  if (await isSeeded()) {
    log("seed: demo data already present, nothing to do");
    return;
  }
  log("seed: publisher Demo Market with sites demomarket.com and Demo Market App");
  await createAccount({
    actor: OPERATOR,
    id: DEMO.publisherId,
    kind: "publisher",
    name: "Demo Market",
    sites: [{ name: "demomarket.com", domain: "demomarket.com" }, { name: "Demo Market App" }],
  });
  // The demo store's server signs its orders with it, so they are proven and credited like a real checkout's.
  await rotateSigningSecret({ actor: OPERATOR, publisherId: DEMO.publisherId });
  log("seed: Demo Market's order-signing secret, used by the demo store's checkout and history");

  log("seed: network Retail Network with sub-publishers Corner Grocer and City Pharmacy");
  await createAccount({ actor: OPERATOR, id: DEMO.networkId, kind: "network", name: "Retail Network" });
  await createAccount({
    actor: OPERATOR,
    id: "pub_corner_grocer",
    kind: "publisher",
    name: "Corner Grocer",
    networkId: DEMO.networkId,
    sites: [{ name: "cornergrocer.com", domain: "cornergrocer.com" }],
  });
  await createAccount({
    actor: OPERATOR,
    id: "pub_city_pharmacy",
    kind: "publisher",
    name: "City Pharmacy",
    networkId: DEMO.networkId,
    sites: [{ name: "citypharmacy.com", domain: "citypharmacy.com" }],
  });

  const advertisers = [
    { id: "adv_acme_coffee", name: "Acme Coffee", sellerId: "seller-1001", wallet: 5000, dailyBudget: 200 },
    { id: "adv_northwind", name: "Northwind Outdoor", sellerId: "seller-1002", wallet: 12000, dailyBudget: 500 },
    { id: "adv_brightsmile", name: "Brightsmile Dental", sellerId: "seller-1003", wallet: 3000, dailyBudget: 150 },
  ];
  for (const a of advertisers) {
    log(`seed: advertiser ${a.name} (wallet ${a.wallet.toFixed(2)}, daily budget ${a.dailyBudget.toFixed(2)})`);
    await createAccount({
      actor: OPERATOR,
      id: a.id,
      kind: "advertiser",
      name: a.name,
      sellerId: a.sellerId,
      walletBalance: a.wallet,
      dailyBudget: a.dailyBudget,
    });
  }

  const catalogue = {
    adv_acme_coffee: [
      { sku: "ACME-BEANS-1KG", productId: "acme-beans", name: "Acme Espresso Beans 1 kg", category: "coffee", price: 24.9, image: "coffee-beans" },
      { sku: "ACME-GROUND-500", productId: "acme-ground", name: "Acme Ground Coffee 500 g", category: "coffee", price: 11.5, image: "coffee-ground" },
      { sku: "ACME-PODS-50", productId: "acme-pods", name: "Acme Coffee Pods x50", category: "coffee", price: 17.0, image: "coffee-pods" },
      // Promoted by no campaign: the history's shoppers who buy it after an Acme ad are its halo sales.
      { sku: "ACME-MUG-350", productId: "acme-mug", name: "Acme Travel Mug 350 ml", category: "coffee", price: 14.0, image: "mug" },
    ],
    adv_northwind: [
      { sku: "NW-TENT-2P", productId: "nw-tent", name: "Northwind 2-Person Tent", category: "outdoor", price: 189.0, image: "tent" },
      { sku: "NW-BOOT-42", productId: "nw-boot", name: "Northwind Trail Boot, size 42", category: "outdoor", price: 129.0, image: "boot" },
      { sku: "NW-SOCKS-3P", productId: "nw-socks", name: "Northwind Hiking Socks, 3 pairs", category: "outdoor", price: 19.0, image: "socks" },
    ],
    adv_brightsmile: [
      { sku: "BS-PASTE-100", productId: "bs-paste", name: "Brightsmile Whitening Paste", category: "health", price: 6.5, image: "toothpaste" },
      { sku: "BS-BRUSH-SOFT", productId: "bs-brush", name: "Brightsmile Soft Toothbrush", category: "health", price: 4.2, image: "toothbrush" },
    ],
  } as const;
  const products: Record<string, string[]> = {};
  for (const [advertiserId, items] of Object.entries(catalogue)) {
    products[advertiserId] = [];
    for (const item of items) {
      const product = await createProduct({
        actor: OPERATOR,
        advertiserId,
        sku: item.sku,
        productId: item.productId,
        name: item.name,
        category: item.category,
        price: item.price,
        imageUrl: `/demo/media/${item.image}.svg`,
      });
      products[advertiserId].push(product.id);
    }
    log(`seed: ${items.length} products for ${advertiserId}`);
  }
  // The retailers' word on whose each SKU is (docs/conversions.md, "Whose SKU it is"): Demo Market
  // lists its coffee and outdoor brands, City Pharmacy its dental brand; Corner Grocer lists none,
  // so there the first campaign to promote a SKU holds it.
  const listings = [
    ...catalogue.adv_acme_coffee.map((item) => ({ publisherId: DEMO.publisherId, advertiserId: "adv_acme_coffee", ...item })),
    ...catalogue.adv_northwind.map((item) => ({ publisherId: DEMO.publisherId, advertiserId: "adv_northwind", ...item })),
    ...catalogue.adv_brightsmile.map((item) => ({ publisherId: "pub_city_pharmacy", advertiserId: "adv_brightsmile", ...item })),
  ];
  for (const l of listings)
    await setCatalogueEntry({ actor: OPERATOR, publisherId: l.publisherId, sku: l.sku, productId: l.productId, advertiserId: l.advertiserId });
  log(`seed: publisher catalogues: ${listings.length} SKUs listed for their brands on Demo Market and City Pharmacy`);

  // The mug and the socks stay out of every campaign (the last product of each list).
  const acme = (products.adv_acme_coffee ?? []).slice(0, 3);
  const northwind = (products.adv_northwind ?? []).slice(0, 2);
  const bright = products.adv_brightsmile ?? [];

  log("seed: product campaign 'Acme Coffee: sponsored products' (CPC 0.40) with 2 ads");
  const acmeCampaign = await createCampaign({
    actor: OPERATOR,
    id: "cmp_acme_sponsored",
    advertiserId: "adv_acme_coffee",
    name: "Acme Coffee: sponsored products",
    type: "product",
    status: "active",
    startDate: daysFromToday(-60),
    endDate: daysFromToday(60),
    bidModel: "cpc",
    bid: 0.4,
    dailyBudget: 50,
    publisherIds: [DEMO.publisherId],
    productRefs: acme,
  });
  await createAd({
    actor: OPERATOR,
    id: "ad_acme_beans",
    campaignId: acmeCampaign.id,
    name: "Espresso beans",
    type: "product",
    productRefs: acme.slice(0, 1),
    destinationUrl: "/demo/product/ACME-BEANS-1KG",
  });
  await createAd({
    actor: OPERATOR,
    id: "ad_acme_pods",
    campaignId: acmeCampaign.id,
    name: "Coffee pods",
    type: "product",
    productRefs: acme.slice(2, 3),
    destinationUrl: "/demo/product/ACME-PODS-50",
  });

  log("seed: display campaign 'Northwind: summer banners' (CPM 20.00) with 2 ads");
  const nwCampaign = await createCampaign({
    actor: OPERATOR,
    id: "cmp_northwind_display",
    advertiserId: "adv_northwind",
    name: "Northwind: summer banners",
    type: "display",
    status: "active",
    startDate: daysFromToday(-40),
    endDate: daysFromToday(45),
    bidModel: "cpm",
    // A home-page banner's price: with the demo history's shoppers it earns a few times its spend.
    bid: 20,
    dailyBudget: 100,
    publisherIds: [DEMO.publisherId],
    productRefs: northwind,
  });
  await createAd({
    actor: OPERATOR,
    id: "ad_northwind_leaderboard",
    campaignId: nwCampaign.id,
    name: "Summer leaderboard",
    type: "banner",
    size: "728x90",
    mediaUrl: "/demo/media/banner-728x90.svg",
    destinationUrl: "/demo/product/NW-TENT-2P",
    productRefs: northwind,
  });
  await createAd({
    actor: OPERATOR,
    id: "ad_northwind_rectangle",
    campaignId: nwCampaign.id,
    name: "Summer rectangle",
    type: "banner",
    size: "300x250",
    mediaUrl: "/demo/media/banner-300x250.svg",
    destinationUrl: "/demo/product/NW-BOOT-42",
    productRefs: northwind,
  });

  log("seed: video campaign 'Brightsmile: smile spot' (CPM 12.00) on Retail Network with 1 ad");
  const bsCampaign = await createCampaign({
    actor: OPERATOR,
    id: "cmp_brightsmile_video",
    advertiserId: "adv_brightsmile",
    name: "Brightsmile: smile spot",
    type: "video",
    status: "active",
    startDate: daysFromToday(-7),
    endDate: daysFromToday(30),
    bidModel: "cpm",
    bid: 12,
    dailyBudget: 80,
    publisherIds: [DEMO.networkId],
    productRefs: bright,
  });
  await createAd({
    actor: OPERATOR,
    id: "ad_brightsmile_spot",
    campaignId: bsCampaign.id,
    name: "Smile spot 15s",
    type: "video",
    size: "640x360",
    mediaUrl: "/demo/media/video-poster.svg",
    destinationUrl: "/demo/product/BS-PASTE-100",
    productRefs: bright,
  });

  log("seed: product campaign 'Brightsmile: pharmacy shelf' (CPC 0.25) on Retail Network with 1 ad");
  const bsShelf = await createCampaign({
    actor: OPERATOR,
    id: "cmp_brightsmile_shelf",
    advertiserId: "adv_brightsmile",
    name: "Brightsmile: pharmacy shelf",
    type: "product",
    status: "active",
    startDate: daysFromToday(-7),
    endDate: daysFromToday(30),
    bidModel: "cpc",
    bid: 0.25,
    publisherIds: [DEMO.networkId],
    productRefs: bright,
  });
  await createAd({
    actor: OPERATOR,
    id: "ad_brightsmile_paste",
    campaignId: bsShelf.id,
    name: "Whitening paste",
    type: "product",
    productRefs: bright.slice(0, 1),
    destinationUrl: "/demo/product/BS-PASTE-100",
  });

  await createUser({ email: DEMO.staffEmail, name: "Demo Account Manager", password: DEMO.staffPassword, role: "staff" });
  log(`seed: staff user ${DEMO.staffEmail} / password ${DEMO.staffPassword} (local demo only)`);
  await createUser({
    email: DEMO.advertiserEmail,
    name: "Acme Coffee Marketing",
    password: DEMO.advertiserPassword,
    role: "member",
    accountId: DEMO.advertiserId,
    memberRole: "admin",
  });
  log(`seed: Acme Coffee user ${DEMO.advertiserEmail} / password ${DEMO.advertiserPassword} (advertiser admin, local demo only)`);
  await createUser({
    email: DEMO.publisherEmail,
    name: "Demo Market Retail Media",
    password: DEMO.publisherPassword,
    role: "member",
    accountId: DEMO.publisherId,
    memberRole: "admin",
  });
  log(`seed: Demo Market user ${DEMO.publisherEmail} / password ${DEMO.publisherPassword} (publisher admin, local demo only)`);
  log("seed: done");
}
