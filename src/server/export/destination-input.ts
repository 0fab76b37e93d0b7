// The export destination form's schema, shared by the server (tRPC, CLI) and the dashboard's
// forms: zod only, nothing that needs the server.
import { z } from "zod";

export const EVENT_TYPES = ["ad_events", "orders", "order_items"] as const;
export const AGGREGATE_TYPES = ["advertisers", "campaigns", "ads"] as const;
export const EXPORT_TYPES = [...EVENT_TYPES, ...AGGREGATE_TYPES] as const;
export type ExportTypeName = (typeof EXPORT_TYPES)[number];

/** What every view shows in place of a stored secret; sent back in an update, it keeps the secret. */
export const SECRET_MASK = "••••••••";

export const credentialsInput = z.discriminatedUnion("kind", [
  z.object({
    kind: z.literal("access_key"),
    accessKeyId: z.string().trim().min(1, "is required").max(128),
    /** The secret, or SECRET_MASK on an update to keep the stored one. */
    secretAccessKey: z.string().min(1, "is required").max(256),
  }),
  z.object({
    kind: z.literal("assume_role"),
    roleArn: z.string().trim().regex(/^arn:aws[a-z-]*:iam::\d{12}:role\/[\w+=,.@/-]+$/, "must be an IAM role ARN (arn:aws:iam::123456789012:role/name)"),
    /** Required: without it any AWS customer who learns the role's name could have Tally write to it (the confused deputy). */
    externalId: z.string().trim().min(2, "is required, 2 to 1224 characters").max(1224).regex(/^[\w+=,.@:/-]+$/, "may use letters, digits and +=,.@:/-_"),
  }),
]);

export const destinationInput = z.object({
  accountId: z.string().min(1),
  name: z.string().trim().min(1, "is required").max(100),
  bucket: z.string().trim().regex(/^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$/, "must be an S3 bucket name (3-63 lower-case letters, digits, dots, hyphens)"),
  region: z.string().trim().regex(/^[a-z0-9-]{2,32}$/, "must be a region such as us-east-1"),
  /** For S3-compatible stores (MinIO, R2, ...); empty for AWS S3. */
  endpoint: z.url({ protocol: /^https?$/, message: "must be an http(s) URL" }).nullish(),
  forcePathStyle: z.boolean().default(false),
  /** Key prefix inside the bucket: `tally/` puts files under tally/ad_events/... */
  prefix: z.string().trim().max(512).regex(/^[^\\]*$/, "must not contain backslashes").default(""),
  credentials: credentialsInput,
  writeSuccessMarker: z.boolean().default(true),
  types: z.array(z.enum(EXPORT_TYPES)).min(1, "pick at least one").default([...EXPORT_TYPES]),
});
export type DestinationInput = z.input<typeof destinationInput>;
