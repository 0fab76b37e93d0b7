// Bundles the browser SDK (src/sdk/tally.ts) into a minified IIFE at public/sdk/tally.js, which
// sets window.Tally, and prints its size: `node --import tsx src/sdk/build.ts` (npm run build:sdk).
// It also puts Redoc's standalone bundle at public/redoc/, which the API reference (/docs/api)
// loads from Tally itself: no CDN, so the page works offline and under the page's policy.
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { gzipSync } from "node:zlib";
import { build } from "esbuild";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
const entry = path.join(root, "src/sdk/tally.ts");
const outfile = path.join(root, "public/sdk/tally.js");
const redocBundle = createRequire(import.meta.url).resolve("redoc/bundles/redoc.standalone.js");
const redocOut = path.join(root, "public/redoc/redoc.standalone.js");
/**
 * Redoc's one outside picture, its maker's logo on a CDN: the reference page's policy would refuse
 * it and the browser's console would say so, so the copy shows an empty picture from a data: address.
 */
const REDOC_LOGO = "https://cdn.redoc.ly/redoc/logo-mini.svg";
const NO_LOGO = "data:image/svg+xml,%3Csvg xmlns='http://www.w3.org/2000/svg'/%3E";
/**
 * Redoc adds style sheets as its bundle loads, before Redoc.init hands it the page's nonce, so the
 * page's policy refused them (two errors in the console). Its copy starts with the nonce of the
 * script element it runs from, which is the page's.
 */
const REDOC_NONCE_START = "r.nc=void 0;";
const PAGE_NONCE_START = "r.nc=document.currentScript&&document.currentScript.nonce||void 0;";
/** The size the SDK should stay under once gzipped. */
const GZIP_BUDGET = 2048;

const kib = (bytes: number): string => `${(bytes / 1024).toFixed(1)} KiB`;

try {
  const result = await build({
    entryPoints: [entry],
    outfile,
    bundle: true,
    minify: true,
    format: "iife",
    platform: "browser",
    target: "es2019",
    legalComments: "none",
    write: false,
    logLevel: "warning",
  });
  const file = result.outputFiles.find((f) => f.path === outfile) ?? result.outputFiles[0];
  if (!file) throw new Error("esbuild produced no output");
  mkdirSync(path.dirname(outfile), { recursive: true });
  writeFileSync(outfile, file.contents);
  const gzip = gzipSync(file.contents, { level: 9 }).length;
  console.log(`sdk: ${path.relative(root, outfile)} ${kib(file.contents.length)} (${kib(gzip)} gzip)`);
  if (gzip > GZIP_BUDGET) console.warn(`sdk: warning: ${gzip} bytes gzipped, over the ${GZIP_BUDGET}-byte budget`);
  mkdirSync(path.dirname(redocOut), { recursive: true });
  const redoc = readFileSync(redocBundle, "utf8");
  if (!redoc.includes(REDOC_LOGO)) throw new Error(`Redoc's bundle no longer names ${REDOC_LOGO}: check what the reference page fetches`);
  if (redoc.split(REDOC_NONCE_START).length !== 2) throw new Error("Redoc's bundle no longer starts its nonce as expected: check the reference page's console");
  writeFileSync(redocOut, redoc.replaceAll(REDOC_LOGO, NO_LOGO).replace(REDOC_NONCE_START, PAGE_NONCE_START));
  console.log(`sdk: ${path.relative(root, redocOut)} (the API reference's renderer)`);
} catch (error) {
  console.error(`sdk: build failed: ${error instanceof Error ? error.message : String(error)}`);
  process.exitCode = 1;
}
