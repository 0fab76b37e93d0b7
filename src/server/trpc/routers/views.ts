// A signed-in user's saved dashboard views; each procedure calls one function of src/server/views/.
import { ZSavedViewId, ZSaveViewInput } from "@/server/views/saved-view-input";
import { listSavedViews, removeSavedView, saveView } from "@/server/views/saved-views";
import { router, signedInProcedure } from "../trpc";

export const viewsRouter = router({
  list: signedInProcedure.query(({ ctx }) => listSavedViews({ actor: ctx.viewer })),
  save: signedInProcedure.input(ZSaveViewInput).mutation(({ ctx, input }) => saveView({ actor: ctx.viewer, ...input })),
  remove: signedInProcedure.input(ZSavedViewId).mutation(({ ctx, input }) => removeSavedView({ actor: ctx.viewer, id: input.id })),
});
