-- A wallet's top-ups as they were made, the ledger the account page lists beside each day's
-- charges (docs/dashboard.md, Wallet). Append-only: rules turn an update or a delete into nothing,
-- and the account a top-up belongs to cannot be deleted under it. The dashboard's request id is
-- unique per account, so a request sent twice tops up once.

-- CreateTable
CREATE TABLE "wallet_top_ups" (
    "id" TEXT NOT NULL,
    "account_id" TEXT NOT NULL,
    "request_id" TEXT NOT NULL,
    "amount_micros" BIGINT NOT NULL,
    "balance_after_micros" BIGINT NOT NULL,
    "actor_user_id" TEXT,
    "actor_name" TEXT NOT NULL,
    "at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "wallet_top_ups_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "wallet_top_ups_account_id_at_idx" ON "wallet_top_ups"("account_id", "at" DESC);

-- CreateIndex
CREATE UNIQUE INDEX "wallet_top_ups_account_id_request_id_key" ON "wallet_top_ups"("account_id", "request_id");

-- Hand-written (prisma/hand-written.sql): the account, kept, and the rows, never changed
ALTER TABLE "wallet_top_ups" ADD CONSTRAINT "wallet_top_ups_account_id_fkey" FOREIGN KEY ("account_id") REFERENCES "accounts"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

CREATE RULE "wallet_top_ups_no_update" AS ON UPDATE TO "wallet_top_ups" DO INSTEAD NOTHING;

CREATE RULE "wallet_top_ups_no_delete" AS ON DELETE TO "wallet_top_ups" DO INSTEAD NOTHING;
