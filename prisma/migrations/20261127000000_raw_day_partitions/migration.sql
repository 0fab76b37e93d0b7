-- Day partitions for the three largest tables (docs/decisions.md, section Retention). ad_events is
-- partitioned by the day a beacon was accepted, conversions by the day an order was accepted and
-- attributions by the day of their order (conversion_received_at), so an order and its credited
-- items are kept and dropped together. Retention drops whole days once the attribution and
-- de-duplication windows and every destination export have passed them, which costs the same
-- whatever a day holds. Postgres requires the partition key in every unique index, so the primary
-- keys gain it, and the foreign keys from attributions to conversions and ad_events go (dropping a
-- day of a referenced partitioned table is refused while any row refers to it).

-- The existing rows move into the new tables.
ALTER TABLE "attributions" DROP CONSTRAINT "attributions_conversion_id_fkey";
ALTER TABLE "attributions" DROP CONSTRAINT "attributions_event_id_fkey";
ALTER TABLE "conversions" DROP CONSTRAINT "conversions_publisher_id_fkey";

ALTER TABLE "ad_events" RENAME TO "ad_events_unpartitioned";
ALTER TABLE "conversions" RENAME TO "conversions_unpartitioned";
ALTER TABLE "attributions" RENAME TO "attributions_unpartitioned";
ALTER TABLE "ad_events_unpartitioned" DROP CONSTRAINT "ad_events_pkey";
ALTER TABLE "conversions_unpartitioned" DROP CONSTRAINT "conversions_pkey";
ALTER TABLE "attributions_unpartitioned" DROP CONSTRAINT "attributions_pkey";
DROP INDEX "ad_events_session_id_created_at_idx";
DROP INDEX "ad_events_user_id_created_at_idx";
DROP INDEX "ad_events_campaign_id_created_at_idx";
DROP INDEX "ad_events_created_at_idx";
DROP INDEX "conversions_publisher_id_order_id_idx";
DROP INDEX "conversions_received_at_idx";
DROP INDEX "conversions_attributed_at_received_at_idx";
DROP INDEX "attributions_campaign_id_placed_at_idx";
DROP INDEX "attributions_ad_id_placed_at_idx";
DROP INDEX "attributions_advertiser_id_placed_at_idx";
DROP INDEX "attributions_publisher_id_placed_at_idx";
DROP INDEX "attributions_created_at_idx";

CREATE TABLE "ad_events" (
    "event_id" UUID NOT NULL,
    "kind" "EventKind" NOT NULL,
    "status" "EventStatus" NOT NULL,
    "session_id" TEXT NOT NULL,
    "user_id" TEXT,
    "ad_id" TEXT NOT NULL,
    "campaign_id" TEXT NOT NULL,
    "advertiser_id" TEXT NOT NULL,
    "publisher_id" TEXT NOT NULL,
    "request_id" TEXT NOT NULL,
    "ad_type" "AdType" NOT NULL,
    "ad_size" TEXT,
    "placement_name" TEXT NOT NULL,
    "context" TEXT NOT NULL,
    "site" TEXT NOT NULL,
    "spend_micros" BIGINT NOT NULL DEFAULT 0,
    "user_agent" TEXT,
    "client_hash" TEXT,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "ad_events_pkey" PRIMARY KEY ("event_id","created_at")
) PARTITION BY RANGE ("created_at");

CREATE TABLE "conversions" (
    "event_id" UUID NOT NULL,
    "publisher_id" TEXT NOT NULL,
    "order_id" TEXT NOT NULL,
    "user_id" TEXT NOT NULL,
    "session_id" TEXT NOT NULL,
    "channel" TEXT NOT NULL,
    "site" TEXT NOT NULL,
    "placed_at" TIMESTAMPTZ(3) NOT NULL,
    "gender" TEXT,
    "uf" TEXT,
    "city" TEXT,
    "is_company" BOOLEAN,
    "email_hashed" CHAR(64) NOT NULL,
    "phone_hashed" CHAR(64),
    "social_id_hashed" CHAR(64),
    "first_name_hashed" TEXT,
    "last_name_hashed" TEXT,
    "received_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "attributed_at" TIMESTAMPTZ(3),
    "attribution_failed_reason" TEXT,
    "items" JSONB NOT NULL,

    CONSTRAINT "conversions_pkey" PRIMARY KEY ("event_id","received_at")
) PARTITION BY RANGE ("received_at");

CREATE TABLE "attributions" (
    "conversion_id" UUID NOT NULL,
    "conversion_received_at" TIMESTAMPTZ(3) NOT NULL,
    "item_position" INTEGER NOT NULL,
    "publisher_id" TEXT NOT NULL,
    "order_id" TEXT NOT NULL,
    "session_id" TEXT NOT NULL,
    "user_id" TEXT NOT NULL,
    "product_sku" TEXT NOT NULL,
    "event_id" UUID NOT NULL,
    "event_kind" "EventKind" NOT NULL,
    "ad_id" TEXT NOT NULL,
    "campaign_id" TEXT NOT NULL,
    "advertiser_id" TEXT NOT NULL,
    "request_id" TEXT NOT NULL,
    "ad_size" TEXT,
    "ad_type" "AdType" NOT NULL,
    "placement_name" TEXT NOT NULL,
    "context" TEXT NOT NULL,
    "site" TEXT NOT NULL,
    "event_created_at" TIMESTAMPTZ(3) NOT NULL,
    "placed_at" TIMESTAMPTZ(3) NOT NULL,
    "price_micros" BIGINT NOT NULL,
    "promotional_price_micros" BIGINT NOT NULL,
    "quantity" DOUBLE PRECISION NOT NULL,
    "total_value_micros" BIGINT NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "attributions_pkey" PRIMARY KEY ("conversion_id","item_position","conversion_received_at")
) PARTITION BY RANGE ("conversion_received_at");

