-- Sign-in back-off per e-mail and client address: wrong passwords in a row, the block they earned
-- (doubling up to a cap), and the last successful sign-in from that address. Keys are HMACs, so
-- neither the e-mail nor the address is stored (src/server/accounts/sign-in-limits.ts).

-- CreateTable
CREATE TABLE "sign_in_backoff" (
    "key" VARCHAR(64) NOT NULL,
    "failures" INTEGER NOT NULL DEFAULT 0,
    "blocked_until" TIMESTAMPTZ(3),
    "succeeded_at" TIMESTAMPTZ(3),
    "expires_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "sign_in_backoff_pkey" PRIMARY KEY ("key")
);

-- CreateIndex
CREATE INDEX "sign_in_backoff_expires_at_idx" ON "sign_in_backoff"("expires_at");

