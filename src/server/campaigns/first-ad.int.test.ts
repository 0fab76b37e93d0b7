// A campaign goes live only with something to serve: a person cannot make a campaign without an
// ad active (creating it so, editing it so, or resuming it), and its first ad can start it. The
// operator (seed, fixtures) builds a campaign and its ads together and is left alone.
import { beforeAll, describe, expect, it } from "vitest";
import { OPERATOR } from "@/server/accounts/actor";
import type { Viewer } from "@/server/accounts/sessions";
import { db } from "@/server/db/client";
import { makeAdvertiser, makePublisher } from "@/testing/fixtures";
import { NO_AD_YET } from "./campaign-references";
import { createAd } from "./create-ad";
import { createCampaign } from "./create-campaign";
import { setAdStatus, updateAd } from "./update-ad";
import { campaignSettings, setCampaignStatus, updateCampaign } from "./update-campaign";

const staff: Viewer = { userId: "usr_first_ad", email: "staff@first-ad.test", name: "Staff", role: "staff", accountId: null };
const noAd = { code: "bad_request", message: `status: ${NO_AD_YET}`, details: { fieldErrors: { status: NO_AD_YET } } };
const banner = { type: "banner" as const, size: "300x250", mediaUrl: "/demo/media/banner-300x250.svg" };

let shop: Awaited<ReturnType<typeof makePublisher>>;
let brand: Awaited<ReturnType<typeof makeAdvertiser>>;
const settings = (status: "draft" | "active" | "paused") => ({
  name: `Launch ${status}`,
  type: "display" as const,
  status,
  startDate: "2026-12-01",
  bidModel: "cpm" as const,
  bid: 4,
  publisherIds: [shop.id],
});
const statusOf = async (id: string) => (await db.campaign.findUniqueOrThrow({ where: { id } })).status;

beforeAll(async () => {
  [shop, brand] = [await makePublisher(), await makeAdvertiser()];
});

describe("a campaign without an ad", () => {
  it("starts as a draft when nothing is said, and may not be created active by a person", async () => {
    const { status: _left, ...unsaid } = settings("draft");
    expect((await createCampaign({ actor: staff, advertiserId: brand.id, ...unsaid })).status).toBe("draft");
    await expect(createCampaign({ actor: staff, advertiserId: brand.id, ...settings("active") })).rejects.toMatchObject(noAd);
    expect(await db.campaign.count({ where: { advertiserId: brand.id, name: "Launch active" } })).toBe(0);
    // The seed and fixtures build the campaign and its ads in one go.
    expect((await createCampaign({ actor: OPERATOR, advertiserId: brand.id, ...settings("active") })).status).toBe("active");
  });

  it("may not be resumed or edited into active until it has an ad that is not archived", async () => {
    const { id } = await createCampaign({ actor: staff, advertiserId: brand.id, ...settings("paused") });
    await expect(setCampaignStatus({ actor: staff, id, status: "active" })).rejects.toMatchObject(noAd);
    await expect(updateCampaign({ actor: staff, id, settings: { ...(await campaignSettings({ actor: staff, id })), status: "active" } })).rejects.toMatchObject(
      noAd,
    );
    expect(await statusOf(id)).toBe("paused");
    const ad = await createAd({ actor: staff, campaignId: id, name: "Only", ...banner });
    // A new ad never resumes a paused campaign, even when asked to start it: only a draft starts.
    await createAd({ actor: staff, campaignId: id, name: "Second", ...banner, activateCampaign: true });
    expect(await statusOf(id)).toBe("paused");
    await setAdStatus({ actor: staff, id: ad.id, status: "paused" });
    await setCampaignStatus({ actor: staff, id, status: "active" });
    expect(await statusOf(id)).toBe("active");
    // Already active, it keeps being edited, whatever its ads became since.
    await updateAd({ actor: staff, id: ad.id, settings: { name: "Only", ...banner, status: "archived" } });
    await updateCampaign({ actor: staff, id, settings: { ...(await campaignSettings({ actor: staff, id })), bid: 5 } });
    expect(await statusOf(id)).toBe("active");
  });

  it("is started by its first ad when asked, and the start is in the activity log", async () => {
    const { id } = await createCampaign({ actor: staff, advertiserId: brand.id, ...settings("draft") });
    await createAd({ actor: staff, campaignId: id, name: "Paused first", ...banner, status: "paused", activateCampaign: true });
    expect(await statusOf(id)).toBe("draft");
    await createAd({ actor: staff, campaignId: id, name: "Live", ...banner, activateCampaign: true });
    expect(await statusOf(id)).toBe("active");
    const started = await db.activityEntry.findFirst({ where: { campaignId: id, action: "campaign.status.set" } });
    expect(started).toMatchObject({ actorName: "Staff <staff@first-ad.test>", before: { status: "draft" }, after: { status: "active" } });
  });

  it("stays a draft when its first ad is added without asking to start it", async () => {
    const { id } = await createCampaign({ actor: staff, advertiserId: brand.id, ...settings("draft") });
    await createAd({ actor: staff, campaignId: id, name: "Quiet", ...banner });
    expect(await statusOf(id)).toBe("draft");
  });
});
