// Writes the TypeScript types of Tally's API document to src/testing/api/tally-api.d.ts
// (`npm run api:types`), for openapi-fetch clients and the contract tests.
import { writeFileSync } from "node:fs";
import { API_TYPES_FILE, apiTypesSource } from "@/testing/api/api-types";

writeFileSync(API_TYPES_FILE, await apiTypesSource());
console.log(`api:types: wrote ${API_TYPES_FILE}`);
