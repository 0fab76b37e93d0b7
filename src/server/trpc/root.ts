// The dashboard's API, one router per subject; each procedure is a thin call into src/server/<domain>/.
import { authRouter } from "./routers/auth";
import { exportDestinationsRouter } from "./routers/export-destinations";
import { createCallerFactory, router } from "./trpc";

export const appRouter = router({
  auth: authRouter,
  exportDestinations: exportDestinationsRouter,
});

export type AppRouter = typeof appRouter;
export const createCaller = createCallerFactory(appRouter);
