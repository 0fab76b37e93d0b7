// POST /v1/beacon/{impression|view|click}/{id}: records an ad interaction; 202 once stored.
import { handleBeacon } from "@/server/http/events-routes";

export const dynamic = "force-dynamic";

export const POST = handleBeacon;
export const OPTIONS = handleBeacon;
// Other methods get the same JSON 405 (with Allow) as the collector gives.
export const GET = handleBeacon;
export const PUT = handleBeacon;
export const PATCH = handleBeacon;
export const DELETE = handleBeacon;
