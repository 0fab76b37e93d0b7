import { db } from "@/server/db/client";
import { pingDatabase } from "@/server/db/ping";

/** 200 when the database answers, 503 when it does not: for load balancers and monitors. */
export async function handleHealth(): Promise<Response> {
  const databaseOk = await pingDatabase(db);
  return Response.json(
    { status: databaseOk ? "ok" : "error", database: databaseOk ? "ok" : "unreachable" },
    { status: databaseOk ? 200 : 503, headers: { "Cache-Control": "no-store" } },
  );
}
