// The committed client types are those of the current document: a route changed without
// `npm run api:types` fails here, not in a client.
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { API_TYPES_FILE, apiTypesSource } from "./api-types";

describe("src/testing/api/tally-api.d.ts", () => {
  it("is what `npm run api:types` writes from the current document", async () => {
    const generated = await apiTypesSource();
    expect(generated).toContain('"/report/advertisers/ads-detailed"');
    expect(readFileSync(API_TYPES_FILE, "utf8") === generated, "run `npm run api:types` and commit src/testing/api/tally-api.d.ts").toBe(true);
  });
});
