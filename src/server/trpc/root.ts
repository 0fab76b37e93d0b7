// The dashboard's API, one router per subject; each procedure is a thin call into src/server/<domain>/.
import { accountsRouter } from "./routers/accounts";
import { activityRouter } from "./routers/activity";
import { adsRouter } from "./routers/ads";
import { apiKeysRouter } from "./routers/api-keys";
import { attributionRouter } from "./routers/attribution";
import { authRouter } from "./routers/auth";
import { campaignsRouter } from "./routers/campaigns";
import { catalogueRouter } from "./routers/catalogue";
import { conversionTrustRouter } from "./routers/conversion-trust";
import { exportDestinationsRouter } from "./routers/export-destinations";
import { negativeTermsRouter } from "./routers/negative-terms";
import { oauthClientsRouter } from "./routers/oauth-clients";
import { productsRouter } from "./routers/products";
import { statsRouter } from "./routers/stats";
import { teamsRouter } from "./routers/teams";
import { viewsRouter } from "./routers/views";
import { zonesRouter } from "./routers/zones";
import { createCallerFactory, router } from "./trpc";

export const appRouter = router({
  auth: authRouter,
  accounts: accountsRouter,
  stats: statsRouter,
  campaigns: campaignsRouter,
  ads: adsRouter,
  negativeTerms: negativeTermsRouter,
  products: productsRouter,
  catalogue: catalogueRouter,
  conversionTrust: conversionTrustRouter,
  attribution: attributionRouter,
  apiKeys: apiKeysRouter,
  oauthClients: oauthClientsRouter,
  exportDestinations: exportDestinationsRouter,
  activity: activityRouter,
  teams: teamsRouter,
  views: viewsRouter,
  zones: zonesRouter,
});

export type AppRouter = typeof appRouter;
export const createCaller = createCallerFactory(appRouter);
