import { describe, expect, it } from "vitest";
import type { CandidateAd, CandidateProduct } from "./candidate-ads.sql";
import { effectiveCpmMicros, fillPlacements, matchProduct, rankAds } from "./rank-ads";

const product = (sku: string, name: string, category: string | null = null): CandidateProduct => ({ sku, product_id: null, name, category, image_url: null });

function ad(id: string, options: Partial<CandidateAd> = {}): CandidateAd {
  return {
    ad_id: id,
    ad_type: "banner",
    size: "300x250",
    media_url: null,
    destination_url: null,
    campaign_id: `cmp_${id}`,
    advertiser_id: "adv",
    bid_model: "cpm",
    bid_micros: 1_000_000n,
    products: [],
    ...options,
  };
}

describe("ranking", () => {
  it("values a CPC bid at 1% click-through: 0.50 CPC = 5.00 CPM", () => {
    expect(effectiveCpmMicros({ bid_model: "cpc", bid_micros: 500_000n })).toBe(5_000_000);
    expect(effectiveCpmMicros({ bid_model: "cpm", bid_micros: 4_000_000n })).toBe(4_000_000);
  });

  it("puts the highest effective CPM first and breaks ties by campaign id, then ad id", () => {
    const ranked = rankAds([
      ad("b2", { campaign_id: "cmp_b", bid_micros: 3_000_000n }),
      ad("a1", { campaign_id: "cmp_a", bid_model: "cpc", bid_micros: 300_000n }), // 3.00 CPM as well
      ad("b1", { campaign_id: "cmp_b", bid_micros: 3_000_000n }),
      ad("top", { bid_micros: 9_000_000n }),
    ]);
    expect(ranked.map((a) => a.ad_id)).toEqual(["top", "a1", "b1", "b2"]);
  });
});

describe("product matching", () => {
  const products = [product("BEANS-1KG", "Espresso Beans 1 kg", "coffee"), product("TENT-2P", "Two Person Tent", "outdoor")];

  it("matches by SKU, by category in any case, or by every word of the term", () => {
    expect(matchProduct(products, { product_sku: "TENT-2P" })?.sku).toBe("TENT-2P");
    expect(matchProduct(products, { category: "OUTDOOR" })?.sku).toBe("TENT-2P");
    expect(matchProduct(products, { term: "espresso beans" })?.sku).toBe("BEANS-1KG");
    expect(matchProduct(products, { term: "beans coffee" })?.sku).toBe("BEANS-1KG"); // category words count
    expect(matchProduct(products, { term: "espresso tent" })).toBeNull(); // every word, in one product
    expect(matchProduct(products, { product_sku: "beans-1kg" })).toBeNull(); // SKUs are exact
  });

  it("matches through the first product when the page says nothing about products", () => {
    expect(matchProduct(products, {})?.sku).toBe("BEANS-1KG");
    expect(matchProduct(products, { term: "a" })?.sku).toBe("BEANS-1KG"); // one-letter words are noise
    expect(matchProduct([], {})).toBeNull();
  });
});

describe("filling placements", () => {
  it("fills placements in order, by type and size, never repeating an ad, up to each quantity", () => {
    const ranked = rankAds([
      ad("wide", { size: "728x90", bid_micros: 8_000_000n }),
      ad("box1", { bid_micros: 7_000_000n }),
      ad("box2", { bid_micros: 6_000_000n }),
      ad("video", { ad_type: "video", size: "640x360", bid_micros: 9_000_000n }),
    ]);
    const placed = fillPlacements(
      ranked,
      [
        { name: "top", types: ["banner"], size: "728x90" },
        { name: "side", types: ["banner"], quantity: 5 },
        { name: "player", types: ["video", "banner"], quantity: 2 },
      ],
      {},
    );
    expect(placed.map((p) => [p.placement, p.ad.ad_id])).toEqual([
      ["top", "wide"],
      ["side", "box1"],
      ["side", "box2"],
      ["player", "video"],
    ]);
  });

  it("skips product ads that do not match the page, and reports the product they matched through", () => {
    const ranked = [
      ad("tent", { ad_type: "product", size: null, products: [product("TENT-2P", "Two Person Tent", "outdoor")] }),
      ad("beans", { ad_type: "product", size: null, products: [product("BEANS-1KG", "Espresso Beans", "coffee")] }),
    ];
    const placed = fillPlacements(ranked, [{ name: "p", types: ["product"], quantity: 2, size: "300x250" }], { term: "beans" });
    expect(placed.map((p) => [p.ad.ad_id, p.product?.sku])).toEqual([["beans", "BEANS-1KG"]]);
  });
});
