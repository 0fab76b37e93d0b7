// Pure ranking and placement filling for the ad query, kept apart from SQL so it is unit-tested.
import type { CandidateAd, CandidateProduct } from "./candidate-ads.sql";

/** CPC bids are compared with CPM bids as CPC × this click-through rate × 1000. */
export const ASSUMED_CTR = 0.01;

/** Expected revenue per thousand impressions, in micro-units. */
export function effectiveCpmMicros(ad: Pick<CandidateAd, "bid_model" | "bid_micros">): number {
  const bid = Number(ad.bid_micros);
  return ad.bid_model === "cpm" ? bid : bid * ASSUMED_CTR * 1000;
}

/** Highest effective CPM first; ties by campaign id, then ad id, so the same query gets the same answer. */
export function rankAds<T extends Pick<CandidateAd, "bid_model" | "bid_micros" | "campaign_id" | "ad_id">>(ads: T[]): T[] {
  return [...ads].sort((a, b) => effectiveCpmMicros(b) - effectiveCpmMicros(a) || a.campaign_id.localeCompare(b.campaign_id) || a.ad_id.localeCompare(b.ad_id));
}

export interface Targeting {
  term?: string;
  category?: string;
  product_sku?: string;
}

function words(text: string): string[] {
  return text
    .toLowerCase()
    .split(/[^\p{L}\p{N}]+/u)
    .filter((word) => word.length >= 2);
}

/**
 * The product through which a product ad matches the page: its SKU, its category, or every word
 * of the search term found in its name, SKU or category. With no targeting at all (a home page),
 * every product ad matches through its first product. Null: the ad does not match.
 */
export function matchProduct(products: CandidateProduct[], targeting: Targeting): CandidateProduct | null {
  const { term, category, product_sku } = targeting;
  const termWords = term ? words(term) : [];
  if (!product_sku && !category && termWords.length === 0) return products[0] ?? null;
  return (
    products.find((product) => {
      if (product_sku && product.sku === product_sku) return true;
      if (category && product.category?.toLowerCase() === category.toLowerCase()) return true;
      if (termWords.length > 0) {
        const haystack = `${product.name} ${product.sku} ${product.category ?? ""}`.toLowerCase();
        return termWords.every((word) => haystack.includes(word));
      }
      return false;
    }) ?? null
  );
}

export interface Placement {
  name: string;
  types: readonly string[];
  size?: string;
  quantity?: number;
}

export interface PlacedAd {
  placement: string;
  ad: CandidateAd;
  product: CandidateProduct | null;
}

/** Fills the placements in the order given with the best ads that fit; an ad appears once per answer. */
export function fillPlacements(ranked: CandidateAd[], placements: readonly Placement[], targeting: Targeting): PlacedAd[] {
  const used = new Set<string>();
  const placed: PlacedAd[] = [];
  for (const placement of placements) {
    let remaining = placement.quantity ?? 1;
    for (const ad of ranked) {
      if (remaining === 0) break;
      if (used.has(ad.ad_id) || !placement.types.includes(ad.ad_type)) continue;
      if (ad.ad_type !== "product" && placement.size && ad.size !== placement.size) continue;
      const product = ad.ad_type === "product" ? matchProduct(ad.products, targeting) : null;
      if (ad.ad_type === "product" && !product) continue;
      used.add(ad.ad_id);
      placed.push({ placement: placement.name, ad, product });
      remaining -= 1;
    }
  }
  return placed;
}
