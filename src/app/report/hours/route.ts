// GET /report/hours: the range's figures by local weekday and hour (API key: Authorization: Bearer <key>).
import { handleHours } from "@/server/http/hours-route";

export const dynamic = "force-dynamic";

export const GET = handleHours;
