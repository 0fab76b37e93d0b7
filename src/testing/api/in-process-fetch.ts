// A `fetch` that hands each request to Tally's own route handlers, in this process: the exports of
// the Next.js route files (src/app/), so a client built on it reaches what a deployment serves
// at the same paths. Every answer is checked against the API document on the way back.
import { GET as adResults } from "@/app/ad/results/v2/route";
import { GET as campaignDetail } from "@/app/campaign/[id]/route";
import { GET as campaignListing } from "@/app/campaign/v2/route";
import { POST as tokenRequest } from "@/app/oauth/token/route";
import { GET as openApiDocument } from "@/app/openapi.json/route";
import { GET as adsDetailed } from "@/app/report/advertisers/ads-detailed/route";
import { GET as campaignsDetailed } from "@/app/report/advertisers/campaigns-detailed/route";
import { GET as reportJob } from "@/app/report/jobs/[id]/route";
import { POST as createReportJob, GET as reportJobs } from "@/app/report/jobs/route";
import { GET as networkPublishers } from "@/app/report/network/publishers/route";
import { GET as advertisers } from "@/app/report/v2/advertisers/route";
import { GET as publishers } from "@/app/report/v2/publishers/route";
import { checkAnswer } from "./contract";

type Handler = (request: Request) => Response | Promise<Response>;
type Methods = Partial<Record<"GET" | "POST", Handler>>;

// Literal paths before the templates that would also match them (/report/jobs/{id} after nothing it shadows).
const ROUTES: [RegExp, Methods][] = [
  [/^\/openapi\.json$/, { GET: openApiDocument }],
  [/^\/oauth\/token$/, { POST: tokenRequest }],
  [/^\/campaign\/v2$/, { GET: campaignListing }],
  [/^\/campaign\/[^/]+$/, { GET: campaignDetail }],
  [/^\/ad\/results\/v2$/, { GET: adResults }],
  [/^\/report\/v2\/advertisers$/, { GET: advertisers }],
  [/^\/report\/v2\/publishers$/, { GET: publishers }],
  [/^\/report\/network\/publishers$/, { GET: networkPublishers }],
  [/^\/report\/advertisers\/campaigns-detailed$/, { GET: campaignsDetailed }],
  [/^\/report\/advertisers\/ads-detailed$/, { GET: adsDetailed }],
  [/^\/report\/jobs$/, { GET: reportJobs, POST: createReportJob }],
  [/^\/report\/jobs\/[^/]+$/, { GET: reportJob }],
];

/** How Next.js answers a path with no route, or a method its route file does not export. */
function unrouted(methods: Methods | undefined): Response {
  if (!methods) return Response.json({ error: { code: "not_found", message: "no such route" } }, { status: 404 });
  return new Response(null, { status: 405, headers: { Allow: Object.keys(methods).join(", ") } });
}

/** Answers like Tally would over HTTP (routes of the reports host), after checking the answer against the document. */
export async function inProcessFetch(request: Request): Promise<Response> {
  const { pathname } = new URL(request.url);
  const methods = ROUTES.find(([pattern]) => pattern.test(pathname))?.[1];
  const handler = methods?.[request.method as keyof Methods];
  const response = handler ? await handler(request) : unrouted(methods);
  await checkAnswer(request, response);
  return response;
}
