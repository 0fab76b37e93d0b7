// The conversion settings' procedures through the tRPC caller: thin calls into the domain, whose
// rules they keep (a publisher's members and staff only), and a signing secret in clear exactly once.
import { beforeAll, describe, expect, it } from "vitest";
import { createUser } from "@/server/accounts/create-user";
import { signIn, type Viewer } from "@/server/accounts/sessions";
import { liveSigningSecrets } from "@/server/pipeline/accept/conversions/signing-secrets";
import { makeAdvertiser, makePublisher } from "@/testing/fixtures";
import { createCaller } from "../root";

let staff: Viewer;
let member: Viewer;
let brandMember: Viewer;
let shopId: string;
const as = (v: Viewer | null) => createCaller({ viewer: v });

beforeAll(async () => {
  shopId = (await makePublisher()).id;
  const brandId = (await makeAdvertiser()).id;
  await createUser({ email: "staff@trust.test", name: "Staff", password: "correct horse battery", role: "staff" });
  await createUser({ email: "shop@trust.test", name: "Shop", password: "correct horse battery", role: "member", accountId: shopId });
  await createUser({ email: "brand@trust.test", name: "Brand", password: "correct horse battery", role: "member", accountId: brandId });
  staff = (await signIn("staff@trust.test", "correct horse battery")).viewer;
  member = (await signIn("shop@trust.test", "correct horse battery")).viewer;
  brandMember = (await signIn("brand@trust.test", "correct horse battery")).viewer;
});

describe("conversionTrust procedures", () => {
  it("read and set the requirement and limits, and show a new signing secret once", async () => {
    expect(await as(member).conversionTrust.get({ publisherId: shopId })).toMatchObject({
      creditUnverified: false,
      maxOrderTotal: null,
      maxLineQuantity: null,
      defaults: { maxOrderTotal: 100_000, maxLineQuantity: 1_000 },
      secrets: [],
    });
    const saved = await as(member).conversionTrust.update({ publisherId: shopId, creditUnverified: true, maxOrderTotal: 2_500.5, maxLineQuantity: 12 });
    expect(saved).toMatchObject({ creditUnverified: true, maxOrderTotal: 2_500.5, maxLineQuantity: 12 });

    const made = await as(member).conversionTrust.rotateSecret({ publisherId: shopId });
    expect(made.secret).toMatch(/^tss_[A-Za-z0-9_-]{43}$/);
    expect(made.previous).toBeNull();
    const rotated = await as(staff).conversionTrust.rotateSecret({ publisherId: shopId });
    expect(rotated.previous?.id).toBe(made.current.id);
    const read = await as(member).conversionTrust.get({ publisherId: shopId });
    expect(read.secrets.map((s) => [s.id, s.prefix, s.retiresAt === null])).toEqual([
      [rotated.current.id, rotated.secret.slice(0, 10), true],
      [made.current.id, made.secret.slice(0, 10), false],
    ]);
    expect(JSON.stringify(read)).not.toContain(made.secret);
    expect(JSON.stringify(read)).not.toContain(rotated.secret);
    // What intake verifies tokens with: the two secrets, the new one current.
    expect((await liveSigningSecrets(shopId, Date.now(), true)).map((s) => [s.secret, s.current])).toEqual([
      [rotated.secret, true],
      [made.secret, false],
    ]);
  });

  it("give another account's members nothing, refuse bad input, and nothing signed out", async () => {
    await expect(as(brandMember).conversionTrust.get({ publisherId: shopId })).rejects.toMatchObject({ code: "NOT_FOUND" });
    await expect(as(brandMember).conversionTrust.rotateSecret({ publisherId: shopId })).rejects.toMatchObject({ code: "NOT_FOUND" });
    await expect(
      as(brandMember).conversionTrust.update({ publisherId: shopId, creditUnverified: false, maxOrderTotal: null, maxLineQuantity: null }),
    ).rejects.toMatchObject({ code: "NOT_FOUND" });
    await expect(
      as(staff).conversionTrust.update({ publisherId: shopId, creditUnverified: false, maxOrderTotal: -1, maxLineQuantity: null }),
    ).rejects.toMatchObject({
      code: "BAD_REQUEST",
    });
    await expect(as(null).conversionTrust.get({ publisherId: shopId })).rejects.toMatchObject({ code: "UNAUTHORIZED" });
    expect((await as(staff).conversionTrust.get({ publisherId: shopId })).creditUnverified).toBe(true);
  });
});
