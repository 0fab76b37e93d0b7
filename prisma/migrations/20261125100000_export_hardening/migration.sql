-- Export hardening. A batch remembers the row count its keys were planned for (a batch whose rows
-- differ at delivery is planned again, with new keys) and the keys of earlier plans, deleted
-- before the new files go up. Rows that no attempt could read or encode are set aside, counted
-- and listed with their reason on the run.
-- (Prisma splits this file at semicolons and quotes even inside comments: comments here use neither.)

-- AlterTable
ALTER TABLE "export_runs" ADD COLUMN     "planned_rows" BIGINT NOT NULL DEFAULT 0,
ADD COLUMN     "set_aside" JSONB NOT NULL DEFAULT '[]',
ADD COLUMN     "set_aside_rows" INTEGER NOT NULL DEFAULT 0,
ADD COLUMN     "stale_keys" TEXT[];
