-- The daily ceilings on unproven intake, shared by every process: what the processes have taken
-- between them of each publisher's UTC day (src/server/pipeline/accept/intake-ceiling.ts). Logged,
-- unlike v1_limit_windows: a crash must not give a flood its day again.

-- CreateTable
CREATE TABLE "intake_ceiling_windows" (
    "window_start_ms" BIGINT NOT NULL,
    "key" TEXT NOT NULL,
    "capacity" INTEGER NOT NULL,
    "taken" INTEGER NOT NULL,
    "last_grant" INTEGER NOT NULL,

    CONSTRAINT "intake_ceiling_windows_pkey" PRIMARY KEY ("window_start_ms","key")
);
