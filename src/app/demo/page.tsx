import type { Metadata } from "next";
import Link from "next/link";
import { TopNav } from "../top-nav";
import styles from "./demo.module.css";
import { requireDemo } from "./demo-enabled";
import { allProducts, searchProducts, searchTerm } from "./product-lookups";
import { formatPrice, productHref } from "./products";
import { SponsoredAds } from "./sponsored-ads";

export const dynamic = "force-dynamic";

export const metadata: Metadata = { title: "Demo store" };

export default async function DemoSearchPage({ searchParams }: { searchParams: Promise<{ q?: string | string[] }> }) {
  await requireDemo();
  const term = searchTerm((await searchParams).q);
  const [results, catalog] = await Promise.all([searchProducts(term), allProducts()]);

  return (
    <>
      <TopNav />
      <main>
        <header className={styles.header}>
          <h1>Demo Market</h1>
          <p className={styles.tagline}>A small store whose sponsored items are served and measured by Tally.</p>
        </header>

        {/* biome-ignore lint/a11y/useSemanticElements: a form with the search role is the landmark every screen reader knows; the newer <search> element is not in React's DOM types yet. */}
        <form className={styles.search} action="/demo" method="get" role="search">
          <div className={styles.searchField}>
            <label htmlFor="demo-search">Search products</label>
            <input id="demo-search" type="search" name="q" defaultValue={term} placeholder="coffee, tent, NW-BOOT-42…" autoComplete="off" />
          </div>
          <button className={styles.button} type="submit">
            Search
          </button>
        </form>

        <SponsoredAds key={term} context={term ? "search" : "home"} term={term || undefined} products={catalog}>
          <section className={styles.organic} aria-labelledby="results-heading">
            <h2 id="results-heading" className={styles.sectionTitle}>
              {term ? <>Results for “{term}”</> : "All products"}
            </h2>
            <p className={styles.count}>{results.length === 1 ? "1 product" : `${results.length} products`}</p>
            {results.length === 0 ? (
              <p className={styles.quiet}>
                No products match “{term}”. <Link href="/demo">See all products</Link>.
              </p>
            ) : (
              <ul className={styles.results} data-testid="organic-results">
                {results.map((product) => (
                  <li key={product.sku}>
                    <Link className={styles.productCard} href={productHref(product.sku)} data-testid="organic-result">
                      {product.imageUrl ? <img className={styles.cardImage} src={product.imageUrl} alt="" width={160} height={120} /> : null}
                      <span className={styles.cardName}>{product.name}</span>
                      <span className={styles.price}>{formatPrice(product.price)}</span>
                      {product.category ? <span className={styles.meta}>{product.category}</span> : null}
                    </Link>
                  </li>
                ))}
              </ul>
            )}
          </section>
        </SponsoredAds>
      </main>
    </>
  );
}
