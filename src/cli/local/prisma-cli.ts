// Runs the Prisma CLI (migrations, client generation) as a child process with a given database.
import { spawn } from "node:child_process";
import { createRequire } from "node:module";
import path from "node:path";

const require = createRequire(import.meta.url);

export async function runPrisma(args: string[], databaseUrl: string, options: { quiet?: boolean } = {}): Promise<string> {
  const cli = path.join(path.dirname(require.resolve("prisma/package.json")), "build", "index.js");
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [cli, ...args], {
      env: { ...process.env, DATABASE_URL: databaseUrl, PRISMA_HIDE_UPDATE_MESSAGE: "1" },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let output = "";
    child.stdout.on("data", (chunk: Buffer) => (output += chunk.toString()));
    child.stderr.on("data", (chunk: Buffer) => (output += chunk.toString()));
    child.on("error", reject);
    child.on("close", (code) => {
      if (code === 0) {
        if (!options.quiet) process.stdout.write(output);
        resolve(output);
      } else {
        reject(new Error(`prisma ${args.join(" ")} failed (exit ${code}):\n${output}`));
      }
    });
  });
}

/** Applies every committed migration in prisma/migrations; a no-op when none is pending. */
export async function migrateDeploy(databaseUrl: string): Promise<string> {
  const output = await runPrisma(["migrate", "deploy"], databaseUrl, { quiet: true });
  if (/No pending migrations/.test(output)) return "up to date, none pending";
  const applied = output.match(/└─ \d+_[^/\s]+\//g)?.map((line) => line.slice(3, -1)) ?? [];
  return `applied ${applied.join(", ") || "pending migrations"}`;
}
