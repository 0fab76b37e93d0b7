// How a client says who it is at POST /oauth/token (RFC 6749 §2.3.1): HTTP Basic, its id and
// secret each form-urlencoded before the pair is base64-encoded, or client_id and client_secret
// in the form body. One way per request: both at once is a malformed request, not a choice.

export type ClientCredentials =
  | { found: "credentials"; via: "basic" | "body"; clientId: string; clientSecret: string }
  /** `basicTried`: the Authorization header was used, so the 401 challenges Basic (RFC 6749 §5.2). */
  | { found: "none" | "unreadable"; basicTried: boolean }
  | { found: "both" };

const BASIC = /^basic +([A-Za-z0-9+/]+={0,2}) *$/i;

/** application/x-www-form-urlencoded decoding of one part: "+" is a space, then percent-decoding. */
function formDecode(value: string): string | null {
  try {
    return decodeURIComponent(value.replace(/\+/g, " "));
  } catch {
    return null;
  }
}

function basicCredentials(header: string): ClientCredentials {
  const encoded = BASIC.exec(header)?.[1];
  if (!encoded) return { found: "unreadable", basicTried: true };
  const pair = Buffer.from(encoded, "base64").toString("utf8");
  const colon = pair.indexOf(":");
  const clientId = colon > 0 ? formDecode(pair.slice(0, colon)) : null;
  const clientSecret = colon > 0 ? formDecode(pair.slice(colon + 1)) : null;
  if (!clientId || !clientSecret) return { found: "unreadable", basicTried: true };
  return { found: "credentials", via: "basic", clientId, clientSecret };
}

/** The client's credentials from the Authorization header or the form's parameters (already decoded). */
export function clientCredentialsOf(authorization: string | null, form: { client_id?: string; client_secret?: string }): ClientCredentials {
  const inBody = form.client_id !== undefined || form.client_secret !== undefined;
  if (authorization !== null) return inBody ? { found: "both" } : basicCredentials(authorization);
  if (form.client_id === undefined || form.client_secret === undefined) return { found: "none", basicTried: false };
  return { found: "credentials", via: "body", clientId: form.client_id, clientSecret: form.client_secret };
}
