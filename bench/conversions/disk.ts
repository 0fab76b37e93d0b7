// The benchmark's data takes several GB: the disk it uses, printed before, during and after.
import { execFileSync } from "node:child_process";
import { statfsSync } from "node:fs";

export const diskUsed = () => {
  const s = statfsSync("/work");
  return (s.blocks - s.bfree) * s.bsize;
};
export const gb = (bytes: number) => `${(bytes / 1e9).toFixed(2)} GB`;
export const diskAtStart = diskUsed();
export const df = () => execFileSync("df", ["-h", "/work"], { encoding: "utf8" }).trim().split("\n").at(-1);
