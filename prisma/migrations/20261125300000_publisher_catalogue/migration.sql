-- A publisher's catalogue: which brand (advertiser) a SKU, and the product id listed with it,
-- belongs to on that publisher. Campaign writes refuse another advertiser's SKU, and attribution
-- credits a listed SKU's sales on the publisher to its brand's ads only (docs/conversions.md).

-- CreateTable
CREATE TABLE "publisher_catalogue" (
    "publisher_id" TEXT NOT NULL,
    "sku" TEXT NOT NULL,
    "advertiser_id" TEXT NOT NULL,
    "product_id" TEXT,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "publisher_catalogue_pkey" PRIMARY KEY ("publisher_id","sku")
);

-- CreateIndex
CREATE INDEX "publisher_catalogue_publisher_id_product_id_idx" ON "publisher_catalogue"("publisher_id", "product_id");

-- CreateIndex
CREATE INDEX "publisher_catalogue_advertiser_id_idx" ON "publisher_catalogue"("advertiser_id");

-- AddForeignKey
ALTER TABLE "publisher_catalogue" ADD CONSTRAINT "publisher_catalogue_publisher_id_fkey" FOREIGN KEY ("publisher_id") REFERENCES "accounts"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "publisher_catalogue" ADD CONSTRAINT "publisher_catalogue_advertiser_id_fkey" FOREIGN KEY ("advertiser_id") REFERENCES "accounts"("id") ON DELETE CASCADE ON UPDATE CASCADE;
