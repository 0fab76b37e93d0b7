-- Order lines move from conversion_items into conversions.items (JSONB), and an attribution is
-- keyed by (conversion_id, item_position). Intake writes one row per order instead of one per
-- line with its indexes and foreign-key check. Existing lines and attributions are carried over.

-- AlterTable
ALTER TABLE "conversions" ADD COLUMN "items" JSONB;

UPDATE "conversions" c
   SET "items" = coalesce((
         SELECT jsonb_agg(jsonb_build_object(
                  'sku', i."sku", 'product_id', i."product_id", 'seller_id', i."seller_id", 'quantity', i."quantity",
                  'price_micros', i."price_micros", 'promotional_price_micros', i."promotional_price_micros")
                ORDER BY i."position")
           FROM "conversion_items" i
          WHERE i."conversion_id" = c."event_id"), '[]'::jsonb);

ALTER TABLE "conversions" ALTER COLUMN "items" SET NOT NULL;

-- AlterTable
ALTER TABLE "attributions" ADD COLUMN "item_position" INTEGER;

UPDATE "attributions" a
   SET "item_position" = i."position"
  FROM "conversion_items" i
 WHERE i."id" = a."conversion_item_id";

ALTER TABLE "attributions" DROP CONSTRAINT "attributions_conversion_item_id_fkey";
ALTER TABLE "attributions" DROP CONSTRAINT "attributions_pkey";
ALTER TABLE "attributions" DROP COLUMN "conversion_item_id";
ALTER TABLE "attributions" ALTER COLUMN "item_position" SET NOT NULL;
ALTER TABLE "attributions" ADD CONSTRAINT "attributions_pkey" PRIMARY KEY ("conversion_id", "item_position");

-- DropTable
DROP TABLE "conversion_items";
