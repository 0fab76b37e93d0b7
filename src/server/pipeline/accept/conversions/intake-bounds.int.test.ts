// The bounds of the public bodies: numbers that could overflow money, order times outside the
// de-duplication window, strings Postgres cannot store or ids with control characters, and bodies
// built to make the 422 itself expensive. Each gets the schema's 422 entry and stores nothing.

import { createHash } from "node:crypto";
import { Ajv } from "ajv";
import { default as addFormats } from "ajv-formats";
import { describe, expect, it } from "vitest";
import { addStringFormats } from "@/contracts/string-formats";
import { env } from "@/env";
import { OPERATOR } from "@/server/accounts/actor";
import { MAX_VALIDATION_ENTRIES } from "@/server/core/errors";
import { db } from "@/server/db/client";
import { askForAds, postBeacon, postConversion, serveOneAd } from "@/testing/events-client";
import { makeAdvertiser, makeCampaignWithAd, makePublisher } from "@/testing/fixtures";
import { recordAndSettleConversion } from "@/testing/settle";
import { conversionBodySchema, MAX_ORDER_ITEMS, MAX_QUANTITY, MAX_UNIT_PRICE } from "./conversion-body.schema";
import { updateConversionTrust } from "./conversion-trust";
import { LARGEST_ORDER_TOTAL } from "./trust-input";

const referenceAjv = addStringFormats(addFormats(new Ajv({ allErrors: true }), ["date-time"]));
const referenceValidate = referenceAjv.compile(conversionBodySchema);
const ajvErrorsFor = (body: unknown) => (referenceValidate(body) ? [] : referenceValidate.errors);

let sequence = 0;
function order(publisherId: string, overrides: Record<string, unknown> = {}, item: Record<string, unknown> = {}) {
  sequence += 1;
  return {
    publisher_id: publisherId,
    user_id: "bound-user",
    session_id: "bound-session",
    order_id: `bound-${Date.now()}-${sequence}`,
    created_at: new Date().toISOString(),
    channel: "web",
    email_hashed: createHash("sha256").update("b@example.com").digest("hex"),
    items: [{ sku: "SKU-1", quantity: 1, price: 10, promotional_price: 9, ...item }],
    ...overrides,
  };
}
const storedCount = (publisherId: string) => db.conversion.count({ where: { publisherId } });
const pathsOf = (body: unknown) => (body as { instancePath: string; keyword: string }[]).map((e) => `${e.instancePath} ${e.keyword}`);

describe("order numbers", () => {
  it("accept the largest price and quantity, whose line and whole order still fit a bigint of micro-units", async () => {
    const publisher = await makePublisher();
    // Past Tally's default plausibility limits: this publisher raised its own to the largest there are.
    await updateConversionTrust({
      actor: OPERATOR,
      publisherId: publisher.id,
      creditUnverified: false,
      maxOrderTotal: LARGEST_ORDER_TOTAL,
      maxLineQuantity: MAX_QUANTITY,
    });
    const lines = Array.from({ length: MAX_ORDER_ITEMS }, (_, i) => ({
      sku: `MAX-${i}`,
      quantity: MAX_QUANTITY,
      price: MAX_UNIT_PRICE,
      promotional_price: MAX_UNIT_PRICE,
    }));
    const body = order(publisher.id, { items: lines });
    expect((await postConversion(body)).status).toBe(202);
    // The order's total in micro-units, summed by Postgres as bigint: no overflow.
    const [row] = await db.$queryRaw<{ total: bigint }[]>`
      SELECT sum((item->>'promotional_price_micros')::bigint * (item->>'quantity')::float8)::bigint AS total
        FROM conversions, jsonb_array_elements(items) AS item WHERE publisher_id = ${publisher.id}`;
    expect(row!.total).toBe(BigInt(MAX_ORDER_ITEMS) * BigInt(MAX_QUANTITY) * BigInt(MAX_UNIT_PRICE) * 1_000_000n);
    expect(row!.total < 2n ** 63n).toBe(true);
  });

  it("refuse a price or quantity past its range, and a non-finite one, with the schema's entries", async () => {
    const publisher = await makePublisher();
    const cases: [Record<string, unknown>, string[]][] = [
      [{ price: MAX_UNIT_PRICE + 0.01 }, ["/items/0/price maximum"]],
      [{ promotional_price: 1e9, quantity: 1e6 }, ["/items/0/quantity maximum", "/items/0/promotional_price maximum"]],
      [{ quantity: MAX_QUANTITY * 1.0001 }, ["/items/0/quantity maximum"]],
      [{ quantity: 0 }, ["/items/0/quantity exclusiveMinimum"]],
      [{ price: -0.01 }, ["/items/0/price minimum"]],
    ];
    for (const [item, expected] of cases) {
      const body = order(publisher.id, {}, item);
      const response = await postConversion(body);
      expect(response.status).toBe(422);
      expect(response.body).toEqual(ajvErrorsFor(body));
      expect(pathsOf(response.body).sort()).toEqual(expected.sort());
    }
    // 1e400 is Infinity once parsed, which Ajv does not count as a number.
    const infinite = JSON.stringify(order(publisher.id)).replace('"price":10', '"price":1e400');
    expect(pathsOf((await postConversion(infinite)).body)).toEqual(["/items/0/price type"]);
    expect(await storedCount(publisher.id)).toBe(0);
  });
});

