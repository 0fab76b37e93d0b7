// Calls the /v1 handlers the way a browser would, with Fetch Requests; every answer is checked
// against the API document (src/testing/api/contract.ts).

import { handleAdQuery, handleBeacon, handleConversion } from "@/server/http/events-routes";
import type { AdQueryAnswer, ServedAd } from "@/server/pipeline/accept/ads/query-ads";
import { checkAnswer } from "./api/contract";
import { settleAll } from "./settle";

export const ORIGIN = "http://tally.test";

export async function askForAds(body: unknown, headers: Record<string, string> = {}) {
  const request = new Request(`${ORIGIN}/v1/ads`, { method: "POST", headers: { "Content-Type": "application/json", ...headers }, body: JSON.stringify(body) });
  const response = await handleAdQuery(request);
  await checkAnswer(request, response);
  return { status: response.status, body: (await response.json()) as AdQueryAnswer & unknown[] };
}

/** Serves one ad for `placement` and returns it. */
export async function serveOneAd(publisherId: string, sessionId: string, types: ("product" | "banner" | "video")[] = ["banner"]): Promise<ServedAd> {
  const { status, body } = await askForAds({ publisher_id: publisherId, session_id: sessionId, context: "home", placements: [{ name: "slot", types }] });
  if (status !== 200) throw new Error(`ad query answered ${status}: ${JSON.stringify(body)}`);
  const ad = body.ads.slot?.[0];
  if (!ad) throw new Error("no ad served");
  return ad;
}

/**
 * Posts a beacon as a browser would; after a 202 it waits until the beacon is settled (unless
 * `settle: false`), so its status, spend and rollups can be read as soon as this returns.
 */
export async function postBeacon(
  url: string,
  body: string | object,
  options: { contentType?: string; headers?: Record<string, string>; method?: string; settle?: boolean } = {},
): Promise<Response> {
  const request = new Request(url, {
    method: options.method ?? "POST",
    headers: {
      "Content-Type": options.contentType ?? "application/json",
      "User-Agent": "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/140.0 Safari/537.36",
      ...options.headers,
    },
    body: options.method === "OPTIONS" || options.method === "GET" ? undefined : typeof body === "string" ? body : JSON.stringify(body),
  });
  const response = await handleBeacon(request);
  await checkAnswer(request, response);
  if (response.status === 202 && options.settle !== false) await settleAll();
  return response;
}

/**
 * Posts a conversion to the route as a browser or a retailer's server would; after a 202 it waits
 * until the order is settled (unless `settle: false`).
 */
export async function postConversion(
  body: string | object,
  options: { contentType?: string; headers?: Record<string, string>; settle?: boolean } = {},
): Promise<{ status: number; body: unknown; headers: Headers }> {
  const request = new Request(`${ORIGIN}/v1/beacon/conversion`, {
    method: "POST",
    headers: { "Content-Type": options.contentType ?? "application/json", Accept: "application/json", ...options.headers },
    body: typeof body === "string" ? body : JSON.stringify(body),
  });
  const response = await handleConversion(request);
  await checkAnswer(request, response);
  const text = await response.text();
  if (response.status === 202 && options.settle !== false) await settleAll();
  return { status: response.status, body: text ? (JSON.parse(text) as unknown) : undefined, headers: response.headers };
}
