// GET|POST /api/trpc/*: the dashboard's tRPC endpoint (src/server/trpc/http-handler.ts).
import { handleTrpcRequest } from "@/server/trpc/http-handler";

export const dynamic = "force-dynamic";

export { handleTrpcRequest as GET, handleTrpcRequest as POST };