describe("order size", () => {
  it(`answers more than ${MAX_ORDER_ITEMS} lines with the one maxItems entry, before the schema walks them`, async () => {
    const publisher = await makePublisher();
    const body = `{"publisher_id":"${publisher.id}","items":[${Array(87_000).fill("{}").join(",")}]}`;
    const started = performance.now();
    const response = await postConversion(body);
    const elapsed = performance.now() - started;
    expect(response.status).toBe(422);
    expect(response.body).toEqual([
      {
        instancePath: "/items",
        schemaPath: "#/properties/items/maxItems",
        keyword: "maxItems",
        params: { limit: MAX_ORDER_ITEMS },
        message: `must NOT have more than ${MAX_ORDER_ITEMS} items`,
      },
    ]);
    // The reference validator reports the same entry, among the root's and one per empty line.
    expect(ajvErrorsFor(JSON.parse(body))).toContainEqual((response.body as unknown[])[0]);
    expect(elapsed).toBeLessThan(1_000); // a guard against walking 87,000 lines, not a benchmark
    expect(
      (await postConversion(order(publisher.id, { items: Array(MAX_ORDER_ITEMS + 1).fill({ sku: "S", quantity: 1, price: 1, promotional_price: 1 }) }))).status,
    ).toBe(422);
    expect(await storedCount(publisher.id)).toBe(0);
  });

  it("refuses an order larger than TALLY_ORDER_MAX_BYTES as stored with one maxBytes entry, and stores nothing of it", async () => {
    const publisher = await makePublisher();
    const limit = env().TALLY_ORDER_MAX_BYTES;
    // 300 lines with two ids of 230 characters: under the 256 KiB body cap, past 128 KiB as stored.
    const line = (i: number, idLength: number) => ({
      sku: `${i}-`.padEnd(idLength, "s"),
      product_id: "p".repeat(idLength),
      quantity: 1,
      price: 1,
      promotional_price: 1,
    });
    const tooLarge = order(publisher.id, { items: Array.from({ length: 300 }, (_, i) => line(i, 230)) });
    expect(JSON.stringify(tooLarge).length).toBeLessThan(256 * 1024);
    const refused = await postConversion(tooLarge);
    expect(refused.status).toBe(422);
    expect(refused.body).toEqual([expect.objectContaining({ instancePath: "", keyword: "maxBytes", params: expect.objectContaining({ limit }) })]);
    expect((refused.body as { params: { bytes: number } }[])[0]!.params.bytes).toBeGreaterThan(limit);
    // The same lines with shorter ids fit, and are stored.
    const fits = order(publisher.id, { items: Array.from({ length: 300 }, (_, i) => line(i, 40)) });
    expect((await postConversion(fits)).status).toBe(202);
    expect(await storedCount(publisher.id)).toBe(1);
    expect(await db.conversion.findFirst({ where: { publisherId: publisher.id }, select: { lineCount: true } })).toEqual({ lineCount: 300 });
  });

  it(`lists at most ${MAX_VALIDATION_ENTRIES} entries, the first ones Ajv reports`, async () => {
    const publisher = await makePublisher();
    const body = order(publisher.id, { items: Array(MAX_ORDER_ITEMS).fill({}) });
    const response = await postConversion(body);
    expect(response.status).toBe(422);
    const all = ajvErrorsFor(body)!;
    expect(all.length).toBeGreaterThan(MAX_VALIDATION_ENTRIES * 10);
    expect(response.body).toEqual(all.slice(0, MAX_VALIDATION_ENTRIES));
    expect(await storedCount(publisher.id)).toBe(0);
  });
});

