-- A member without an account must be impossible: every scope built from a member is that
-- account, and a missing one must never read as every account. Tally never created such a user
-- (createUser refuses it), but a row written by hand could exist. Its sessions end first, and
-- stay ended. Then the CHECK is added, and refuses to apply while such a user remains: give each
-- one an account (UPDATE users SET account_id = ...) or delete it, mark this migration rolled back
-- (npx prisma migrate resolve --rolled-back 20261125200100_members_need_an_account) and deploy
-- again. The DELETE can run again safely.
-- (Prisma splits this file at semicolons and quotes even inside comments: comments here use neither.)

DELETE FROM "user_sessions" WHERE "user_id" IN (SELECT "id" FROM "users" WHERE "role" = 'member' AND "account_id" IS NULL);

ALTER TABLE "users" ADD CONSTRAINT "users_member_has_account_check" CHECK ("role" <> 'member' OR "account_id" IS NOT NULL);
