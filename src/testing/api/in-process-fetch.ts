// A `fetch` that hands each request to Tally's own route handlers, in this process: the exports of
// the Next.js route files (src/app/), so a client built on it reaches what a deployment serves
// at the same paths. Every answer is checked against the API document on the way back.
import { GET as adResults } from "@/app/ad/results/v2/route";
import { GET as campaignDetail } from "@/app/campaign/[id]/route";
import { GET as campaignListing } from "@/app/campaign/v2/route";
import { GET as openApiDocument } from "@/app/openapi.json/route";
import { GET as adsDetailed } from "@/app/report/advertisers/ads-detailed/route";
import { GET as campaignsDetailed } from "@/app/report/advertisers/campaigns-detailed/route";
import { GET as networkPublishers } from "@/app/report/network/publishers/route";
import { GET as advertisers } from "@/app/report/v2/advertisers/route";
import { GET as publishers } from "@/app/report/v2/publishers/route";
import { checkAnswer } from "./contract";

type Handler = (request: Request) => Response | Promise<Response>;

const ROUTES: [RegExp, Handler][] = [
  [/^\/openapi\.json$/, openApiDocument],
  [/^\/campaign\/v2$/, campaignListing],
  [/^\/campaign\/[^/]+$/, campaignDetail],
  [/^\/ad\/results\/v2$/, adResults],
  [/^\/report\/v2\/advertisers$/, advertisers],
  [/^\/report\/v2\/publishers$/, publishers],
  [/^\/report\/network\/publishers$/, networkPublishers],
  [/^\/report\/advertisers\/campaigns-detailed$/, campaignsDetailed],
  [/^\/report\/advertisers\/ads-detailed$/, adsDetailed],
];

/** Answers like Tally would over HTTP (GET routes of the reports host), after checking the answer against the document. */
export async function inProcessFetch(request: Request): Promise<Response> {
  const { pathname } = new URL(request.url);
  const handler = ROUTES.find(([pattern]) => pattern.test(pathname))?.[1];
  const response = handler ? await handler(request) : Response.json({ error: { code: "not_found", message: "no such route" } }, { status: 404 });
  await checkAnswer(request, response);
  return response;
}
