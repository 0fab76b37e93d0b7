import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import {
  type HashedIdentity,
  hashIdentity,
  type IdentityFields,
  normaliseEmail,
  normaliseName,
  normalisePhone,
  normaliseTaxId,
  type PhoneOptions,
  sha256Hex,
} from "./identity-hashing";

// The vectors are read from the published docs, so the docs and the code cannot drift apart.
const DOC = path.resolve(import.meta.dirname, "../../docs/conversions.md");
const HEADER = "| Field | Input | Normalised | SHA-256 |";

const FIELDS: Record<keyof HashedIdentity, { input: keyof IdentityFields; normalise: (s: string, o?: PhoneOptions) => string | null }> = {
  email_hashed: { input: "email", normalise: normaliseEmail },
  phone_hashed: { input: "phone", normalise: normalisePhone },
  social_id_hashed: { input: "taxId", normalise: normaliseTaxId },
  first_name_hashed: { input: "firstName", normalise: normaliseName },
  last_name_hashed: { input: "lastName", normalise: normaliseName },
};

interface Vector {
  field: keyof HashedIdentity;
  options: PhoneOptions | undefined;
  input: string;
  /** null for a row whose field is not sent. */
  normalised: string | null;
  hash: string | null;
}

const nodeSha256 = (s: string) => createHash("sha256").update(s, "utf8").digest("hex");

/** The content of a cell that is one code span holding a JSON string. */
function jsonString(cell: string, line: string): string {
  const match = /^`(".*")`$/.exec(cell);
  if (!match) throw new Error(`not a JSON string in backticks: ${cell} (${line})`);
  const value: unknown = JSON.parse(match[1]!);
  if (typeof value !== "string") throw new Error(`not a string: ${cell}`);
  return value;
}

