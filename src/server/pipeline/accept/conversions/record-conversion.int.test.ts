// One file over 300 lines on purpose: the conversion route's every answer (202, repeats, 4xx, 422 bodies) against one reference validator.

import { createHash } from "node:crypto";
import { Ajv } from "ajv";
import { default as addFormats } from "ajv-formats";
import { describe, expect, it } from "vitest";
import { addStringFormats } from "@/contracts/string-formats";
import { db } from "@/server/db/client";
import { postConversion } from "@/testing/events-client";
import { makePublisher } from "@/testing/fixtures";
import { recordAndSettleConversion } from "@/testing/settle";
import { conversionBodySchema, EMPTY_STRING_SHA256 } from "./conversion-body.schema";
import { ACCEPTED_MESSAGE } from "./record-conversion";

const sha256 = (value: string) => createHash("sha256").update(value).digest("hex");

// Ajv as a retailer's own tooling would run it on the published schema: a separate instance, so
// the golden comparisons do not share state with the route's validator.
const referenceAjv = new Ajv({ allErrors: true });
addFormats(referenceAjv, ["date-time"]);
addStringFormats(referenceAjv);
const referenceValidate = referenceAjv.compile(conversionBodySchema);
function ajvErrorsFor(body: unknown) {
  expect(referenceValidate(body)).toBe(false);
  return referenceValidate.errors;
}

let orderSequence = 0;
function order(publisherId: string, overrides: Record<string, unknown> = {}) {
  orderSequence += 1;
  return {
    publisher_id: publisherId,
    user_id: "user-1",
    session_id: "sess-1",
    order_id: `order-${Date.now()}-${orderSequence}`,
    created_at: new Date().toISOString(),
    channel: "online store",
    email_hashed: sha256("shopper@example.com"),
    items: [
      { sku: "SKU-1", quantity: 2, price: 10.5, promotional_price: 9.99, seller_id: null, product_id: "P-1" },
      { sku: "SKU-2", quantity: 0.5, price: 4, promotional_price: 4 },
    ],
    ...overrides,
  };
}

const storedOrders = (publisherId: string, orderId: string) => db.conversion.findMany({ where: { publisherId, orderId } });
const skusOf = (conversion: { items: unknown }) => (conversion.items as { sku: string }[]).map((item) => item.sku);

