"use client";

// The sponsored parts of a demo store page: loads the Tally SDK (/sdk/tally.js), asks the ad
// server (POST /v1/ads) for the page's placements in one request, renders the ads around the
// page's own content (children) and hands each rendered ad to tracker.impression(ad, element),
// which sends the impression and measures the view and the clicks of that element.
import { type ReactNode, useCallback, useEffect, useState } from "react";
import { Busy } from "@/app/query-state";
import type { TallyAd, TallyApi, TallyTracker } from "@/sdk/tally";
import styles from "./demo.module.css";
import { loadTally } from "./load-tally";
import { DEMO_PUBLISHER_ID, DEMO_SITE, type DemoProduct, formatPrice, productHref } from "./products";

export type AdContext = "home" | "search" | "product";

interface Placement {
  name: string;
  types: string[];
  size?: string;
  quantity: number;
}

const PLACEMENTS: Record<"search" | "product", { products: Placement; banner: Placement; footer?: Placement }> = {
  search: {
    products: { name: "search-sponsored", types: ["product"], quantity: 2 },
    banner: { name: "search-banner", types: ["banner"], size: "728x90", quantity: 1 },
    footer: { name: "search-footer", types: ["banner"], size: "300x250", quantity: 1 },
  },
  product: {
    products: { name: "product-sponsored", types: ["product"], quantity: 2 },
    banner: { name: "product-banner", types: ["banner"], size: "300x250", quantity: 1 },
  },
};

type State = { status: "loading" } | { status: "error"; message: string } | { status: "ready"; tracker: TallyTracker; ads: Record<string, TallyAd[]> };

function isAd(value: unknown): value is TallyAd {
  if (typeof value !== "object" || value === null) return false;
  const ad = value as Record<string, unknown>;
  return typeof ad.ad_id === "string" && typeof ad.impression_url === "string" && typeof ad.view_url === "string" && typeof ad.click_url === "string";
}

/** The `ads` of a /v1/ads answer, keeping only well-formed ads; null when the answer has none. */
function adsOf(answer: unknown): Record<string, TallyAd[]> | null {
  if (typeof answer !== "object" || answer === null) return null;
  const ads = (answer as { ads?: unknown }).ads;
  if (typeof ads !== "object" || ads === null) return null;
  const result: Record<string, TallyAd[]> = {};
  for (const [placement, list] of Object.entries(ads)) {
    if (Array.isArray(list)) result[placement] = list.filter(isAd);
  }
  return result;
}

function sizeOf(size: string | undefined): { width: number; height: number } | null {
  const match = /^(\d{1,4})x(\d{1,4})$/.exec(size ?? "");
  return match ? { width: Number(match[1]), height: Number(match[2]) } : null;
}

/** A ref callback that sends the ad's impression and tracks its element, once per ad. */
function useAdRef(tracker: TallyTracker, ad: TallyAd) {
  return useCallback((element: HTMLElement | null) => (element ? tracker.impression(ad, element) : undefined), [tracker, ad]);
}

function ProductAd({ ad, product, tracker }: { ad: TallyAd; product: DemoProduct | undefined; tracker: TallyTracker }) {
  const ref = useAdRef(tracker, ad);
  const sku = ad.sku ?? product?.sku;
  const href = ad.destination_url ?? (sku ? productHref(sku) : "/demo");
  const image = product?.imageUrl ?? ad.media_url;
  return (
    <a ref={ref} href={href} className={styles.adCard} data-ad-id={ad.ad_id} data-testid="sponsored-ad">
      <span className={styles.badge}>Sponsored</span>
      {image ? <img className={styles.cardImage} src={image} alt="" width={160} height={120} /> : null}
      <span className={styles.cardName}>{product?.name ?? (sku ? `Product ${sku}` : "Sponsored product")}</span>
      {product ? <span className={styles.price}>{formatPrice(product.price)}</span> : null}
    </a>
  );
}

function BannerAd({
  ad,
  fallbackSize,
  product,
  testId,
  tracker,
}: {
  ad: TallyAd;
  fallbackSize: string | undefined;
  product: DemoProduct | undefined;
  testId: string;
  tracker: TallyTracker;
}) {
  const ref = useAdRef(tracker, ad);
  const size = sizeOf(ad.size) ?? sizeOf(fallbackSize);
  const alt = product ? `Sponsored: ${product.name}` : "Sponsored banner";
  const image = ad.media_url ? (
    <img className={styles.bannerImage} src={ad.media_url} alt={alt} width={size?.width} height={size?.height} />
  ) : (
    <span className={styles.bannerText}>{alt}</span>
  );
  return ad.destination_url ? (
    <a ref={ref} href={ad.destination_url} className={styles.banner} data-ad-id={ad.ad_id} data-testid={testId}>
      {image}
    </a>
  ) : (
    <div ref={ref} className={styles.banner} data-ad-id={ad.ad_id} data-testid={testId}>
      {image}
    </div>
  );
}

function Quiet({ children }: { children: ReactNode }) {
  return (
    <p className={styles.quiet} role="status">
      {children}
    </p>
  );
}

