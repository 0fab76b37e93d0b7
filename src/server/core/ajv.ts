// Request bodies of the /v1 routes are validated by Ajv 8 against JSON Schemas, so that a 422
// body is exactly Ajv's error array (docs/interface.md §7). One schema per payload: the same object is
// the validator, the TypeScript type (json-schema-to-ts) and the documentation.
import { Ajv, type ErrorObject } from "ajv";
import { default as addFormats } from "ajv-formats";
import { addStringFormats } from "@/contracts/string-formats";
import { TallyError, type ValidationEntry } from "@/server/core/errors";

export const ajv = new Ajv({ allErrors: true, strict: true });
// Only the formats Tally's schemas use; each one is validated in full (a 30 February fails), and
// Tally's own string formats (identifier, text: what Postgres can store).
addFormats(ajv, ["date-time"]);
addStringFormats(ajv);

export function toEntries(errors: ErrorObject[] | null | undefined): ValidationEntry[] {
  return (errors ?? []).map(({ instancePath, schemaPath, keyword, params, message }) => ({
    instancePath,
    schemaPath,
    keyword,
    params,
    message,
  }));
}

/** A function that returns its input typed as T, or throws a 422 TallyError with Ajv's entries. */
export function compileValidator<T>(schema: object): (data: unknown) => T {
  const validate = ajv.compile<T>(schema);
  return (data: unknown) => {
    if (!validate(data)) throw TallyError.validation(toEntries(validate.errors));
    return data;
  };
}
