// How far back a conversion looks for a touch, per campaign type: everyone signed in may read it,
// account managers change it.
import { attributionWindows, setAttributionWindow, ZSetAttributionWindowInput } from "@/server/pipeline/attribute/attribution-windows";
import { router, signedInProcedure, staffProcedure } from "../trpc";

export const attributionRouter = router({
  windows: signedInProcedure.query(() => attributionWindows()),
  setWindow: staffProcedure.input(ZSetAttributionWindowInput).mutation(async ({ ctx, input }) => {
    await setAttributionWindow({ actor: ctx.viewer, ...input });
    return attributionWindows();
  }),
});
