// The demo store is served only with TALLY_DEMO=1, decided per request: with it off, every demo
// page (and the product page's metadata) is Next's 404 before it reads the database, and the
// landing page and the top navigation do not link to it. The server components are called as
// Next.js calls them; only Next's request context (connection()) is stood in for.
import { isValidElement, type ReactNode } from "react";
import { afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { OPERATOR } from "@/server/accounts/actor";
import { createProduct } from "@/server/campaigns/create-product";
import { makeAdvertiser } from "@/testing/fixtures";

const connection = vi.hoisted(() => vi.fn(async () => {}));
vi.mock("next/server", () => ({ connection }));

const SKU = "DEMO-GATE-TEA";

beforeAll(async () => {
  const advertiser = await makeAdvertiser();
  await createProduct({ actor: OPERATOR, advertiserId: advertiser.id, sku: SKU, name: "Gate tea", category: "Tea" });
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
});