// Over 80 lines on purpose: the demo's ad slot, from the ad query to the beacons its SDK sends, read as a publisher would copy it.
export function SponsoredAds({
  context,
  term,
  productSku,
  products,
  children,
}: {
  context: AdContext;
  /** The search term, on search pages. */
  term?: string;
  /** The product shown, on product pages. */
  productSku?: string;
  /** The catalog, so that a sponsored card can show the name, image and price of its ad's SKU. */
  products: DemoProduct[];
  /** The page's own content, placed between the sponsored areas. */
  children?: ReactNode;
}) {
  const [state, setState] = useState<State>({ status: "loading" });
  const layout = context === "product" ? "product" : "search";
  const slots = PLACEMENTS[layout];

  useEffect(() => {
    const controller = new AbortController();
    const placements = [slots.products, slots.banner, ...(slots.footer ? [slots.footer] : [])];
    setState({ status: "loading" });
    (async (): Promise<State> => {
      let tally: TallyApi;
      try {
        tally = await loadTally();
      } catch {
        return { status: "error", message: "Sponsored items are unavailable: the Tally SDK (/sdk/tally.js) could not be loaded." };
      }
      const tracker = tally.init();
      let response: Response;
      try {
        response = await fetch("/v1/ads", {
          method: "POST",
          headers: { "Content-Type": "application/json" },
          body: JSON.stringify({
            publisher_id: DEMO_PUBLISHER_ID,
            site: DEMO_SITE,
            session_id: tracker.sessionId,
            context,
            term: term || undefined,
            product_sku: productSku,
            placements,
          }),
          signal: controller.signal,
        });
      } catch {
        return { status: "error", message: "Sponsored items are unavailable: the ad server could not be reached." };
      }
      if (response.status === 404) {
        return { status: "error", message: "Sponsored items are unavailable: the ad server (POST /v1/ads) is not there yet." };
      }
      if (!response.ok) {
        return { status: "error", message: `Sponsored items are unavailable: the ad server answered ${response.status}.` };
      }
      const ads = adsOf(await response.json().catch(() => null));
      if (!ads) return { status: "error", message: "Sponsored items are unavailable: the ad server's answer could not be read." };
      return { status: "ready", tracker, ads };
    })().then((next) => {
      if (!controller.signal.aborted) setState(next);
    });
    return () => controller.abort();
  }, [context, term, productSku, slots]);

  const bySku = new Map(products.map((product) => [product.sku, product] as const));
  const productOf = (ad: TallyAd) => (ad.sku ? bySku.get(ad.sku) : undefined);

  const banner = (placement: Placement, testId: string, emptyText?: string) => {
    if (state.status !== "ready") return null;
    const ad = (state.ads[placement.name] ?? []).find((candidate) => candidate.media_url || candidate.destination_url);
    if (!ad) return emptyText ? <Quiet>{emptyText}</Quiet> : null;
    return (
      <section className={styles.bannerSlot} aria-label="Advertisement">
        <span className={styles.adLabel}>Sponsored</span>
        <BannerAd key={ad.impression_url} ad={ad} fallbackSize={placement.size} product={productOf(ad)} testId={testId} tracker={state.tracker} />
      </section>
    );
  };

  const emptyProducts = layout === "product" ? "No sponsored products for this product" : "No sponsored products for this search";
  const sponsoredProducts = (
    <section className={styles.sponsored} aria-labelledby="sponsored-heading">
      <h2 id="sponsored-heading" className={styles.sectionTitle}>
        Sponsored
      </h2>
      {state.status === "loading" ? <Busy what="sponsored products" /> : null}
      {state.status === "error" ? (
        <p className={styles.error} role="status">
          {state.message}
        </p>
      ) : null}
      {state.status === "ready" ? (
        (state.ads[slots.products.name] ?? []).length === 0 ? (
          <Quiet>{emptyProducts}</Quiet>
        ) : (
          <ul className={styles.adGrid}>
            {(state.ads[slots.products.name] ?? []).slice(0, slots.products.quantity).map((ad) => (
              <li key={ad.impression_url}>
                <ProductAd ad={ad} product={productOf(ad)} tracker={state.tracker} />
              </li>
            ))}
          </ul>
        )
      ) : null}
    </section>
  );

  if (layout === "product") {
    return (
      <>
        <div className={styles.productLayout}>
          <div>{children}</div>
          <div className={styles.productAside}>{banner(slots.banner, "banner-ad")}</div>
        </div>
        {sponsoredProducts}
      </>
    );
  }

  return (
    <>
      <div className={styles.topBanner}>{banner(slots.banner, "banner-ad")}</div>
      {sponsoredProducts}
      {children}
      {slots.footer ? (
        <section className={styles.footerAds} aria-labelledby="footer-sponsored-heading">
          <h2 id="footer-sponsored-heading" className={styles.sectionTitle}>
            Sponsored further down
          </h2>
          {state.status === "loading" ? <Busy what="the banner" /> : null}
          {state.status === "error" ? <Quiet>No sponsored banner: see the note at the top of the page.</Quiet> : null}
          {banner(slots.footer, "footer-banner-ad", "No sponsored banner here right now.")}
        </section>
      ) : null}
    </>
  );
}
