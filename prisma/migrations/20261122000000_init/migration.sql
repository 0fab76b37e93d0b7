-- CreateSchema
CREATE SCHEMA IF NOT EXISTS "public";

-- CreateEnum
CREATE TYPE "AccountKind" AS ENUM ('publisher', 'advertiser', 'network');

-- CreateEnum
CREATE TYPE "CampaignType" AS ENUM ('product', 'display', 'video');

-- CreateEnum
CREATE TYPE "CampaignStatus" AS ENUM ('draft', 'active', 'paused', 'ended', 'archived');

-- CreateEnum
CREATE TYPE "BidModel" AS ENUM ('cpm', 'cpc');

-- CreateEnum
CREATE TYPE "AdType" AS ENUM ('product', 'banner', 'video');

-- CreateEnum
CREATE TYPE "AdStatus" AS ENUM ('active', 'paused', 'archived');

-- CreateEnum
CREATE TYPE "EventKind" AS ENUM ('impression', 'view', 'click');

-- CreateEnum
CREATE TYPE "EventStatus" AS ENUM ('counted', 'duplicate', 'bot');

-- CreateEnum
CREATE TYPE "UserRole" AS ENUM ('staff', 'member');

-- CreateEnum
CREATE TYPE "CredentialKind" AS ENUM ('access_key', 'assume_role');

-- CreateEnum
CREATE TYPE "DestinationStatus" AS ENUM ('active', 'needs_attention', 'disabled');

-- CreateEnum
CREATE TYPE "ExportType" AS ENUM ('ad_events', 'orders', 'order_items', 'advertisers', 'campaigns', 'ads');

-- CreateEnum
CREATE TYPE "ExportRunStatus" AS ENUM ('running', 'succeeded', 'failed');

-- CreateTable
CREATE TABLE "accounts" (
    "id" TEXT NOT NULL,
    "kind" "AccountKind" NOT NULL,
    "name" TEXT NOT NULL,
    "currency" CHAR(3) NOT NULL DEFAULT 'USD',
    "seller_id" TEXT,
    "wallet_balance_micros" BIGINT NOT NULL DEFAULT 0,
    "daily_budget_micros" BIGINT,
    "network_id" TEXT,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "accounts_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "sites" (
    "id" TEXT NOT NULL,
    "publisher_id" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    "domain" TEXT,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "sites_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "campaigns" (
    "id" TEXT NOT NULL,
    "advertiser_id" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    "type" "CampaignType" NOT NULL,
    "status" "CampaignStatus" NOT NULL DEFAULT 'draft',
    "start_date" DATE NOT NULL,
    "end_date" DATE,
    "bid_model" "BidModel" NOT NULL,
    "bid_micros" BIGINT NOT NULL,
    "daily_budget_micros" BIGINT,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "campaigns_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "campaign_publishers" (
    "campaign_id" TEXT NOT NULL,
    "publisher_id" TEXT NOT NULL,

    CONSTRAINT "campaign_publishers_pkey" PRIMARY KEY ("campaign_id","publisher_id")
);

-- CreateTable
CREATE TABLE "attribution_windows" (
    "campaign_type" "CampaignType" NOT NULL,
    "window_seconds" INTEGER NOT NULL DEFAULT 1209600,
    "updated_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "attribution_windows_pkey" PRIMARY KEY ("campaign_type")
);

-- CreateTable
CREATE TABLE "products" (
    "id" TEXT NOT NULL,
    "advertiser_id" TEXT NOT NULL,
    "sku" TEXT NOT NULL,
    "product_id" TEXT,
    "name" TEXT NOT NULL,
    "category" TEXT,
    "image_url" TEXT,
    "price_micros" BIGINT,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "products_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "campaign_products" (
    "campaign_id" TEXT NOT NULL,
    "product_ref" TEXT NOT NULL,

    CONSTRAINT "campaign_products_pkey" PRIMARY KEY ("campaign_id","product_ref")
);

-- CreateTable
CREATE TABLE "ads" (
    "id" TEXT NOT NULL,
    "campaign_id" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    "type" "AdType" NOT NULL,
    "size" TEXT,
    "media_url" TEXT,
    "destination_url" TEXT,
    "status" "AdStatus" NOT NULL DEFAULT 'active',
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "ads_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "ad_products" (
    "ad_id" TEXT NOT NULL,
    "product_ref" TEXT NOT NULL,

    CONSTRAINT "ad_products_pkey" PRIMARY KEY ("ad_id","product_ref")
);

-- CreateTable
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
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "ad_events_pkey" PRIMARY KEY ("event_id")
);

-- CreateTable
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

    CONSTRAINT "conversions_pkey" PRIMARY KEY ("event_id")
);

