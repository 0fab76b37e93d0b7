// One file over 300 lines on purpose: one table of every kind of change the log records, each case a few lines.
// Every kind of change the activity log records, one after another through the same domain
// functions the dashboard calls: each writes one entry, newest first, with its account, its
// campaign where it has one, and the changed fields only, before and after; and no secret a
// change made or received is ever in the log.
import { beforeAll, describe, expect, it } from "vitest";
import { OPERATOR } from "@/server/accounts/actor";
import { createApiKey, revokeApiKey } from "@/server/accounts/api-keys";
import { createAccount } from "@/server/accounts/create-account";
import { createUser } from "@/server/accounts/create-user";
import { listActivity } from "@/server/accounts/list-activity";
import { addSite, setDailyBudget, topUpWallet } from "@/server/accounts/manage-account";
import { createOauthClient, revokeOauthClient, rotateOauthClientSecret } from "@/server/accounts/oauth-clients";
import { signIn, type Viewer } from "@/server/accounts/sessions";
import { createAd } from "@/server/campaigns/create-ad";
import { createCampaign } from "@/server/campaigns/create-campaign";
import { createProduct } from "@/server/campaigns/create-product";
import { removeCatalogueEntry, setCatalogueEntry } from "@/server/campaigns/publisher-catalogue";
import { setAdStatus, updateAd } from "@/server/campaigns/update-ad";
import { campaignSettings, setCampaignStatus, updateCampaign } from "@/server/campaigns/update-campaign";
import { db } from "@/server/db/client";
import { updateConversionTrust } from "@/server/pipeline/accept/conversions/conversion-trust";
import { rotateSigningSecret } from "@/server/pipeline/accept/conversions/signing-secrets";
import { setAttributionWindows, setCampaignWindows } from "@/server/pipeline/attribute/attribution-windows";
import { SECRET_MASK } from "@/server/pipeline/export/destinations/destination-input";
import { createDestination, deleteDestination, markNeedsAttention, updateDestination } from "@/server/pipeline/export/destinations/destinations";
import { daysFromToday, makePublisher } from "@/testing/fixtures";

let staff: Viewer;
let brandUser: Viewer;
let publisherId: string;
let publisherName: string;
let brandId: string;
let campaignId: string;
let adId: string;
let productId: string;
let keyId: string;
let clientId: string;
let destinationId: string;
/** Every secret the changes below make or receive: none may reach the log. */
const secrets: string[] = [];

async function viewer(email: string, name: string, role: "staff" | "member", accountId?: string): Promise<Viewer> {
  await createUser({ email, name, password: "correct horse battery", role, accountId });
  return (await signIn(email, "correct horse battery")).viewer;
}

const destination = (overrides: object = {}) => ({
  accountId: brandId,
  name: "Lake",
  bucket: "brand-lake",
  region: "us-east-1",
  endpoint: "http://127.0.0.1:9",
  forcePathStyle: true,
  credentials: { kind: "access_key" as const, accessKeyId: "AKIABRANDLAKE0001", secretAccessKey: "first-secret-access-key-never-logged" },
  types: ["advertisers" as const],
  ...overrides,
});

interface Case {
  action: string;
  change: () => Promise<unknown>;
  /** The entry the change wrote; the subject is matched as a part. */
  entry: () => { subject: string; accountId: string | null; campaignId?: string | null; before: unknown; after: unknown; actor?: string };
}

