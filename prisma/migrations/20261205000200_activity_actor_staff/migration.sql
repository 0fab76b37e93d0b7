-- Whether an activity entry's actor was staff, so members read "Tally staff" instead of a staff
-- member's name and e-mail. Entries written before: the actor counts as staff unless it is still
-- a member (a removed user's role is unknown, and hiding a name is the safe side).
ALTER TABLE "activity_log" ADD COLUMN     "actor_staff" BOOLEAN NOT NULL DEFAULT false;

UPDATE "activity_log" AS entry
   SET "actor_staff" = true
 WHERE entry."actor_user_id" IS NOT NULL
   AND NOT EXISTS (SELECT 1 FROM "users" AS u WHERE u."id" = entry."actor_user_id" AND u."role" = 'member');
