// `npm run test:hostile`: Tally as a hostile client meets it, over HTTP, at the production build
// under `next start` and at the collector (hostile/global-stack.ts starts both on a throwaway
// database and local S3). Files run one after another: they share the servers, and one of them
// stops its own database on purpose.
import path from "node:path";
import { defineConfig } from "vitest/config";

export default defineConfig({
  resolve: { alias: { "@": path.resolve(import.meta.dirname, "src") } },
  test: {
    name: "hostile",
    include: ["hostile/**/*.hostile.test.ts"],
    globalSetup: ["hostile/global-stack.ts"],
    fileParallelism: false,
    testTimeout: 180_000,
    hookTimeout: 240_000,
  },
});