// Run in order: each case builds on what the ones before it made.
const CASES: Case[] = [
  {
    action: "account.created",
    change: async () => {
      brandId = (await createAccount({ actor: staff, kind: "advertiser", name: "Roastery", walletBalance: 10 })).id;
      brandUser = await viewer("barista@roastery.test", "Bea Barista", "member", brandId);
    },
    entry: () => ({
      subject: "advertiser Roastery",
      accountId: brandId,
      actor: "Avery Manager <avery@tally.test>",
      before: null,
      after: { kind: "advertiser", name: "Roastery", currency: "USD", walletBalance: 10, dailyBudget: null, networkId: null, sites: [] },
    }),
  },
  {
    action: "account.wallet.topped_up",
    change: () => topUpWallet({ actor: staff, accountId: brandId, amount: 25.5 }),
    entry: () => ({ subject: "wallet of Roastery", accountId: brandId, before: { walletBalance: 10 }, after: { walletBalance: 35.5 } }),
  },
  {
    action: "account.daily_budget.set",
    change: () => setDailyBudget({ actor: brandUser, accountId: brandId, dailyBudget: 80 }),
    entry: () => ({
      subject: "daily budget of Roastery",
      accountId: brandId,
      actor: "Bea Barista <barista@roastery.test>",
      before: { dailyBudget: null },
      after: { dailyBudget: 80 },
    }),
  },
  {
    action: "account.site.added",
    change: () => addSite({ actor: staff, accountId: publisherId, name: "outlet", domain: "outlet.example" }),
    entry: () => ({ subject: "site outlet", accountId: publisherId, before: null, after: { name: "outlet", domain: "outlet.example" } }),
  },
  {
    action: "account.conversion_trust.set",
    change: () => updateConversionTrust({ actor: staff, publisherId, creditUnverified: true, maxOrderTotal: 500, maxLineQuantity: null }),
    entry: () => ({
      subject: "conversion settings of",
      accountId: publisherId,
      before: { creditUnverified: false, maxOrderTotal: null },
      after: { creditUnverified: true, maxOrderTotal: 500 },
    }),
  },
  {
    action: "account.signing_secret.rotated",
    change: async () => secrets.push((await rotateSigningSecret({ actor: staff, publisherId })).secret),
    entry: () => ({ subject: "order-signing secret", accountId: publisherId, before: null, after: { secret: "changed", previousSecret: "none" } }),
  },
  {
    action: "product.created",
    change: async () => {
      productId = (await createProduct({ actor: brandUser, advertiserId: brandId, sku: "BEANS-1", name: "Beans", price: 12.5 })).id;
    },
    entry: () => ({
      subject: "product Beans",
      accountId: brandId,
      before: null,
      after: { sku: "BEANS-1", productId: null, name: "Beans", category: null, price: 12.5 },
    }),
  },
  {
    action: "campaign.created",
    change: async () => {
      const made = await createCampaign({
        actor: brandUser,
        advertiserId: brandId,
        name: "Morning",
        type: "product",
        status: "paused",
        startDate: daysFromToday(0),
        bidModel: "cpc",
        bid: 1.5,
        dailyBudget: 50,
        publisherIds: [publisherId],
        productRefs: [productId],
      });
      campaignId = made.id;
    },
    entry: () => ({
      subject: `campaign Morning (${campaignId})`,
      accountId: brandId,
      campaignId,
      before: null,
      after: {
        name: "Morning",
        type: "product",
        status: "paused",
        startDate: daysFromToday(0),
        endDate: null,
        bidModel: "cpc",
        bid: 1.5,
        dailyBudget: 50,
        publisherIds: [publisherId],
        productRefs: [productId],
      },
    }),
  },
  {
    action: "campaign.updated",
    change: async () => {
      const { id: _id, advertiserId: _advertiser, ...settings } = await campaignSettings({ actor: brandUser, id: campaignId });
      await updateCampaign({ actor: brandUser, id: campaignId, settings: { ...settings, dailyBudget: 80, bid: 2 } });
    },
    entry: () => ({ subject: "campaign Morning", accountId: brandId, campaignId, before: { bid: 1.5, dailyBudget: 50 }, after: { bid: 2, dailyBudget: 80 } }),
  },
  {
    action: "campaign.status.set",
    change: () => setCampaignStatus({ actor: brandUser, id: campaignId, status: "draft" }),
    entry: () => ({ subject: "campaign Morning", accountId: brandId, campaignId, before: { status: "paused" }, after: { status: "draft" } }),
  },
  {
    action: "campaign.windows.set",
    change: () => setCampaignWindows({ actor: staff, campaignId, clickDays: 7, viewDays: null }),
    entry: () => ({
      subject: "campaign Morning",
      accountId: brandId,
      campaignId,
      before: { clickDays: null, viewDays: null },
      after: { clickDays: 7, viewDays: null },
    }),
  },
  {
    action: "ad.created",
    change: async () => {
      adId = (await createAd({ actor: brandUser, campaignId, name: "Beans tile", type: "product", productRefs: [productId] })).id;
    },
    entry: () => ({
      subject: "ad Beans tile",
      accountId: brandId,
      campaignId,
      before: null,
      after: { name: "Beans tile", type: "product", size: null, mediaUrl: null, destinationUrl: null, status: "active", productRefs: [productId] },
    }),
  },
  {
    action: "ad.updated",
    change: () =>
      updateAd({ actor: brandUser, id: adId, settings: { name: "Beans tile 2", type: "product", destinationUrl: "/beans", productRefs: [productId] } }),
    entry: () => ({
      subject: "ad Beans tile 2",
      accountId: brandId,
      campaignId,
      before: { name: "Beans tile", destinationUrl: null },
      after: { name: "Beans tile 2", destinationUrl: "/beans" },
    }),
  },
  {
    action: "ad.status.set",
    change: () => setAdStatus({ actor: brandUser, id: adId, status: "paused" }),
    entry: () => ({ subject: "ad Beans tile 2", accountId: brandId, campaignId, before: { status: "active" }, after: { status: "paused" } }),
  },
  {
    action: "api_key.created",
    change: async () => {
      const made = await createApiKey({ actor: brandUser, accountId: brandId, name: "Warehouse" });
      keyId = made.id;
      secrets.push(made.key);
    },
    entry: () => ({ subject: `API key Warehouse (${keyId})`, accountId: brandId, before: null, after: { name: "Warehouse" } }),
  },
  {
    action: "api_key.revoked",
    change: () => revokeApiKey({ actor: brandUser, keyId, accountId: brandId }, new Date("2026-11-20T10:00:00Z")),
    entry: () => ({ subject: "API key Warehouse", accountId: brandId, before: { revokedAt: null }, after: { revokedAt: "2026-11-20T10:00:00.000Z" } }),
  },
  {
    action: "oauth_client.created",
    change: async () => {
      const made = await createOauthClient({ actor: brandUser, accountId: brandId, name: "BI tool", scopes: ["reports:read"] });
      clientId = made.id;
      secrets.push(made.secret);
    },
    entry: () => ({ subject: `OAuth client BI tool (${clientId})`, accountId: brandId, before: null, after: { name: "BI tool", scopes: ["reports:read"] } }),
  },
  {
    action: "oauth_client.rotated",
    change: async () => secrets.push((await rotateOauthClientSecret({ actor: brandUser, clientId })).secret),
    entry: () => ({ subject: "OAuth client BI tool", accountId: brandId, before: null, after: { secret: "changed" } }),
  },
  {
    action: "oauth_client.revoked",
    change: () => revokeOauthClient({ actor: brandUser, clientId }, new Date("2026-11-20T11:00:00Z")),
    entry: () => ({ subject: "OAuth client BI tool", accountId: brandId, before: { revokedAt: null }, after: { revokedAt: "2026-11-20T11:00:00.000Z" } }),
  },
  {
    action: "export_destination.created",
    change: async () => {
      destinationId = (await createDestination(destination(), { actor: brandUser, allowPrivateEndpoints: true })).id;
    },
    entry: () => ({
      subject: `export destination Lake (${destinationId})`,
      accountId: brandId,
      before: null,
      after: {
        name: "Lake",
        bucket: "brand-lake",
        region: "us-east-1",
        endpoint: "http://127.0.0.1:9",
        forcePathStyle: true,
        prefix: "",
        credentialKind: "access_key",
        roleArn: null,
        writeSuccessMarker: true,
        aggregateLayout: "interface",
        types: ["advertisers"],
        status: "active",
        accessKey: "set",
      },
    }),
  },
  {
    action: "export_destination.updated",
    change: () =>
      updateDestination(
        destinationId,
        destination({
          bucket: "brand-lake-2",
          credentials: { kind: "access_key", accessKeyId: "AKIABRANDLAKE0002", secretAccessKey: "second-secret-access-key" },
        }),
        { actor: brandUser, allowPrivateEndpoints: true },
      ),
    entry: () => ({
      subject: "export destination Lake",
      accountId: brandId,
      before: { bucket: "brand-lake", accessKey: "unchanged" },
      after: { bucket: "brand-lake-2", accessKey: "changed" },
    }),
  },
  {
    action: "export_destination.enabled",
    change: async () => {
      await markNeedsAttention(destinationId, "access denied");
      const again = destination({
        bucket: "brand-lake-2",
        credentials: { kind: "access_key", accessKeyId: "AKIABRANDLAKE0002", secretAccessKey: SECRET_MASK },
      });
      await updateDestination(destinationId, again, { actor: brandUser, allowPrivateEndpoints: true });
    },
    entry: () => ({ subject: "export destination Lake", accountId: brandId, before: { status: "needs_attention" }, after: { status: "active" } }),
  },
  {
    action: "export_destination.deleted",
    change: () => deleteDestination(destinationId, { actor: brandUser }),
    entry: () => ({
      subject: "export destination Lake",
      accountId: brandId,
      before: expect.objectContaining({ name: "Lake", bucket: "brand-lake-2", credentialKind: "access_key" }),
      after: null,
    }),
  },
  {
    action: "catalogue.entry.set",
    change: () => setCatalogueEntry({ actor: staff, publisherId, sku: "BEANS-1", advertiserId: brandId }),
    entry: () => ({
      subject: `SKU BEANS-1 in the catalogue of ${publisherName}`,
      accountId: publisherId,
      before: null,
      after: { advertiserId: brandId, productId: null },
    }),
  },
  {
    action: "catalogue.entry.removed",
    change: () => removeCatalogueEntry({ actor: staff, publisherId, sku: "BEANS-1" }),
    entry: () => ({
      subject: `SKU BEANS-1 in the catalogue of ${publisherName}`,
      accountId: publisherId,
      before: { advertiserId: brandId, productId: null },
      after: null,
    }),
  },
  {
    action: "attribution.windows.set",
    change: () => setAttributionWindows({ actor: OPERATOR, campaignType: "display", clickDays: 10, viewDays: 3, viewThrough: "views_only" }),
    entry: () => ({
      subject: "display campaigns",
      accountId: null,
      actor: "operator",
      before: { clickDays: 14, viewDays: 14, viewThrough: "views_and_impressions" },
      after: { clickDays: 10, viewDays: 3, viewThrough: "views_only" },
    }),
  },
];