-- CreateTable
CREATE TABLE "order_receipts" (
    "publisher_id" TEXT NOT NULL,
    "order_id" TEXT NOT NULL,
    "conversion_id" UUID NOT NULL,
    "first_received_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "order_receipts_pkey" PRIMARY KEY ("publisher_id","order_id")
);

-- CreateTable
CREATE TABLE "conversion_items" (
    "id" UUID NOT NULL,
    "conversion_id" UUID NOT NULL,
    "position" INTEGER NOT NULL,
    "sku" TEXT NOT NULL,
    "product_id" TEXT,
    "seller_id" TEXT,
    "quantity" DOUBLE PRECISION NOT NULL,
    "price_micros" BIGINT NOT NULL,
    "promotional_price_micros" BIGINT NOT NULL,

    CONSTRAINT "conversion_items_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "attributions" (
    "conversion_item_id" UUID NOT NULL,
    "conversion_id" UUID NOT NULL,
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

    CONSTRAINT "attributions_pkey" PRIMARY KEY ("conversion_item_id")
);

-- CreateTable
CREATE TABLE "campaign_daily_spend" (
    "campaign_id" TEXT NOT NULL,
    "day" DATE NOT NULL,
    "spend_micros" BIGINT NOT NULL DEFAULT 0,

    CONSTRAINT "campaign_daily_spend_pkey" PRIMARY KEY ("campaign_id","day")
);

-- CreateTable
CREATE TABLE "advertiser_daily_spend" (
    "advertiser_id" TEXT NOT NULL,
    "day" DATE NOT NULL,
    "spend_micros" BIGINT NOT NULL DEFAULT 0,

    CONSTRAINT "advertiser_daily_spend_pkey" PRIMARY KEY ("advertiser_id","day")
);

-- CreateTable
CREATE TABLE "daily_rollups" (
    "day" DATE NOT NULL,
    "publisher_id" TEXT NOT NULL,
    "site" TEXT NOT NULL,
    "advertiser_id" TEXT NOT NULL,
    "campaign_id" TEXT NOT NULL,
    "ad_id" TEXT NOT NULL,
    "placement_name" TEXT NOT NULL,
    "impressions" BIGINT NOT NULL DEFAULT 0,
    "views" BIGINT NOT NULL DEFAULT 0,
    "clicks" BIGINT NOT NULL DEFAULT 0,
    "spend_micros" BIGINT NOT NULL DEFAULT 0,
    "duplicate_events" BIGINT NOT NULL DEFAULT 0,
    "bot_events" BIGINT NOT NULL DEFAULT 0,
    "other_invalid_events" BIGINT NOT NULL DEFAULT 0,
    "attributed_items" BIGINT NOT NULL DEFAULT 0,
    "conversions" BIGINT NOT NULL DEFAULT 0,
    "sales_revenue_micros" BIGINT NOT NULL DEFAULT 0,

    CONSTRAINT "daily_rollups_pkey" PRIMARY KEY ("day","publisher_id","site","advertiser_id","campaign_id","ad_id","placement_name")
);

-- CreateTable
CREATE TABLE "users" (
    "id" TEXT NOT NULL,
    "email" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    "password_hash" TEXT NOT NULL,
    "role" "UserRole" NOT NULL,
    "account_id" TEXT,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "users_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "user_sessions" (
    "token_hash" CHAR(64) NOT NULL,
    "user_id" TEXT NOT NULL,
    "expires_at" TIMESTAMPTZ(3) NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "user_sessions_pkey" PRIMARY KEY ("token_hash")
);

-- CreateTable
CREATE TABLE "api_keys" (
    "id" TEXT NOT NULL,
    "account_id" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    "prefix" TEXT NOT NULL,
    "key_hash" CHAR(64) NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "last_used_at" TIMESTAMPTZ(3),
    "revoked_at" TIMESTAMPTZ(3),

    CONSTRAINT "api_keys_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "export_destinations" (
    "id" TEXT NOT NULL,
    "account_id" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    "bucket" TEXT NOT NULL,
    "region" TEXT NOT NULL,
    "endpoint" TEXT,
    "force_path_style" BOOLEAN NOT NULL DEFAULT false,
    "prefix" TEXT NOT NULL DEFAULT '',
    "credential_kind" "CredentialKind" NOT NULL,
    "access_key_id" TEXT,
    "secret_ciphertext" BYTEA,
    "role_arn" TEXT,
    "external_id" TEXT,
    "write_success_marker" BOOLEAN NOT NULL DEFAULT true,
    "types" "ExportType"[],
    "status" "DestinationStatus" NOT NULL DEFAULT 'active',
    "status_reason" TEXT,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "export_destinations_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "export_runs" (
    "id" TEXT NOT NULL,
    "destination_id" TEXT NOT NULL,
    "type" "ExportType" NOT NULL,
    "status" "ExportRunStatus" NOT NULL,
    "range_start" TIMESTAMPTZ(3) NOT NULL,
    "range_end" TIMESTAMPTZ(3) NOT NULL,
    "keys" TEXT[],
    "rows" BIGINT NOT NULL DEFAULT 0,
    "files" INTEGER NOT NULL DEFAULT 0,
    "bytes" BIGINT NOT NULL DEFAULT 0,
    "attempt" INTEGER NOT NULL DEFAULT 1,
    "error" TEXT,
    "next_attempt_at" TIMESTAMPTZ(3),
    "started_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "finished_at" TIMESTAMPTZ(3),
    "duration_ms" INTEGER,

    CONSTRAINT "export_runs_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "export_watermarks" (
    "destination_id" TEXT NOT NULL,
    "type" "ExportType" NOT NULL,
    "delivered_to" TIMESTAMPTZ(3) NOT NULL,
    "updated_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "export_watermarks_pkey" PRIMARY KEY ("destination_id","type")
);

