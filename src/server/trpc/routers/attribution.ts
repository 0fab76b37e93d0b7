// How far back a conversion looks for a touch, per campaign type: everyone signed in may read it,
// account managers change it.
import { z } from "zod";
import { attributionWindows, setAttributionWindow } from "@/server/attribution/attribution-windows";
import { router, signedInProcedure, staffProcedure } from "../trpc";

export const attributionRouter = router({
  windows: signedInProcedure.query(() => attributionWindows()),
  setWindow: staffProcedure
    .input(z.object({ campaignType: z.enum(["product", "display", "video"]), days: z.number().int().min(1).max(90) }))
    .mutation(async ({ input }) => {
      await setAttributionWindow(input);
      return attributionWindows();
    }),
});
