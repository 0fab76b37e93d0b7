// Any method, /api/no-such-route/<path>: where next.config.js's fallback rewrite sends an API
// client's request for a path that matches no route, answered with the JSON 404 (src/server/http/no-such-route.ts).
import { noSuchRouteResponse } from "@/server/http/no-such-route";

type Context = { params: Promise<{ path?: string[] }> };

async function answer(request: Request, { params }: Context): Promise<Response> {
  return noSuchRouteResponse(request, (await params).path ?? []);
}

export { answer as DELETE, answer as GET, answer as HEAD, answer as OPTIONS, answer as PATCH, answer as POST, answer as PUT };