-- CreateIndex
CREATE INDEX "accounts_kind_name_idx" ON "accounts"("kind", "name");

-- CreateIndex
CREATE INDEX "accounts_network_id_idx" ON "accounts"("network_id");

-- CreateIndex
CREATE UNIQUE INDEX "sites_publisher_id_name_key" ON "sites"("publisher_id", "name");

-- CreateIndex
CREATE INDEX "campaigns_advertiser_id_status_idx" ON "campaigns"("advertiser_id", "status");

-- CreateIndex
CREATE INDEX "campaigns_status_start_date_idx" ON "campaigns"("status", "start_date");

-- CreateIndex
CREATE INDEX "campaign_publishers_publisher_id_idx" ON "campaign_publishers"("publisher_id");

-- CreateIndex
CREATE INDEX "products_sku_idx" ON "products"("sku");

-- CreateIndex
CREATE INDEX "products_product_id_idx" ON "products"("product_id");

-- CreateIndex
CREATE INDEX "products_category_idx" ON "products"("category");

-- CreateIndex
CREATE UNIQUE INDEX "products_advertiser_id_sku_key" ON "products"("advertiser_id", "sku");

-- CreateIndex
CREATE INDEX "campaign_products_product_ref_idx" ON "campaign_products"("product_ref");

-- CreateIndex
CREATE INDEX "ads_campaign_id_status_idx" ON "ads"("campaign_id", "status");

-- CreateIndex
CREATE INDEX "ad_events_session_id_created_at_idx" ON "ad_events"("session_id", "created_at");

-- CreateIndex
CREATE INDEX "ad_events_user_id_created_at_idx" ON "ad_events"("user_id", "created_at");

-- CreateIndex
CREATE INDEX "ad_events_campaign_id_created_at_idx" ON "ad_events"("campaign_id", "created_at");

-- CreateIndex
CREATE INDEX "ad_events_created_at_idx" ON "ad_events"("created_at");

-- CreateIndex
CREATE INDEX "conversions_publisher_id_order_id_idx" ON "conversions"("publisher_id", "order_id");

-- CreateIndex
CREATE INDEX "conversions_received_at_idx" ON "conversions"("received_at");

-- CreateIndex
CREATE INDEX "conversions_attributed_at_received_at_idx" ON "conversions"("attributed_at", "received_at");

-- CreateIndex
CREATE INDEX "conversion_items_sku_idx" ON "conversion_items"("sku");

-- CreateIndex
CREATE UNIQUE INDEX "conversion_items_conversion_id_position_key" ON "conversion_items"("conversion_id", "position");

-- CreateIndex
CREATE INDEX "attributions_campaign_id_placed_at_idx" ON "attributions"("campaign_id", "placed_at");

-- CreateIndex
CREATE INDEX "attributions_ad_id_placed_at_idx" ON "attributions"("ad_id", "placed_at");

-- CreateIndex
CREATE INDEX "attributions_created_at_idx" ON "attributions"("created_at");

-- CreateIndex
CREATE INDEX "daily_rollups_advertiser_id_day_idx" ON "daily_rollups"("advertiser_id", "day");

-- CreateIndex
CREATE INDEX "daily_rollups_campaign_id_day_idx" ON "daily_rollups"("campaign_id", "day");

-- CreateIndex
CREATE INDEX "daily_rollups_publisher_id_day_idx" ON "daily_rollups"("publisher_id", "day");

-- CreateIndex
CREATE INDEX "daily_rollups_ad_id_day_idx" ON "daily_rollups"("ad_id", "day");

-- CreateIndex
CREATE UNIQUE INDEX "users_email_key" ON "users"("email");

-- CreateIndex
CREATE INDEX "user_sessions_user_id_idx" ON "user_sessions"("user_id");

-- CreateIndex
CREATE UNIQUE INDEX "api_keys_key_hash_key" ON "api_keys"("key_hash");