describe("order time", () => {
  it("accepts created_at up to 30 days back and 5 minutes ahead of its arrival, and refuses past either", async () => {
    const publisher = await makePublisher();
    const now = new Date("2026-11-25T12:00:00.000Z");
    const at = (offsetMs: number) => order(publisher.id, { created_at: new Date(now.getTime() + offsetMs).toISOString() });
    expect((await recordAndSettleConversion(at(-30 * 86_400_000), now)).outcome).toBe("stored");
    expect((await recordAndSettleConversion(at(5 * 60_000), now)).outcome).toBe("stored");
    await expect(recordAndSettleConversion(at(-30 * 86_400_000 - 1), now)).rejects.toMatchObject({
      code: "validation_failed",
      details: {
        entries: [
          {
            instancePath: "/created_at",
            schemaPath: "#/properties/created_at/formatMinimum",
            keyword: "formatMinimum",
            params: { comparison: ">=", limit: "2026-10-26T12:00:00.000Z" },
          },
        ],
      },
    });
    await expect(recordAndSettleConversion(at(5 * 60_000 + 1), now)).rejects.toMatchObject({
      details: { entries: [{ instancePath: "/created_at", keyword: "formatMaximum", params: { comparison: "<=", limit: "2026-11-25T12:05:00.000Z" } }] },
    });
    expect(await storedCount(publisher.id)).toBe(2);
  });

  it("refuses a year 2999 or 1999 order over HTTP, and a date that does not exist with the format entry alone", async () => {
    const publisher = await makePublisher();
    for (const created_at of ["2999-01-01T00:00:00Z", "1999-01-01T00:00:00Z"]) {
      expect(pathsOf((await postConversion(order(publisher.id, { created_at }))).body)).toEqual([
        `/created_at ${created_at.startsWith("2999") ? "formatMaximum" : "formatMinimum"}`,
      ]);
    }
    expect(pathsOf((await postConversion(order(publisher.id, { created_at: "2026-02-30T00:00:00Z" }))).body)).toEqual(["/created_at format"]);
    expect(await storedCount(publisher.id)).toBe(0);
  });
});

describe("strings", () => {
  const NOT_STORABLE = ["nul\u0000byte", "lone \ud800 high", "lone \udfff low", "ends \ud83d"];

  it("refuses ids and text Postgres cannot store, and ids with control characters, with the format entry", async () => {
    const publisher = await makePublisher();
    for (const bad of NOT_STORABLE) {
      for (const [field, format] of [
        ["order_id", "identifier"],
        ["user_id", "identifier"],
        ["session_id", "identifier"],
        ["channel", "identifier"],
        ["city", "text"],
        ["uf", "text"],
      ] as const) {
        const body = order(publisher.id, { [field]: bad });
        const response = await postConversion(body);
        expect(response.status, `${field} = ${JSON.stringify(bad)}`).toBe(422);
        expect(response.body).toEqual([
          {
            instancePath: `/${field}`,
            schemaPath: `#/properties/${field}/format`,
            keyword: "format",
            params: { format },
            message: `must match format "${format}"`,
          },
        ]);
      }
      const line = order(publisher.id, {}, { sku: bad, product_id: bad });
      expect(pathsOf((await postConversion(line)).body).sort()).toEqual(["/items/0/product_id format", "/items/0/sku format"]);
    }
    for (const control of ["\u0001", "\t", "\n", "\u001b", "\u007f", "\u0085"]) {
      const body = order(publisher.id, { order_id: `id${control}1` });
      expect((await postConversion(body)).body).toEqual(ajvErrorsFor(body));
      expect(pathsOf((await postConversion(body)).body)).toEqual(["/order_id format"]);
    }
    expect(await storedCount(publisher.id)).toBe(0);
  });

  it("stores free text with tabs, new lines and any character outside the BMP", async () => {
    const publisher = await makePublisher();
    const body = order(publisher.id, { city: "São Paulo\t🏙️\nZona Sul", order_id: "pedido-🛒-1" });
    expect((await postConversion(body)).status).toBe(202);
    expect(await db.conversion.findFirst({ where: { publisherId: publisher.id } })).toMatchObject({ city: "São Paulo\t🏙️\nZona Sul", orderId: "pedido-🛒-1" });
  });

  it("refuses beacons and ad queries holding them, and stores nothing of those beacons", async () => {
    const publisher = await makePublisher();
    const advertiser = await makeAdvertiser({ wallet: 100 });
    const { ad } = await makeCampaignWithAd({ advertiserId: advertiser.id, publisherIds: [publisher.id], bidModel: "cpm", bid: 1 });
    const served = await serveOneAd(publisher.id, "string-shopper");
    for (const bad of [...NOT_STORABLE, "tab\there"]) {
      const session = await postBeacon(served.impression_url, { session_id: bad });
      expect(session.status).toBe(422);
      expect(await session.json()).toEqual([
        {
          instancePath: "/session_id",
          schemaPath: "#/properties/session_id/format",
          keyword: "format",
          params: { format: "identifier" },
          message: 'must match format "identifier"',
        },
      ]);
      expect((await postBeacon(served.impression_url, { session_id: "string-shopper", user_id: bad })).status).toBe(422);
    }
    expect(await db.adEvent.count({ where: { adId: ad.id } })).toBe(0);
    for (const bad of NOT_STORABLE) {
      const answer = await askForAds({
        publisher_id: publisher.id,
        session_id: "s",
        context: "search",
        term: bad,
        placements: [{ name: `slot${bad}`, types: ["banner"] }],
      });
      expect(answer.status).toBe(422);
      expect(pathsOf(answer.body).sort()).toEqual(["/placements/0/name format", "/term format"]);
    }
  });
});
