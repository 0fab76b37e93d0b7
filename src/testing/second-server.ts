// Starts src/testing/report-server.ts in a process of its own, on the test file's database.
import { type ChildProcess, spawn } from "node:child_process";

export interface SecondServer {
  child: ChildProcess;
  origin: string;
}

export async function startReportServer(): Promise<SecondServer> {
  const child = spawn(process.execPath, ["--import", "tsx", "src/testing/report-server.ts"], { env: process.env, stdio: ["ignore", "pipe", "inherit"] });
  const origin = await new Promise<string>((resolve, reject) => {
    child.stdout!.once("data", (chunk: Buffer) => resolve(chunk.toString().trim().split("\n")[0]!));
    child.once("exit", (code) => reject(new Error(`the report server ended with ${code}`)));
  });
  return { child, origin };
}