function readVectors(): Vector[] {
  const doc = readFileSync(DOC, "utf8");
  const section = doc.split(/^## Hashing identity fields$/m)[1];
  if (section === undefined) throw new Error("docs/conversions.md has no '## Hashing identity fields' section");
  const lines = section.split(/^## /m)[0]!.split(/\r?\n/);
  const start = lines.indexOf(HEADER);
  if (start < 0) throw new Error(`the hashing section has no table headed ${HEADER}`);
  const rows: Vector[] = [];
  for (const line of lines.slice(start + 2)) {
    if (!line.startsWith("|")) break;
    const cells = line
      .slice(1, -1)
      .split("|")
      .map((cell) => cell.trim());
    if (cells.length !== 4) throw new Error(`expected 4 cells: ${line}`);
    const [fieldCell, inputCell, normalisedCell, hashCell] = cells as [string, string, string, string];
    const field = /^`(\w+)`(?: with `\{ countryCode: "(\d+)" \}`)?$/.exec(fieldCell);
    if (!field || !(field[1]! in FIELDS)) throw new Error(`unknown field cell: ${fieldCell}`);
    const notSent = hashCell === "not sent";
    if (notSent && !normalisedCell.startsWith("—")) throw new Error(`a row not sent has a normalised value: ${line}`);
    const hash = notSent ? null : (/^`([0-9a-f]{64})`$/.exec(hashCell)?.[1] ?? null);
    if (!notSent && !hash) throw new Error(`not a lower-case SHA-256 in backticks: ${hashCell}`);
    rows.push({
      field: field[1] as keyof HashedIdentity,
      options: field[2] ? { countryCode: field[2] } : undefined,
      input: jsonString(inputCell, line),
      normalised: notSent ? null : jsonString(normalisedCell, line),
      hash,
    });
  }
  return rows;
}

const vectors = readVectors();

describe("the hashing test vectors of docs/conversions.md", () => {
  it("cover every field, a country code option and rows not sent", () => {
    expect(vectors.length).toBeGreaterThanOrEqual(12);
    expect(new Set(vectors.map((v) => v.field))).toEqual(new Set(Object.keys(FIELDS)));
    expect(vectors.some((v) => v.options)).toBe(true);
    expect(vectors.some((v) => v.normalised === null)).toBe(true);
  });

  it.each(vectors)("$field of $input", async ({ field, options, input, normalised, hash }) => {
    const { input: key, normalise } = FIELDS[field];
    expect(normalise(input, options)).toBe(normalised);
    if (normalised !== null) {
      expect(nodeSha256(normalised)).toBe(hash);
      expect(await sha256Hex(normalised)).toBe(hash);
    }
    expect(await hashIdentity({ [key]: input }, options)).toEqual(hash ? { [field]: hash } : {});
  });
});

describe("normalisePhone", () => {
  it("reads national numbers only with a country code", () => {
    expect(normalisePhone("11 98765-4321")).toBeNull();
    expect(normalisePhone("11 98765-4321", { countryCode: "55" })).toBe("+5511987654321");
    expect(normalisePhone("11 98765-4321", { countryCode: "+55" })).toBe("+5511987654321");
    expect(normalisePhone("11 98765-4321", { countryCode: "BR" })).toBeNull();
    expect(normalisePhone("+55 11 98765-4321", { countryCode: "1" })).toBe("+5511987654321");
    expect(normalisePhone("00 1 415 555 0132", { countryCode: "55" })).toBe("+14155550132");
  });

  it("drops a (0) trunk mark and refuses what is not E.164", () => {
    expect(normalisePhone("+44 (0)20 7946 0958")).toBe("+442079460958");
    expect(normalisePhone("(+55) 11 98765-4321")).toBe("+5511987654321");
    expect(normalisePhone("+55 11 9876-5432 ext. 12")).toBeNull();
    expect(normalisePhone("tel:+5511987654321")).toBeNull();
    expect(normalisePhone("+55 123")).toBeNull(); // under 7 digits
    expect(normalisePhone("+1234567890123456")).toBeNull(); // over 15 digits
    expect(normalisePhone("+0 11 98765 4321")).toBeNull();
    expect(normalisePhone("55+11987654321", { countryCode: "55" })).toBeNull();
    expect(normalisePhone("000", { countryCode: "55" })).toBeNull();
  });
});

describe("hashIdentity", () => {
  it("omits the fields that are missing or empty once normalised, and never hashes the empty string", async () => {
    const emptySha256 = nodeSha256("");
    const hashed = await hashIdentity({ email: " ", phone: "1234", taxId: "---", firstName: "\t", lastName: undefined }, { countryCode: "55" });
    expect(hashed).toEqual({});
    expect(await hashIdentity({})).toEqual({});
    const some = await hashIdentity({ email: "A@B.CO", lastName: "  " });
    expect(some).toEqual({ email_hashed: nodeSha256("a@b.co") });
    expect(Object.values(some)).not.toContain(emptySha256);
  });

  it("hashes every field it is given, in the order of the conversion body", async () => {
    const hashed = await hashIdentity(
      { email: "a@b.co", phone: "(11) 98765-4321", taxId: "123.456.789-09", firstName: "Ana", lastName: "Silva" },
      { countryCode: "55" },
    );
    expect(hashed).toEqual({
      email_hashed: nodeSha256("a@b.co"),
      phone_hashed: nodeSha256("+5511987654321"),
      social_id_hashed: nodeSha256("12345678909"),
      first_name_hashed: nodeSha256("Ana"),
      last_name_hashed: nodeSha256("Silva"),
    });
    expect(Object.keys(hashed)).toEqual(["email_hashed", "phone_hashed", "social_id_hashed", "first_name_hashed", "last_name_hashed"]);
  });

  it("refuses values that are not strings rather than guess at them", async () => {
    const fields = { taxId: 12345678909, phone: 5511987654321 } as unknown as IdentityFields;
    expect(await hashIdentity(fields, { countryCode: "55" })).toEqual({});
  });
});
