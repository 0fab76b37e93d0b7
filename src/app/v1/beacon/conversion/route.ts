// POST /v1/beacon/conversion: records a purchase; 202 once stored, 422 with Ajv's error array.
import { handleConversion } from "@/server/http/events-routes";

export const dynamic = "force-dynamic";

export const POST = handleConversion;
export const OPTIONS = handleConversion;
// Other methods get the same JSON 405 (with Allow) as the collector gives.
export const GET = handleConversion;
export const PUT = handleConversion;
export const PATCH = handleConversion;
export const DELETE = handleConversion;
