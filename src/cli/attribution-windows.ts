// `npm run attribution:window [-- <product|display|video> <days>]`: prints the attribution window
// of each campaign type, or sets one (from then on; attributed orders keep their credit).
import { env, exitOnEnvError } from "@/env";
import { OPERATOR } from "@/server/accounts/actor";
import { TallyError } from "@/server/core/errors";
import { disconnectDb } from "@/server/db/client";
import { attributionWindows, setAttributionWindow } from "@/server/pipeline/attribute/attribution-windows";

try {
  env();
} catch (error) {
  exitOnEnvError(error);
}
const [type, days] = process.argv.slice(2);
try {
  if (type !== undefined) {
    await setAttributionWindow({ actor: OPERATOR, campaignType: type as "product", days: Number(days) });
    console.log(`tally: attribution window of ${type} campaigns set to ${days} days`);
  }
  for (const [campaignType, windowDays] of Object.entries(await attributionWindows())) {
    console.log(`tally: ${campaignType}: ${windowDays} days`);
  }
} catch (error) {
  if (!(error instanceof TallyError)) throw error;
  console.error(`tally: ${error.message} (usage: npm run attribution:window -- <product|display|video> <days>)`);
  process.exitCode = 1;
} finally {
  await disconnectDb();
}
