import type { Metadata } from "next";
import Link from "next/link";
import { notFound } from "next/navigation";
import { TopNav } from "../../../top-nav";
import styles from "../../demo.module.css";
import { requireDemo } from "../../demo-enabled";
import { allProducts, productBySku } from "../../product-lookups";
import { formatPrice } from "../../products";
import { SponsoredAds } from "../../sponsored-ads";
import { Checkout } from "./checkout";

export const dynamic = "force-dynamic";

type Params = Promise<{ sku: string }>;

function decodeSku(raw: string): string {
  try {
    return decodeURIComponent(raw);
  } catch {
    return raw;
  }
}

export async function generateMetadata({ params }: { params: Params }): Promise<Metadata> {
  await requireDemo();
  const product = await productBySku(decodeSku((await params).sku));
  return { title: product ? `${product.name} · Demo store` : "Product not found · Demo store" };
}

export default async function DemoProductPage({ params }: { params: Params }) {
  await requireDemo();
  const sku = decodeSku((await params).sku);
  const [product, catalog] = await Promise.all([productBySku(sku), allProducts()]);
  if (!product) notFound();

  return (
    <>
      <TopNav />
      <main>
        <Link className={styles.back} href="/demo">
          ← Demo Market: all products
        </Link>
        <SponsoredAds key={product.sku} context="product" productSku={product.sku} products={catalog}>
          <article className={styles.product} aria-labelledby="product-name">
            {product.imageUrl ? <img className={styles.productImage} src={product.imageUrl} alt={product.name} width={320} height={240} /> : null}
            <div>
              <h1 id="product-name">{product.name}</h1>
              <p className={styles.productPrice}>{formatPrice(product.price)}</p>
              <dl className={styles.facts}>
                {product.category ? (
                  <>
                    <dt>Category</dt>
                    <dd>
                      <Link href={`/demo?q=${encodeURIComponent(product.category)}`}>{product.category}</Link>
                    </dd>
                  </>
                ) : null}
                <dt>SKU</dt>
                <dd>{product.sku}</dd>
              </dl>
              <Checkout key={product.sku} sku={product.sku} price={product.price} />
            </div>
          </article>
        </SponsoredAds>
      </main>
    </>
  );
}
