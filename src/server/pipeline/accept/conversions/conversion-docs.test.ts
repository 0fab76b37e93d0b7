// docs/conversions.md describes the conversion schema field by field; this keeps the two equal.
import { readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { conversionBodySchema, conversionItemSchema } from "./conversion-body.schema";

const doc = readFileSync(path.join(process.cwd(), "docs/conversions.md"), "utf8");

/** Rows of the first table under `heading`: field name → the Required column. */
function fieldTable(heading: string): Map<string, string> {
  const start = doc.indexOf(`\n${heading}\n`);
  expect(start, `docs/conversions.md has a '${heading}' section`).toBeGreaterThan(-1);
  const lines = doc.slice(start).split("\n").slice(2);
  const firstRow = lines.findIndex((line) => line.startsWith("| `"));
  const rows = new Map<string, string>();
  for (const line of lines.slice(firstRow)) {
    if (!line.startsWith("|")) break;
    const [, field, , required] = line.split("|").map((cell) => cell.trim());
    if (field?.startsWith("`")) rows.set(field.replaceAll("`", ""), required ?? "");
  }
  return rows;
}

function expectDocumented(heading: string, schema: { properties: object; required: readonly string[] }) {
  const rows = fieldTable(heading);
  expect([...rows.keys()].sort()).toEqual(Object.keys(schema.properties).sort());
  const documentedRequired = [...rows].filter(([, required]) => required === "yes").map(([field]) => field);
  expect(documentedRequired.sort()).toEqual([...schema.required].sort());
}

describe("docs/conversions.md", () => {
  it("lists every property of the order schema, with the same required ones", () => {
    expectDocumented("### Order", conversionBodySchema);
    // brand is required by a database rule (several sites), so its row says when.
    expect(fieldTable("### Order").get("brand")).toBe("when the publisher has several sites");
  });

  it("lists every property of the item schema, with the same required ones", () => {
    expectDocumented("### Item", conversionItemSchema);
  });
});
