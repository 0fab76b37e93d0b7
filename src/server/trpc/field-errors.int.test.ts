// Refusals reach the dashboard with the fields they are about, as the browser receives them over
// HTTP: `data.fieldErrors`, from the input's zod schema (each issue under its field's last name)
// and from the domain (TallyError's fieldErrors), so forms never read fields out of a message.
import { beforeAll, describe, expect, it } from "vitest";
import { createUser } from "@/server/accounts/create-user";
import { signIn } from "@/server/accounts/sessions";
import { NO_AD_YET } from "@/server/campaigns/campaign-references";
import { SECRET_MASK } from "@/server/pipeline/export/destinations/destination-input";
import { makeAdvertiser, makeCampaignWithAd, makePublisher } from "@/testing/fixtures";
import { handleTrpcRequest } from "./http-handler";

const DASHBOARD = "http://localhost:3000";
let token: string;
let brandId: string;
let shopId: string;

beforeAll(async () => {
  [brandId, shopId] = [(await makeAdvertiser()).id, (await makePublisher()).id];
  await createUser({ email: "staff@field-errors.test", name: "Staff", password: "correct horse battery", role: "staff" });
  token = (await signIn("staff@field-errors.test", "correct horse battery")).token;
});

/** A mutation as the dashboard's client posts it (superjson: the input under `json`); the error as the browser reads it. */
async function refusal(path: string, input: unknown) {
  const response = await handleTrpcRequest(
    new Request(`${DASHBOARD}/api/trpc/${path}`, {
      method: "POST",
      headers: { Host: "localhost:3000", "Content-Type": "application/json", Cookie: `tally_session=${token}`, "Sec-Fetch-Site": "same-origin" },
      body: JSON.stringify({ json: input }),
    }),
  );
  const body = (await response.json()) as { error: { json: { message: string; data: { code: string; fieldErrors: Record<string, string> | null } } } };
  return { status: response.status, message: body.error.json.message, code: body.error.json.data.code, fieldErrors: body.error.json.data.fieldErrors };
}

const campaign = { name: "Fields", type: "display", startDate: "2026-12-01", bidModel: "cpc", bid: 0.5, publisherIds: [] as string[] };

describe("field errors over tRPC", () => {
  it("carry the schema's problems by field, nested ones under their own name", async () => {
    expect(await refusal("campaigns.create", { advertiserId: brandId, ...campaign, bid: "lots" })).toEqual({
      status: 400,
      code: "BAD_REQUEST",
      message: "bid must be a number; publisherIds pick at least one publisher",
      fieldErrors: { bid: "must be a number", publisherIds: "pick at least one publisher" },
    });
    const settings = { ...campaign, publisherIds: [shopId], endDate: "2026-11-01" };
    expect(await refusal("campaigns.update", { id: "cmp_none", settings })).toMatchObject({
      status: 400,
      fieldErrors: { endDate: "must not be before the start date" },
    });
  });

  it("carry the domain's refusals by field, with the message as it was", async () => {
    expect(await refusal("campaigns.create", { advertiserId: brandId, ...campaign, status: "active", publisherIds: [shopId] })).toEqual({
      status: 400,
      code: "BAD_REQUEST",
      message: `status: ${NO_AD_YET}`,
      fieldErrors: { status: NO_AD_YET },
    });
    const { campaign: display } = await makeCampaignWithAd({ advertiserId: brandId, publisherIds: [shopId] });
    expect(await refusal("ads.create", { campaignId: display.id, name: "Tile", type: "product" })).toMatchObject({
      status: 400,
      fieldErrors: { type: "a display campaign runs banner ads, not product ads" },
    });
    expect(await refusal("accounts.topUp", { accountId: brandId, amount: 999_999_999 })).toMatchObject({
      status: 400,
      fieldErrors: { amount: expect.any(String) },
    });
    // A new destination has no stored secret for the mask to keep: the refusal is the secret field's.
    const destination = {
      accountId: brandId,
      name: "Lake",
      bucket: "field-errors-bucket",
      region: "us-east-1",
      endpoint: null,
      forcePathStyle: false,
      prefix: "tally",
      credentials: { kind: "access_key", accessKeyId: "AKIAFIELDERRORS", secretAccessKey: SECRET_MASK },
      types: ["advertisers"],
    };
    expect(await refusal("exportDestinations.create", destination)).toEqual({
      status: 400,
      code: "BAD_REQUEST",
      message: "credentials.secretAccessKey is required",
      fieldErrors: { secretAccessKey: "is required" },
    });
  });

  it("carry none for a refusal about no field", async () => {
    expect(await refusal("accounts.topUp", { accountId: shopId, amount: 5 })).toEqual({
      status: 400,
      code: "BAD_REQUEST",
      message: "only advertisers have a wallet",
      fieldErrors: null,
    });
  });
});
