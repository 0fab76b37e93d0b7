// GET /openapi.json, the API document, and GET /docs/api, its reference page (Redoc, served by
// Tally itself from public/redoc/, which `npm run build:sdk` fills: no CDN, no web fonts).
import { env } from "@/env";
import { API_VERSION, buildOpenApiDocument, type OpenApiDocument } from "./openapi/document";
import { requestOrigin } from "./request-origin";

const documents = new Map<string, OpenApiDocument>();

/** The document for the origin a client reached: its servers are where that client can call. */
export function openApiDocumentFor(request: Request): OpenApiDocument {
  const serverUrl = requestOrigin(request);
  let document = documents.get(serverUrl);
  if (!document) {
    document = buildOpenApiDocument({ serverUrl, eventsUrl: env().TALLY_EVENTS_URL ?? null, version: API_VERSION });
    // A few origins at most (the public name, a preview or two); the bound keeps a forged Host from growing it.
    if (documents.size < 16) documents.set(serverUrl, document);
  }
  return document;
}

// GET /openapi.json: public, the same for everyone who reaches the same origin, so any page may read it.
export function handleOpenApiDocument(request: Request): Response {
  return Response.json(openApiDocumentFor(request), {
    headers: {
      "Cache-Control": "public, max-age=300",
      Vary: "Host, X-Forwarded-Host, X-Forwarded-Proto",
      "Access-Control-Allow-Origin": "*",
    },
  });
}

const NONCE = /'nonce-([A-Za-z0-9+/=]+)'/;

/** Redoc's options: the page's nonce for the styles it adds, system fonts rather than fetched ones. */
function redocOptions(nonce: string | undefined) {
  const system = "system-ui, -apple-system, 'Segoe UI', Roboto, sans-serif";
  return {
    ...(nonce ? { nonce } : {}),
    hideDownloadButton: false,
    expandResponses: "200,202",
    jsonSampleExpandLevel: 2,
    sortPropsAlphabetically: false,
    theme: {
      typography: { fontFamily: system, headings: { fontFamily: system }, code: { fontFamily: "ui-monospace, SFMono-Regular, Menlo, monospace" } },
      colors: { primary: { main: "#1f4e79" } },
    },
  };
}

// One line of links above the reference, so its first screen is the reference itself; code
// samples wrap rather than run past the panel's edge.
const PAGE_STYLE = `
body { margin: 0; }
.links { margin: 0; padding: 0.5rem 1rem; border-bottom: 1px solid #d0d7de; font: 0.95rem/1.5 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; }
#reference pre, #reference code { white-space: pre-wrap; overflow-wrap: anywhere; }`;

// GET /docs/api: the reference, rendered in the browser from /openapi.json, under a line of links
// (the guide to the API, docs/api.md, is its own page: /docs/api-guide). The nonce is the one
// src/proxy.ts put in this request's Content-Security-Policy, which Next.js passes on.
export function handleApiReference(request: Request): Response {
  const nonce = NONCE.exec(request.headers.get("content-security-policy") ?? "")?.[1];
  const attribute = nonce ? ` nonce="${nonce}"` : "";
  const init = `Redoc.init("/openapi.json", ${JSON.stringify(redocOptions(nonce))}, document.getElementById("reference"));`;
  const page = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Tally API reference</title>
<link rel="icon" href="/favicon.ico" sizes="any">
<style${attribute}>${PAGE_STYLE}</style>
</head>
<body>
<nav class="links" aria-label="Tally"><a href="/">Tally</a> · <a href="/docs">Docs</a> · <a href="/docs/api-guide">The API guide</a> (keys, tokens, generated clients) · <a href="/openapi.json">openapi.json</a></nav>
<div id="reference"><p style="font-family: system-ui, sans-serif; padding: 1rem">Loading the reference of <a href="/openapi.json">/openapi.json</a>…</p></div>
<script${attribute} src="/redoc/redoc.standalone.js"></script>
<script${attribute}>${init}</script>
</body>
</html>
`;
  // The page carries this request's nonce: a cached copy would not match the next one's policy.
  return new Response(page, { headers: { "Content-Type": "text/html; charset=utf-8", "Cache-Control": "no-store" } });
}
