// POST /v1/beacon/{impression|view|click}/{id}: records an ad interaction; 202 once stored.
import { handleBeacon } from "@/server/http/events-routes";

export const dynamic = "force-dynamic";

export const POST = handleBeacon;
export const OPTIONS = handleBeacon;