beforeAll(async () => {
  staff = await viewer("avery@tally.test", "Avery Manager", "staff");
  ({ id: publisherId, name: publisherName } = await makePublisher());
});

describe("each kind of change", () => {
  it.each(CASES.map((c, i) => [c.action, i] as const))("%s writes one entry with the changed fields before and after", async (_action, i) => {
    const c = CASES[i]!;
    const [last] = (await listActivity({ actor: staff, limit: 1 })).entries;
    await c.change();
    const { entries } = await listActivity({ actor: staff, limit: 5 });
    const written = entries.filter((entry) => last === undefined || BigInt(entry.id) > BigInt(last.id));
    // Signing a user in or up writes nothing; the change itself writes exactly its entry.
    expect(written.filter((entry) => !entry.action.startsWith("user."))).toHaveLength(1);
    const expected = c.entry();
    expect(written.find((entry) => entry.action === c.action)).toMatchObject({
      action: c.action,
      subject: expect.stringContaining(expected.subject),
      accountId: expected.accountId,
      campaignId: expected.campaignId ?? null,
      before: expected.before,
      after: expected.after,
      actor: expected.actor ?? expect.any(String),
    });
    // Exactly the changed fields: nothing unchanged rides along.
    const entry = written.find((e) => e.action === c.action)!;
    if (expected.before !== null && expected.after !== null && entry.before && entry.after) {
      expect(Object.keys(entry.before as object).sort()).toEqual(Object.keys(expected.before as object).sort());
    }
  });

  it("an edit that changes nothing writes no entry", async () => {
    const before = await db.activityEntry.count();
    const { id: _id, advertiserId: _advertiser, ...settings } = await campaignSettings({ actor: brandUser, id: campaignId });
    await updateCampaign({ actor: brandUser, id: campaignId, settings: { ...settings, publisherIds: [...settings.publisherIds].reverse() } });
    await setDailyBudget({ actor: brandUser, accountId: brandId, dailyBudget: 80 });
    await revokeApiKey({ actor: brandUser, keyId });
    // The windows in force, saved again (the cases above set them).
    await setAttributionWindows({ actor: OPERATOR, campaignType: "display", clickDays: 10, viewDays: 3, viewThrough: "views_only" });
    await setCampaignWindows({ actor: staff, campaignId, clickDays: 7, viewDays: null });
    expect(await db.activityEntry.count()).toBe(before);
  });

  it("keeps no secret: not an API key, an OAuth or signing secret, an access key or its id", async () => {
    const log = JSON.stringify(await db.activityEntry.findMany(), (_key, value) => (typeof value === "bigint" ? String(value) : value));
    const hashes = (await db.apiKey.findMany({ select: { keyHash: true, prefix: true } })).flatMap((k) => [k.keyHash, k.prefix]);
    const clients = (await db.oauthClient.findMany({ select: { secretHash: true } })).map((c) => c.secretHash);
    expect(secrets.length).toBeGreaterThanOrEqual(4);
    for (const secret of [...secrets, ...hashes, ...clients, "first-secret-access-key", "second-secret-access-key", "AKIABRANDLAKE"]) {
      expect(log).not.toContain(secret);
    }
  });
});