describe("POST /v1/beacon/conversion", () => {
  it("stores the order and its items, then answers 202 with messages", async () => {
    const publisher = await makePublisher();
    const body = order(publisher.id, { gender: "F", uf: "SP", city: "São Paulo", is_company: false, phone_hashed: sha256("+5511999990000").toUpperCase() });
    const response = await postConversion(body);
    expect(response.status).toBe(202);
    expect(response.body).toEqual({ messages: [ACCEPTED_MESSAGE], verified: false });

    const [stored, ...others] = await storedOrders(publisher.id, body.order_id);
    expect(others).toEqual([]);
    expect(stored).toMatchObject({
      userId: "user-1",
      sessionId: "sess-1",
      channel: "online store",
      site: publisher.sites[0]!.name,
      placedAt: new Date(body.created_at),
      gender: "F",
      uf: "SP",
      city: "São Paulo",
      isCompany: false,
      emailHashed: body.email_hashed,
      phoneHashed: sha256("+5511999990000"),
      socialIdHashed: null,
      attributedAt: null,
    });
    expect(stored!.items).toEqual([
      { sku: "SKU-1", product_id: "P-1", seller_id: null, quantity: 2, price_micros: 10_500_000, promotional_price_micros: 9_990_000 },
      { sku: "SKU-2", product_id: null, seller_id: null, quantity: 0.5, price_micros: 4_000_000, promotional_price_micros: 4_000_000 },
    ]);
  });

  it("accepts text/plain (a sendBeacon string) and ignores properties it does not know", async () => {
    const publisher = await makePublisher();
    const body = order(publisher.id, { coupon: "WELCOME10" });
    const response = await postConversion(JSON.stringify(body), { contentType: "text/plain;charset=UTF-8" });
    expect(response.status).toBe(202);
    expect(await storedOrders(publisher.id, body.order_id)).toHaveLength(1);
  });

  it("converts a created_at with an offset to UTC", async () => {
    const publisher = await makePublisher();
    // An hour ago, written as São Paulo's local time.
    const placed = new Date(Math.floor(Date.now() / 1000) * 1000 - 3_600_000 + 250);
    const local = new Date(placed.getTime() - 3 * 3_600_000).toISOString().replace("Z", "-03:00");
    const body = order(publisher.id, { created_at: local });
    expect((await postConversion(body)).status).toBe(202);
    const [stored] = await storedOrders(publisher.id, body.order_id);
    expect(stored!.placedAt.toISOString()).toBe(placed.toISOString());
  });

  it("ignores a repeated order_id of the same publisher, with a message, and changes nothing", async () => {
    const publisher = await makePublisher();
    const first = order(publisher.id);
    expect((await postConversion(first)).status).toBe(202);
    const repeat = { ...first, user_id: "someone-else", items: [{ sku: "OTHER", quantity: 1, price: 1, promotional_price: 1 }] };
    const response = await postConversion(repeat);
    expect(response.status).toBe(202);
    expect(response.body).toEqual({ verified: false, messages: [`Order ${first.order_id} was already received in the last 30 days; this copy was ignored.`] });
    const stored = await storedOrders(publisher.id, first.order_id);
    expect(stored).toHaveLength(1);
    expect(stored[0]!.userId).toBe("user-1");
    expect(skusOf(stored[0]!)).toEqual(["SKU-1", "SKU-2"]);

    // The same order id at another publisher is another order.
    const otherPublisher = await makePublisher();
    expect((await postConversion({ ...first, publisher_id: otherPublisher.id })).body).toEqual({ messages: [ACCEPTED_MESSAGE], verified: false });
  });

  it("stores one order when identical copies arrive at the same instant", async () => {
    const publisher = await makePublisher();
    const body = order(publisher.id);
    // Same batch of the group commit, and separate batches in flight together.
    const answers = await Promise.all(Array.from({ length: 20 }, () => postConversion(body)));
    expect(answers.map((a) => a.status)).toEqual(Array(20).fill(202));
    expect(answers.filter((a) => JSON.stringify(a.body) === JSON.stringify({ messages: [ACCEPTED_MESSAGE], verified: false }))).toHaveLength(1);
    const stored = await storedOrders(publisher.id, body.order_id);
    expect(stored).toHaveLength(1);
    expect(skusOf(stored[0]!)).toEqual(["SKU-1", "SKU-2"]);

    const direct = await Promise.all(
      Array.from({ length: 10 }, (_, i) =>
        new Promise((r) => setTimeout(r, i % 3)).then(() => recordAndSettleConversion({ ...body, order_id: `${body.order_id}-b` })),
      ),
    );
    expect(direct.filter((d) => d.outcome === "stored")).toHaveLength(1);
    expect(await storedOrders(publisher.id, `${body.order_id}-b`)).toHaveLength(1);
  });

  it("stores an order id again once its first receipt is 30 days old, and not a second earlier", async () => {
    const publisher = await makePublisher();
    const body = order(publisher.id);
    // Each copy is placed when it is sent (created_at may not be older than the 30 days either).
    const sendAt = (at: Date) => recordAndSettleConversion({ ...body, created_at: at.toISOString() }, at);
    const firstReceipt = new Date("2026-10-01T12:00:00.000Z");
    expect((await sendAt(firstReceipt)).outcome).toBe("stored");
    const almost = new Date(firstReceipt.getTime() + 30 * 86_400_000 - 1);
    expect((await sendAt(almost)).outcome).toBe("duplicate");
    const thirtyDays = new Date(firstReceipt.getTime() + 30 * 86_400_000);
    expect((await sendAt(thirtyDays)).outcome).toBe("stored");
    expect((await sendAt(new Date(thirtyDays.getTime() + 86_400_000))).outcome).toBe("duplicate");
    expect(await storedOrders(publisher.id, body.order_id)).toHaveLength(2);
  });

  it("answers CORS preflights and reflects the Origin with credentials", async () => {
    const { handleConversion } = await import("@/server/http/events-routes");
    const preflight = await handleConversion(
      new Request("http://tally.test/v1/beacon/conversion", {
        method: "OPTIONS",
        headers: { Origin: "https://shop.example", "Access-Control-Request-Method": "POST" },
      }),
    );
    expect(preflight.status).toBe(204);
    expect(preflight.headers.get("access-control-allow-origin")).toBe("https://shop.example");
    const publisher = await makePublisher();
    const response = await postConversion(order(publisher.id), { headers: { Origin: "https://shop.example" } });
    expect(response.status).toBe(202);
    expect(response.headers.get("access-control-allow-origin")).toBe("https://shop.example");
    expect(response.headers.get("access-control-allow-credentials")).toBe("true");
  });
});

