import { readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { NEXT_SERVER_NODE_FLAGS, nextServerArgs } from "./next-server";

describe("the Next.js server's command", () => {
  it("npm start runs Tally's Next.js server with the flags the launcher and the benchmarks use", () => {
    const start = JSON.parse(readFileSync("package.json", "utf8")).scripts.start as string;
    expect(start).toBe(`node ${NEXT_SERVER_NODE_FLAGS.join(" ")} --import tsx src/cli/serve-next.ts start`);
  });

  it("puts the flags before the entry point, so that node (not Next.js) reads them", () => {
    const args = nextServerArgs("start", "--port", "3000");
    expect(args.slice(0, NEXT_SERVER_NODE_FLAGS.length)).toEqual([...NEXT_SERVER_NODE_FLAGS]);
    expect(args.slice(NEXT_SERVER_NODE_FLAGS.length, NEXT_SERVER_NODE_FLAGS.length + 3)).toEqual(["--import", "tsx", path.resolve("src/cli/serve-next.ts")]);
    expect(args.slice(-3)).toEqual(["start", "--port", "3000"]);
  });
});