-- CreateIndex
CREATE INDEX "api_keys_account_id_idx" ON "api_keys"("account_id");

-- CreateIndex
CREATE INDEX "export_destinations_account_id_idx" ON "export_destinations"("account_id");

-- CreateIndex
CREATE INDEX "export_runs_destination_id_type_started_at_idx" ON "export_runs"("destination_id", "type", "started_at");

-- CreateIndex
CREATE INDEX "export_runs_status_next_attempt_at_idx" ON "export_runs"("status", "next_attempt_at");

-- AddForeignKey
ALTER TABLE "accounts" ADD CONSTRAINT "accounts_network_id_fkey" FOREIGN KEY ("network_id") REFERENCES "accounts"("id") ON DELETE SET NULL ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "sites" ADD CONSTRAINT "sites_publisher_id_fkey" FOREIGN KEY ("publisher_id") REFERENCES "accounts"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "campaigns" ADD CONSTRAINT "campaigns_advertiser_id_fkey" FOREIGN KEY ("advertiser_id") REFERENCES "accounts"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "campaign_publishers" ADD CONSTRAINT "campaign_publishers_campaign_id_fkey" FOREIGN KEY ("campaign_id") REFERENCES "campaigns"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "campaign_publishers" ADD CONSTRAINT "campaign_publishers_publisher_id_fkey" FOREIGN KEY ("publisher_id") REFERENCES "accounts"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "products" ADD CONSTRAINT "products_advertiser_id_fkey" FOREIGN KEY ("advertiser_id") REFERENCES "accounts"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "campaign_products" ADD CONSTRAINT "campaign_products_campaign_id_fkey" FOREIGN KEY ("campaign_id") REFERENCES "campaigns"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "campaign_products" ADD CONSTRAINT "campaign_products_product_ref_fkey" FOREIGN KEY ("product_ref") REFERENCES "products"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "ads" ADD CONSTRAINT "ads_campaign_id_fkey" FOREIGN KEY ("campaign_id") REFERENCES "campaigns"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "ad_products" ADD CONSTRAINT "ad_products_ad_id_fkey" FOREIGN KEY ("ad_id") REFERENCES "ads"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "ad_products" ADD CONSTRAINT "ad_products_product_ref_fkey" FOREIGN KEY ("product_ref") REFERENCES "products"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "conversions" ADD CONSTRAINT "conversions_publisher_id_fkey" FOREIGN KEY ("publisher_id") REFERENCES "accounts"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "conversion_items" ADD CONSTRAINT "conversion_items_conversion_id_fkey" FOREIGN KEY ("conversion_id") REFERENCES "conversions"("event_id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "attributions" ADD CONSTRAINT "attributions_conversion_item_id_fkey" FOREIGN KEY ("conversion_item_id") REFERENCES "conversion_items"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "attributions" ADD CONSTRAINT "attributions_conversion_id_fkey" FOREIGN KEY ("conversion_id") REFERENCES "conversions"("event_id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "attributions" ADD CONSTRAINT "attributions_event_id_fkey" FOREIGN KEY ("event_id") REFERENCES "ad_events"("event_id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "campaign_daily_spend" ADD CONSTRAINT "campaign_daily_spend_campaign_id_fkey" FOREIGN KEY ("campaign_id") REFERENCES "campaigns"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "advertiser_daily_spend" ADD CONSTRAINT "advertiser_daily_spend_advertiser_id_fkey" FOREIGN KEY ("advertiser_id") REFERENCES "accounts"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "users" ADD CONSTRAINT "users_account_id_fkey" FOREIGN KEY ("account_id") REFERENCES "accounts"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "user_sessions" ADD CONSTRAINT "user_sessions_user_id_fkey" FOREIGN KEY ("user_id") REFERENCES "users"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "api_keys" ADD CONSTRAINT "api_keys_account_id_fkey" FOREIGN KEY ("account_id") REFERENCES "accounts"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "export_destinations" ADD CONSTRAINT "export_destinations_account_id_fkey" FOREIGN KEY ("account_id") REFERENCES "accounts"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "export_runs" ADD CONSTRAINT "export_runs_destination_id_fkey" FOREIGN KEY ("destination_id") REFERENCES "export_destinations"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "export_watermarks" ADD CONSTRAINT "export_watermarks_destination_id_fkey" FOREIGN KEY ("destination_id") REFERENCES "export_destinations"("id") ON DELETE CASCADE ON UPDATE CASCADE;


-- The interface's attribution windows (§8): 14 days for every campaign type, editable per type.
INSERT INTO "attribution_windows" ("campaign_type", "window_seconds", "updated_at") VALUES
  ('product', 1209600, CURRENT_TIMESTAMP),
  ('display', 1209600, CURRENT_TIMESTAMP),
  ('video', 1209600, CURRENT_TIMESTAMP);