describe("POST /v1/beacon/conversion with bad input stores nothing", () => {
  const conversionCount = () => db.conversion.count();

  it("400 for malformed JSON, 415 for another content type, 413 past 256 KiB", async () => {
    const publisher = await makePublisher();
    const before = await conversionCount();
    const malformed = await postConversion('{"publisher_id":');
    expect(malformed.status).toBe(400);
    expect(malformed.body).toEqual({ error: { code: "bad_request", message: "the body is not valid JSON" } });
    expect((await postConversion("publisher_id=x", { contentType: "application/x-www-form-urlencoded" })).status).toBe(415);
    const huge = order(publisher.id, {
      items: Array.from({ length: 3000 }, (_, i) => ({ sku: `SKU-${i}-${"x".repeat(80)}`, quantity: 1, price: 1, promotional_price: 1 })),
    });
    expect(JSON.stringify(huge).length).toBeGreaterThan(256 * 1024);
    expect((await postConversion(huge)).status).toBe(413);
    expect(await conversionCount()).toBe(before);
  });

  it("422 with one Ajv entry per missing required property, exactly as Ajv reports them", async () => {
    const body = { items: [] as unknown[], channel: "app" };
    const response = await postConversion(body);
    expect(response.status).toBe(422);
    expect(response.body).toEqual(ajvErrorsFor(body));
    expect(response.body).toEqual(
      expect.arrayContaining([
        {
          instancePath: "",
          schemaPath: "#/required",
          keyword: "required",
          params: { missingProperty: "order_id" },
          message: "must have required property 'order_id'",
        },
        {
          instancePath: "/items",
          schemaPath: "#/properties/items/minItems",
          keyword: "minItems",
          params: { limit: 1 },
          message: "must NOT have fewer than 1 items",
        },
      ]),
    );
    const missing = (response.body as { params: { missingProperty?: string } }[]).map((e) => e.params.missingProperty).filter(Boolean);
    expect(missing).toEqual(["publisher_id", "user_id", "session_id", "order_id", "created_at", "email_hashed"]);
  });

  it("422 for wrong types at the root and inside items, nested paths included", async () => {
    const publisher = await makePublisher();
    const body = order(publisher.id, {
      user_id: 42,
      is_company: "no",
      created_at: "22/11/2026 10:00",
      gender: "female",
      items: [
        { sku: "SKU-1", quantity: "2", price: "10.50", promotional_price: 9.99 },
        { quantity: 0, price: -1, promotional_price: null },
      ],
    });
    const response = await postConversion(body);
    expect(response.status).toBe(422);
    expect(response.body).toEqual(ajvErrorsFor(body));
    expect(response.body).toEqual(
      expect.arrayContaining([
        { instancePath: "/user_id", schemaPath: "#/properties/user_id/type", keyword: "type", params: { type: "string" }, message: "must be string" },
        {
          instancePath: "/items/0/price",
          schemaPath: "#/properties/items/items/properties/price/type",
          keyword: "type",
          params: { type: "number" },
          message: "must be number",
        },
        {
          instancePath: "/items/1",
          schemaPath: "#/properties/items/items/required",
          keyword: "required",
          params: { missingProperty: "sku" },
          message: "must have required property 'sku'",
        },
        {
          instancePath: "/created_at",
          schemaPath: "#/properties/created_at/format",
          keyword: "format",
          params: { format: "date-time" },
          message: 'must match format "date-time"',
        },
      ]),
    );
    expect(await db.conversion.count({ where: { publisherId: publisher.id } })).toBe(0);
  });

  it("422 for hashes that are not 64 hex characters, and for the hash of the empty string", async () => {
    const publisher = await makePublisher();
    const body = order(publisher.id, {
      email_hashed: EMPTY_STRING_SHA256,
      phone_hashed: "+55 11 99999-0000",
      social_id_hashed: sha256("123").slice(0, 63),
      first_name_hashed: EMPTY_STRING_SHA256.toUpperCase(),
    });
    const response = await postConversion(body);
    expect(response.status).toBe(422);
    expect(response.body).toEqual(ajvErrorsFor(body));
    const entries = response.body as { instancePath: string; keyword: string }[];
    expect(entries.map((e) => `${e.instancePath} ${e.keyword}`).sort()).toEqual([
      "/email_hashed not",
      "/first_name_hashed not",
      "/phone_hashed pattern",
      "/social_id_hashed pattern",
    ]);
    expect(await db.conversion.count({ where: { publisherId: publisher.id } })).toBe(0);
  });

  it("422 entry on /publisher_id for an unknown publisher, together with the schema's entries", async () => {
    const body = order("pub_nobody", { session_id: "" });
    const response = await postConversion(body);
    expect(response.status).toBe(422);
    expect(response.body).toEqual([
      ...ajvErrorsFor(body)!,
      {
        instancePath: "/publisher_id",
        schemaPath: "#/properties/publisher_id/publisher",
        keyword: "publisher",
        params: { publisher_id: "pub_nobody" },
        message: "must be a known publisher",
      },
    ]);
  });

  it("422 required entry for brand when the publisher has several sites; a brand names one of them", async () => {
    const publisher = await makePublisher({ sites: [{ name: "Web Store", domain: "web.example" }, { name: "App" }] });
    const without = order(publisher.id);
    const response = await postConversion(without);
    expect(response.status).toBe(422);
    expect(response.body).toEqual([
      { instancePath: "", schemaPath: "#/required", keyword: "required", params: { missingProperty: "brand" }, message: "must have required property 'brand'" },
    ]);
    const unknown = await postConversion(order(publisher.id, { brand: "Kiosk" }));
    expect(unknown.status).toBe(422);
    expect(unknown.body).toEqual([
      {
        instancePath: "/brand",
        schemaPath: "#/properties/brand/enum",
        keyword: "enum",
        params: { allowedValues: expect.any(Array) },
        message: "must be one of the publisher's sites",
      },
    ]);
    expect((unknown.body as [{ params: { allowedValues: string[] } }])[0].params.allowedValues.sort()).toEqual(["App", "Web Store"]);
    expect(await db.conversion.count({ where: { publisherId: publisher.id } })).toBe(0);

    const byDomain = order(publisher.id, { brand: "WEB.example" });
    expect((await postConversion(byDomain)).status).toBe(202);
    const byName = order(publisher.id, { brand: "app" });
    expect((await postConversion(byName)).status).toBe(202);
    expect((await storedOrders(publisher.id, byDomain.order_id))[0]!.site).toBe("Web Store");
    expect((await storedOrders(publisher.id, byName.order_id))[0]!.site).toBe("App");
  });

  it("422 for a body that is not an object", async () => {
    for (const body of ["[]", "null", '"order"']) {
      const response = await postConversion(body);
      expect(response.status).toBe(422);
      expect(response.body).toEqual(ajvErrorsFor(JSON.parse(body)));
    }
  });
});
