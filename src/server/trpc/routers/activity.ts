// The activity log: who changed what, when, newest first, filtered and paged; staff read every
// entry, a member their own account's.
import { listActivity } from "@/server/accounts/list-activity";
import { ZListActivityInput } from "@/server/activity/activity-input";
import { router, signedInProcedure } from "../trpc";

export const activityRouter = router({
  list: signedInProcedure
    .input(ZListActivityInput)
    .query(({ ctx, input: { cursor, ...filter } }) => listActivity({ actor: ctx.viewer, ...filter, before: cursor ?? undefined })),
});
