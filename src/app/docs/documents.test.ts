// Every link of every served document leads somewhere: to a page Tally serves, at an anchor that
// page has, or it is rendered as a repository path rather than a link that would 404.
import { describe, expect, it } from "vitest";
import { type DocPlace, docAddress, fileSlug, headingId, listDecisions, listDocs, pageSlug, readDoc, renderDoc, servedHref } from "./documents";

async function servedDocs(): Promise<DocPlace[]> {
  const [docs, decisions] = await Promise.all([listDocs(), listDecisions()]);
  return [...docs.map((d) => ({ folder: "" as const, slug: d.slug })), ...decisions.map((d) => ({ folder: "decisions" as const, slug: d.slug }))];
}

describe("served documents", () => {
  it("turn repository links into page addresses or plain paths", () => {
    const conversions: DocPlace = { folder: "", slug: "conversions" };
    const decision: DocPlace = { folder: "decisions", slug: "0012-verified-conversions" };
    expect(servedHref(conversions, "reports.md#halo-sales")).toBe("/docs/reports#halo-sales");
    expect(servedHref(conversions, "decisions/0028-conversion-intake.md")).toBe("/docs/decisions/0028-conversion-intake");
    expect(servedHref(decision, "../export.md#design-decisions")).toBe("/docs/export#design-decisions");
    expect(servedHref(decision, "0002-group-commits.md")).toBe("/docs/decisions/0002-group-commits");
    expect(servedHref(decision, "../../bench/results.md")).toBeNull();
    expect(servedHref(conversions, "../src/server/store/metrics.ts")).toBeNull();
    expect(servedHref(conversions, "https://example.com/a.md")).toBe("https://example.com/a.md");
    expect(servedHref(conversions, "#verified-orders")).toBe("#verified-orders");
  });

  it("serve docs/api.md as /docs/api-guide, since /docs/api is the reference itself", () => {
    expect(servedHref({ folder: "", slug: "oauth" }, "api.md#a-client-in-typescript")).toBe("/docs/api-guide#a-client-in-typescript");
    expect(docAddress({ folder: "", slug: "api" })).toBe("/docs/api-guide");
    expect([pageSlug("api"), fileSlug("api-guide")]).toEqual(["api-guide", "api"]);
    // The file's own name is not a second address of it.
    expect(fileSlug("api")).toBe("");
    expect([pageSlug("reports"), fileSlug("reports")]).toEqual(["reports", "reports"]);
  });

  it("give headings GitHub's anchors", () => {
    expect(headingId("Click- and view-through credit")).toBe("click--and-view-through-credit");
    expect(headingId("4. Conversions")).toBe("4-conversions");
    expect(headingId("`download=true` files")).toBe("downloadtrue-files");
  });

  it("list every decision record in the decisions index", async () => {
    const index = (await readDoc({ folder: "", slug: "decisions" }))!;
    const listed = new Set([...index.matchAll(/\]\(decisions\/([^)#]+)\.md\)/g)].map((m) => m[1]!));
    const records = (await listDecisions()).map((d) => d.slug);
    expect(records.length).toBeGreaterThan(50);
    expect(records.filter((slug) => !listed.has(slug))).toEqual([]);
  });

  it("link only to pages that exist, at anchors those pages have", async () => {
    const places = await servedDocs();
    expect(places.length).toBeGreaterThan(40);
    const anchors = new Map<string, Set<string>>();
    const links: { from: string; href: string }[] = [];
    for (const place of places) {
      const html = await renderDoc(place, (await readDoc(place))!);
      anchors.set(docAddress(place), new Set([...html.matchAll(/ id="([^"]+)"/g)].map((m) => m[1]!)));
      for (const m of html.matchAll(/<a href="([^"]+)"/g)) links.push({ from: docAddress(place), href: m[1]!.replaceAll("&#38;", "&") });
    }
    const broken = links
      .filter(({ href }) => !/^[a-z]+:/i.test(href))
      .filter(({ from, href }) => {
        const [page, fragment] = href.startsWith("#") ? [from, href.slice(1)] : href.split("#");
        const target = anchors.get(page!);
        return !target || (fragment !== undefined && !target.has(fragment));
      });
    expect(broken).toEqual([]);
    expect(links.length).toBeGreaterThan(100);
  });
});
