// The demo store is served only with TALLY_DEMO=1, decided per request: with it off, every demo
// page (and the product page's metadata) is Next's 404 before it reads the database, and the
// landing page and the top navigation do not link to it. The server components are called as
// Next.js calls them; only Next's request context (connection()) is stood in for.
import { isValidElement, type ReactNode } from "react";
import { afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { OPERATOR } from "@/server/accounts/actor";
import { createAccount } from "@/server/accounts/create-account";
import { createProduct } from "@/server/campaigns/create-product";
import { setCatalogueEntry } from "@/server/campaigns/publisher-catalogue";
import { makeAdvertiser, makeCampaignWithAd, makePublisher } from "@/testing/fixtures";
import { DEMO_PUBLISHER_ID } from "./products";

const connection = vi.hoisted(() => vi.fn(async () => {}));
vi.mock("next/server", () => ({ connection }));

const SKU = "DEMO-GATE-TEA";

// The demo publisher lists Gate tea under its brand, and a newcomer's campaign runs on it; a
// stranger has products in Tally that the demo store does not sell: one promoted on another
// publisher only, and one under the same SKU as Gate tea.
const OTHER_SKU = "OTHER-BRAND-SOAP";
beforeAll(async () => {
  await createAccount({ actor: OPERATOR, id: DEMO_PUBLISHER_ID, kind: "publisher", name: "Demo Market", sites: [{ name: "demomarket.com" }] });
  const brand = await makeAdvertiser();
  await createProduct({ actor: OPERATOR, advertiserId: brand.id, sku: SKU, name: "Gate tea", category: "Tea" });
  await setCatalogueEntry({ actor: OPERATOR, publisherId: DEMO_PUBLISHER_ID, sku: SKU, advertiserId: brand.id });
  const newcomer = await makeAdvertiser();
  await makeCampaignWithAd({ advertiserId: newcomer.id, publisherIds: [DEMO_PUBLISHER_ID], products: [{ sku: "NEWCOMER-TEA", name: "Newcomer tea" }] });
  const stranger = await makeAdvertiser();
  await makeCampaignWithAd({ advertiserId: stranger.id, publisherIds: [(await makePublisher()).id], products: [{ sku: OTHER_SKU, name: "Stranger soap" }] });
  await createProduct({ actor: OPERATOR, advertiserId: stranger.id, sku: SKU, name: "Stranger tea", category: "Tea" });
});

afterEach(() => {
  delete process.env.TALLY_DEMO;
  connection.mockClear();
});

/** The app's modules as a fresh process with this TALLY_DEMO would load them (env() is read once). */
async function load(demo: "0" | "1" | undefined) {
  if (demo === undefined) delete process.env.TALLY_DEMO;
  else process.env.TALLY_DEMO = demo;
  vi.resetModules();
  return {
    search: (await import("./page")).default,
    product: await import("./product/[sku]/page"),
    productNotFound: (await import("./product/[sku]/not-found")).default,
    layout: (await import("./layout")).default,
    landing: (await import("../page")).default,
    topNav: (await import("../top-nav")).TopNav,
  };
}

/** Every href in a rendered tree (elements, fragments and arrays; components are not called). */
function hrefs(node: ReactNode): string[] {
  if (Array.isArray(node)) return node.flatMap(hrefs);
  if (!isValidElement(node)) return [];
  const props = node.props as { href?: string; children?: ReactNode };
  return [...(typeof props.href === "string" ? [props.href] : []), ...hrefs(props.children)];
}

const text = (node: ReactNode): string => {
  if (typeof node === "string" || typeof node === "number") return String(node);
  if (Array.isArray(node)) return node.map(text).join("");
  return isValidElement(node) ? text((node.props as { children?: ReactNode }).children) : "";
};

const NOT_FOUND = { digest: "NEXT_HTTP_ERROR_FALLBACK;404" };
const searchParams = Promise.resolve({});
const params = Promise.resolve({ sku: SKU });

describe("the demo store with TALLY_DEMO off (the default)", () => {
  for (const setting of [undefined, "0"] as const) {
    it(`answers 404 on every page, and nothing links to it (TALLY_DEMO ${setting ?? "unset"})`, async () => {
      const app = await load(setting);
      await expect(app.search({ searchParams })).rejects.toMatchObject(NOT_FOUND);
      await expect(app.product.default({ params })).rejects.toMatchObject(NOT_FOUND);
      await expect(app.product.generateMetadata({ params })).rejects.toMatchObject(NOT_FOUND);
      await expect(app.layout({ children: "store" })).rejects.toMatchObject(NOT_FOUND);
      // A missing product's page says nothing of a demo store either.
      const missing = await app.productNotFound();
      expect(hrefs(missing)).not.toContain("/demo");
      expect(text(missing)).not.toMatch(/Demo/);

      expect(hrefs(await app.topNav())).toEqual(["/", "/dashboard", "/docs"]);
      const landing = await app.landing();
      expect(hrefs(landing)).not.toContain("/demo");
      expect(hrefs(landing)).toContain("/docs/ingest");
      // Each answer waited for a request first: nothing is decided when the app is built.
      expect(connection).toHaveBeenCalled();
    });
  }
});

describe("the demo store with TALLY_DEMO=1", () => {
  it("serves its pages from the catalogue and is linked from the landing page and the navigation", async () => {
    const app = await load("1");
    expect(text(await app.search({ searchParams: Promise.resolve({ q: "gate" }) }))).toContain("Gate tea");
    expect(await app.product.generateMetadata({ params })).toEqual({ title: "Gate tea · Demo store" });
    expect(text(await app.product.default({ params }))).toContain(SKU);
    // An unknown product is still a 404 of its own.
    await expect(app.product.default({ params: Promise.resolve({ sku: "NO-SUCH-SKU" }) })).rejects.toMatchObject(NOT_FOUND);
    expect(hrefs(await app.productNotFound())).toContain("/demo");
    expect(await app.layout({ children: "store" })).toBe("store");

    expect(hrefs(await app.topNav())).toEqual(["/", "/dashboard", "/demo", "/docs"]);
    expect(hrefs(await app.landing())).toContain("/demo");
    expect(connection).toHaveBeenCalled();
  });

  it("sells what the demo publisher's catalogue lists and what campaigns on it promote, never another advertiser's products", async () => {
    const app = await load("1");
    for (const q of ["soap", "stranger", OTHER_SKU]) {
      const page = text(await app.search({ searchParams: Promise.resolve({ q }) }));
      expect(page).toContain(`No products match “${q}”`);
      expect(page).not.toContain("Stranger");
    }
    expect(text(await app.search({ searchParams: Promise.resolve({ q: "tea" }) }))).not.toContain("Stranger");
    const all = text(await app.search({ searchParams }));
    expect(all).toContain("Gate tea");
    expect(all).toContain("Newcomer tea");
    expect(all).toContain("2 products");
    expect(text(await app.product.default({ params: Promise.resolve({ sku: "NEWCOMER-TEA" }) }))).toContain("Newcomer tea");
    // A product page of an SKU the store does not list is a 404, and a shared SKU shows the listed brand's product.
    await expect(app.product.default({ params: Promise.resolve({ sku: OTHER_SKU }) })).rejects.toMatchObject(NOT_FOUND);
    expect(await app.product.generateMetadata({ params: Promise.resolve({ sku: OTHER_SKU }) })).toEqual({ title: "Product not found · Demo store" });
    expect(text(await app.product.default({ params }))).toContain("Gate tea");
    expect(text(await app.product.default({ params }))).not.toContain("Stranger");
  });
});
