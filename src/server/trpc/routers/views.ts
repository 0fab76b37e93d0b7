// A signed-in user's saved dashboard views; each procedure calls one function of src/server/views/.
import { ZSavedViewId, ZSaveViewInput } from "@/server/views/saved-view-input";
import { listSavedViews, removeSavedView, saveView } from "@/server/views/saved-views";
import { router, signedInProcedure } from "../trpc";

export const viewsRouter = router({
  list: signedInProcedure.query(({ ctx }) => listSavedViews({ viewer: ctx.viewer })),
  save: signedInProcedure.input(ZSaveViewInput).mutation(({ ctx, input }) => saveView({ viewer: ctx.viewer, ...input })),
  remove: signedInProcedure.input(ZSavedViewId).mutation(({ ctx, input }) => removeSavedView({ viewer: ctx.viewer, id: input.id })),
});
