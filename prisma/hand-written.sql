-- Schema that prisma/schema.prisma cannot express (partial indexes, CHECK constraints), in the
-- state the migrations leave it. The migration that introduces each statement carries it too;
-- src/server/db/schema.int.test.ts applies this file after Prisma's own script, so the migrated
-- database must equal schema.prisma plus exactly this.

-- The click-velocity rule counts one address's clicks in the last minute (store-beacons.sql.ts):
-- only clicks, so impressions and views, most of the traffic, pay for no entry.
CREATE INDEX "ad_events_click_client_hash_created_at_idx" ON "ad_events" ("client_hash", "created_at") WHERE "kind" = 'click';

-- A member sees one account, so a member without one must not exist: a missing account must never
-- read as every account (20261125200100_members_need_an_account).
ALTER TABLE "users" ADD CONSTRAINT "users_member_has_account_check" CHECK ("role" <> 'member' OR "account_id" IS NOT NULL);