-- The default partitions catch rows of a day whose partition upkeep has not made yet.
CREATE TABLE "ad_events_default" PARTITION OF "ad_events" DEFAULT;
CREATE TABLE "conversions_default" PARTITION OF "conversions" DEFAULT;
CREATE TABLE "attributions_default" PARTITION OF "attributions" DEFAULT;

CREATE INDEX "ad_events_session_id_created_at_idx" ON "ad_events"("session_id", "created_at");
CREATE INDEX "ad_events_user_id_created_at_idx" ON "ad_events"("user_id", "created_at");
CREATE INDEX "ad_events_campaign_id_created_at_idx" ON "ad_events"("campaign_id", "created_at");
CREATE INDEX "ad_events_created_at_idx" ON "ad_events"("created_at");
CREATE INDEX "conversions_publisher_id_order_id_idx" ON "conversions"("publisher_id", "order_id");
CREATE INDEX "conversions_received_at_idx" ON "conversions"("received_at");
CREATE INDEX "conversions_attributed_at_received_at_idx" ON "conversions"("attributed_at", "received_at");
CREATE INDEX "attributions_campaign_id_placed_at_idx" ON "attributions"("campaign_id", "placed_at");
CREATE INDEX "attributions_ad_id_placed_at_idx" ON "attributions"("ad_id", "placed_at");
CREATE INDEX "attributions_advertiser_id_placed_at_idx" ON "attributions"("advertiser_id", "placed_at");
CREATE INDEX "attributions_publisher_id_placed_at_idx" ON "attributions"("publisher_id", "placed_at");
CREATE INDEX "attributions_created_at_idx" ON "attributions"("created_at");

ALTER TABLE "conversions" ADD CONSTRAINT "conversions_publisher_id_fkey" FOREIGN KEY ("publisher_id") REFERENCES "accounts"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- The rows already stored land in the default partitions (the migration engine runs plain
-- statements, so it cannot create a partition per day found). Upkeep creates each later day ahead,
-- and retention deletes the default partitions rows once their day has passed retention, as it does
-- for the logs.
INSERT INTO "ad_events" ("event_id", "kind", "status", "session_id", "user_id", "ad_id", "campaign_id", "advertiser_id", "publisher_id", "request_id", "ad_type", "ad_size", "placement_name", "context", "site", "spend_micros", "user_agent", "client_hash", "created_at")
SELECT "event_id", "kind", "status", "session_id", "user_id", "ad_id", "campaign_id", "advertiser_id", "publisher_id", "request_id", "ad_type", "ad_size", "placement_name", "context", "site", "spend_micros", "user_agent", "client_hash", "created_at" FROM "ad_events_unpartitioned";
INSERT INTO "conversions" ("event_id", "publisher_id", "order_id", "user_id", "session_id", "channel", "site", "placed_at", "gender", "uf", "city", "is_company", "email_hashed", "phone_hashed", "social_id_hashed", "first_name_hashed", "last_name_hashed", "received_at", "attributed_at", "attribution_failed_reason", "items")
SELECT "event_id", "publisher_id", "order_id", "user_id", "session_id", "channel", "site", "placed_at", "gender", "uf", "city", "is_company", "email_hashed", "phone_hashed", "social_id_hashed", "first_name_hashed", "last_name_hashed", "received_at", "attributed_at", "attribution_failed_reason", "items" FROM "conversions_unpartitioned";
INSERT INTO "attributions" ("conversion_id", "conversion_received_at", "item_position", "publisher_id", "order_id", "session_id", "user_id", "product_sku", "event_id", "event_kind", "ad_id", "campaign_id", "advertiser_id", "request_id", "ad_size", "ad_type", "placement_name", "context", "site", "event_created_at", "placed_at", "price_micros", "promotional_price_micros", "quantity", "total_value_micros", "created_at")
SELECT a."conversion_id", c."received_at", a."item_position", a."publisher_id", a."order_id", a."session_id", a."user_id", a."product_sku", a."event_id", a."event_kind", a."ad_id", a."campaign_id", a."advertiser_id", a."request_id", a."ad_size", a."ad_type", a."placement_name", a."context", a."site", a."event_created_at", a."placed_at", a."price_micros", a."promotional_price_micros", a."quantity", a."total_value_micros", a."created_at"
  FROM "attributions_unpartitioned" a JOIN "conversions_unpartitioned" c ON c."event_id" = a."conversion_id";

DROP TABLE "attributions_unpartitioned";
DROP TABLE "conversions_unpartitioned";
DROP TABLE "ad_events_unpartitioned";

-- Where retention has dropped raw rows up to: the first day whose raw rows are all still there,
-- per table. rollups:verify recounts only days from there on.
CREATE TABLE "raw_retention" (
    "table_name" TEXT NOT NULL,
    "kept_from" DATE NOT NULL,
    "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "raw_retention_pkey" PRIMARY KEY ("table_name")
);
