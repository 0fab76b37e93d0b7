-- Negative terms: search terms a campaign is not served for (docs/campaigns.md, "Negative terms").
-- The ad query looks a campaign's up by match_key, so its cost stays the same with a campaign's
-- 1,000 terms as with none.
-- CreateEnum
CREATE TYPE "NegativeMatch" AS ENUM ('exact', 'phrase');

-- CreateTable
CREATE TABLE "campaign_negative_terms" (
    "campaign_id" TEXT NOT NULL,
    "term" TEXT NOT NULL,
    "match" "NegativeMatch" NOT NULL,
    "match_key" TEXT NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "created_by" TEXT NOT NULL,
    "created_by_staff" BOOLEAN NOT NULL DEFAULT false,

    CONSTRAINT "campaign_negative_terms_pkey" PRIMARY KEY ("campaign_id","term","match")
);

-- CreateIndex
CREATE INDEX "campaign_negative_terms_campaign_id_match_key_idx" ON "campaign_negative_terms"("campaign_id", "match_key");

-- AddForeignKey
ALTER TABLE "campaign_negative_terms" ADD CONSTRAINT "campaign_negative_terms_campaign_id_fkey" FOREIGN KEY ("campaign_id") REFERENCES "campaigns"("id") ON DELETE CASCADE ON UPDATE CASCADE;
