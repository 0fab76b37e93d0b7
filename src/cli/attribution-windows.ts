// `npm run attribution:window [-- <product|display|video> <click days> [<view days>] [views_only|views_and_impressions]]`:
// prints each campaign type's click and view windows and which touches earn view-through credit,
// or sets a type's (one number sets both windows; from then on: attributed orders keep their credit).
import { env, exitOnEnvError } from "@/env";
import { OPERATOR } from "@/server/accounts/actor";
import { TallyError } from "@/server/core/errors";
import { disconnectDb } from "@/server/db/client";
import { attributionWindows, setAttributionWindows, type ViewThrough } from "@/server/pipeline/attribute/attribution-windows";

try {
  env();
} catch (error) {
  exitOnEnvError(error);
}
const days = (n: number) => `${n} day${n === 1 ? "" : "s"}`;
const USAGE = "npm run attribution:window -- <product|display|video> <click days> [<view days>] [views_only|views_and_impressions]";
const [type, click, view, viewThrough] = process.argv.slice(2);
try {
  if (type !== undefined) {
    const current = (await attributionWindows())[type as "product"];
    if (!current) throw new TallyError("bad_request", `no campaign type ${JSON.stringify(type)}`);
    const clickDays = Number(click);
    const viewDays = view === undefined ? clickDays : Number(view);
    await setAttributionWindows({
      actor: OPERATOR,
      campaignType: type as "product",
      clickDays,
      viewDays,
      viewThrough: (viewThrough ?? current.viewThrough) as ViewThrough,
    });
    console.log(`tally: ${type} campaigns: click window ${days(clickDays)}, view window ${days(viewDays)}, from now on`);
  }
  for (const [campaignType, windows] of Object.entries(await attributionWindows())) {
    const touches = windows.viewThrough === "views_only" ? "viewable views only" : "views and impressions";
    console.log(`tally: ${campaignType}: click ${days(windows.clickDays)}, view ${days(windows.viewDays)} (view-through: ${touches})`);
  }
} catch (error) {
  if (!(error instanceof TallyError)) throw error;
  console.error(`tally: ${error.message} (usage: ${USAGE})`);
  process.exitCode = 1;
} finally {
  await disconnectDb();
}
