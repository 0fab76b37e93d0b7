// POST /oauth/token: OAuth2 client credentials; a client's id and secret for an access token of the report routes.
import { handleTokenRequest } from "@/server/http/oauth-token";

export const dynamic = "force-dynamic";

export const POST = handleTokenRequest;
