import type { FromSchema } from "json-schema-to-ts";
import { compileValidator } from "@/server/core/ajv";

/** Body of an impression, view or click beacon (docs/interface.md §2.2). */
export const beaconBodySchema = {
  type: "object",
  properties: {
    session_id: { type: "string", minLength: 1, maxLength: 256, format: "identifier" },
    user_id: { type: ["string", "null"], maxLength: 256, format: "identifier" },
  },
  required: ["session_id"],
} as const;

export type BeaconBody = FromSchema<typeof beaconBodySchema>;
export const parseBeaconBody = compileValidator<BeaconBody>(beaconBodySchema);
