// An operator's command (`npm run <name>`) as the operator runs it: a child process of
// src/cli/<script> against the calling test file's database, with NODE_ENV=test.
import { spawn } from "node:child_process";

export interface CliRun {
  code: number | null;
  out: string;
  err: string;
}

/**
 * Runs src/cli/`script` with `args`; `stdin` is written to it and closed, `env` added to this
 * process's environment (a name set to undefined is left out).
 */
export function runCli(script: string, args: string[], options: { stdin?: string; env?: Record<string, string | undefined> } = {}): Promise<CliRun> {
  const env: NodeJS.ProcessEnv = { ...process.env, ...options.env, NODE_ENV: "test" };
  for (const [name, value] of Object.entries(env)) if (value === undefined) delete env[name];
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ["--import", "tsx", `src/cli/${script}`, ...args], { env, stdio: ["pipe", "pipe", "pipe"] });
    let out = "";
    let err = "";
    child.stdout.on("data", (chunk: Buffer) => {
      out += chunk.toString();
    });
    child.stderr.on("data", (chunk: Buffer) => {
      err += chunk.toString();
    });
    child.on("error", reject);
    child.on("close", (code) => resolve({ code, out, err }));
    child.stdin.end(options.stdin ?? "");
  });
}
