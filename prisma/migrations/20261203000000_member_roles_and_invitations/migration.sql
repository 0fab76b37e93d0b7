-- Member roles: an admin changes the objects of its account, a viewer reads and downloads only. Every
-- member so far could change their account, so each becomes an admin. Staff have no member role.
CREATE TYPE "MemberRole" AS ENUM ('admin', 'viewer');

ALTER TABLE "users" ADD COLUMN     "member_role" "MemberRole";

UPDATE "users" SET "member_role" = 'admin' WHERE "role" = 'member';

ALTER TABLE "users" ADD CONSTRAINT "users_member_role_check" CHECK (("role" = 'member') = ("member_role" IS NOT NULL));

-- Invitations to join an account, by a link whose token only its SHA-256 is kept of (docs/teams.md).
CREATE TABLE "user_invitations" (
    "id" TEXT NOT NULL,
    "account_id" TEXT NOT NULL,
    "email" TEXT NOT NULL,
    "role" "MemberRole" NOT NULL,
    "token_hash" CHAR(64) NOT NULL,
    "invited_by" TEXT,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "expires_at" TIMESTAMPTZ(3) NOT NULL,
    "accepted_at" TIMESTAMPTZ(3),
    "revoked_at" TIMESTAMPTZ(3),

    CONSTRAINT "user_invitations_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE UNIQUE INDEX "user_invitations_token_hash_key" ON "user_invitations"("token_hash");

-- CreateIndex
CREATE INDEX "user_invitations_account_id_created_at_idx" ON "user_invitations"("account_id", "created_at");

-- CreateIndex
CREATE INDEX "user_invitations_email_idx" ON "user_invitations"("email");

-- AddForeignKey
ALTER TABLE "user_invitations" ADD CONSTRAINT "user_invitations_account_id_fkey" FOREIGN KEY ("account_id") REFERENCES "accounts"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "user_invitations" ADD CONSTRAINT "user_invitations_invited_by_fkey" FOREIGN KEY ("invited_by") REFERENCES "users"("id") ON DELETE SET NULL ON UPDATE CASCADE;
