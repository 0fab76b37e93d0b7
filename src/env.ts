// The one place that reads process.env. Every variable is checked at start; a problem stops the
// process with one line per variable, never a stack trace from deep inside a request.
import { z } from "zod";

const postgresUrl = z
  .string()
  .refine((value) => {
    try {
      const url = new URL(value);
      return (url.protocol === "postgresql:" || url.protocol === "postgres:") && url.hostname !== "";
    } catch {
      return false;
    }
  }, "must be a postgresql://user:password@host:port/database URL");

const serverSchema = z.object({
  NODE_ENV: z.enum(["development", "test", "production"]).default("development"),
  DATABASE_URL: postgresUrl,
  /** Connections per process; the collector and the app each hold a pool. */
  DATABASE_POOL_SIZE: z.coerce.number().int().min(1).max(200).default(10),
  /** Where the dev launcher keeps the embedded Postgres and local S3 data. */
  TALLY_DATA_DIR: z.string().min(1).default(".data"),
  /** Port of the embedded Postgres that `npm run dev` starts when DATABASE_URL is unset. */
  TALLY_EMBEDDED_PG_PORT: z.coerce.number().int().min(1024).max(65535).default(54329),
});

export type ServerEnv = z.infer<typeof serverSchema>;

export class EnvError extends Error {
  constructor(readonly problems: string[]) {
    super(`Invalid environment:\n${problems.map((p) => `  ${p}`).join("\n")}`);
    this.name = "EnvError";
  }
}

function describe(issues: z.core.$ZodIssue[]): string[] {
  return issues.map((issue) => {
    const name = issue.path.join(".") || "(environment)";
    const message = issue.code === "invalid_type" && issue.input === undefined ? "is required but not set" : issue.message;
    return `${name} ${message}`;
  });
}

type Source = Record<string, string | undefined>;

/** Checks the environment; `databaseOptional` is for the dev launcher, which provides one. */
export function parseEnv(source: Source, options: { databaseOptional?: boolean } = {}): ServerEnv {
  const schema = options.databaseOptional
    ? serverSchema.extend({ DATABASE_URL: postgresUrl.optional() })
    : serverSchema;
  // An empty variable means unset, as in most shells' `VAR= cmd`.
  const cleaned = Object.fromEntries(Object.entries(source).filter(([, v]) => v !== undefined && v !== ""));
  const result = schema.safeParse(cleaned);
  if (!result.success) throw new EnvError(describe(result.error.issues));
  return result.data as ServerEnv;
}

let cached: ServerEnv | undefined;

/** The validated server environment, read once. */
export function env(): ServerEnv {
  cached ??= parseEnv(process.env);
  return cached;
}

/** Prints each problem on its own line and exits non-zero: for process start-up only. */
export function exitOnEnvError(error: unknown): never {
  if (error instanceof EnvError) {
    for (const problem of error.problems) console.error(`tally: environment: ${problem}`);
    process.exit(1);
  }
  throw error;
}
