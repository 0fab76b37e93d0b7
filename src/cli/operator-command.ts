// The frame the operator's commands share (accounts, users, keys, destinations): the environment
// checked before anything (a bad setting stops the command, saying which), the command line
// parsed by node:util, and the command run so that a refusal the domain explains (a TallyError, a
// ZodError of its input) prints `tally: <why>` and exits 1, a command line that names no command
// prints the usage and exits 2, and the database is let go whatever happened.
import { type ParseArgsConfig, parseArgs } from "node:util";
import { ZodError } from "zod";
import { env, exitOnEnvError } from "@/env";
import { TallyError } from "@/server/core/errors";
import { disconnectDb } from "@/server/db/client";

/** The environment checked (exits, saying which setting is wrong), then the command line parsed with `options`, positionals allowed. */
export function operatorArguments<const Options extends NonNullable<ParseArgsConfig["options"]>>(options: Options) {
  try {
    env();
  } catch (error) {
    exitOnEnvError(error);
  }
  return parseArgs({ allowPositionals: true as const, options });
}

/**
 * Runs `command`, which answers false when the command line names none of its commands (the
 * usage is printed, exit code 2). `isUsageError` picks the errors that are usage mistakes found
 * while running (their message, exit code 2).
 */
export async function runOperatorCommand(
  usage: string,
  command: () => Promise<boolean>,
  isUsageError: (error: unknown) => error is Error = (_error): _error is Error => false,
): Promise<void> {
  try {
    if (!(await command())) {
      console.error(`tally: ${usage}`);
      process.exitCode = 2;
    }
  } catch (error) {
    if (isUsageError(error)) {
      console.error(`tally: ${error.message}`);
      process.exitCode = 2;
      return;
    }
    if (error instanceof TallyError) console.error(`tally: ${error.message}`);
    else if (error instanceof ZodError) console.error(`tally: ${error.issues.map((issue) => `${issue.path.join(".")} ${issue.message}`).join("; ")}`);
    else throw error;
    process.exitCode = 1;
  } finally {
    await disconnectDb();
  }
}
