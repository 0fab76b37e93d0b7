// POST /v1/ads: the ad query; hands out ads with signed impression, view and click addresses.
import { handleAdQuery } from "@/server/http/events-routes";

export const dynamic = "force-dynamic";

export const POST = handleAdQuery;
export const OPTIONS = handleAdQuery;
// Other methods get the same JSON 405 (with Allow) as the collector gives.
export const GET = handleAdQuery;
export const PUT = handleAdQuery;
export const PATCH = handleAdQuery;
export const DELETE = handleAdQuery;
