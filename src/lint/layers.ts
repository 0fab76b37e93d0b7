// The layers of src/server/ and the one direction its imports run (docs/architecture.md,
// "Layers"): transport → entities and pipeline → activity log → store → db, formats → core. A file may import its
// own unit and any unit of a lower layer; units of one layer may import each other as long as no
// cycle forms. Biome cannot see cycles or ranks, so `npm run lint` runs this check too.
import ts from "typescript";

/** Lowest first. A unit is a folder of src/server/, or a stage of src/server/pipeline/. */
export const LAYERS: readonly (readonly string[])[] = [
  ["core"],
  ["db", "formats"],
  ["store"],
  // Below the entities so each may write its changes to the log in its own transaction.
  ["activity"],
  [
    "accounts",
    "teams",
    "views",
    "campaigns",
    "pipeline/accept",
    "pipeline/settle",
    "pipeline/attribute",
    "pipeline/report",
    "pipeline/export",
    "pipeline/ship",
    "upkeep",
  ],
  ["http", "trpc"],
];

/** The store's engine implementations: only the seam (src/server/store/*.ts) may import them. */
const STORE_ENGINES = /^store\/(postgres|clickhouse)\//;
/** Outside src/server/: what the server must never import. */
const FORBIDDEN_OUTSIDE = ["app", "cli", "collector", "testing"];

export interface SourceFile {
  /** Relative to src/server/, e.g. "pipeline/settle/stretch.ts". */
  path: string;
  text: string;
}

export interface Violation {
  file: string;
  message: string;
}

const rankOf = new Map(LAYERS.flatMap((units, rank) => units.map((unit) => [unit, rank] as const)));

export function unitOf(path: string): string {
  const parts = path.split("/");
  return parts[0] === "pipeline" && parts.length > 2 ? `pipeline/${parts[1]}` : (parts[0] ?? path);
}

/** The path `parts` name, or null when they climb out of src/server/. */
function normalize(parts: string[]): string | null {
  const out: string[] = [];
  for (const part of parts) {
    if (part === "..") {
      if (out.pop() === undefined) return null;
    } else if (part !== "." && part !== "") out.push(part);
  }
  return out.join("/");
}

/** What a specifier names: a path under src/server/, another part of src/ ("@/app/…" → {outside: "app"}), or a package (null). */
function resolve(from: string, specifier: string): { server: string } | { outside: string } | null {
  if (specifier.startsWith("@/server/")) return { server: specifier.slice("@/server/".length) };
  if (specifier.startsWith("@/")) return { outside: specifier.slice(2).split("/")[0]! };
  if (!specifier.startsWith(".")) return null;
  const joined = normalize([...from.split("/").slice(0, -1), ...specifier.split("/")]);
  return joined === null ? { outside: "src" } : { server: joined };
}

/** Every module a file imports, static or dynamic, types included. */
export function importsOf(text: string): string[] {
  return ts.preProcessFile(text, true, true).importedFiles.map((file) => file.fileName);
}

/** The violations of the layering in `files` (non-test sources of src/server/). */
export function checkLayers(files: readonly SourceFile[]): Violation[] {
  const violations: Violation[] = [];
  const arrows = new Map<string, Map<string, string>>();
  for (const file of files) {
    const from = unitOf(file.path);
    const fromRank = rankOf.get(from);
    if (fromRank === undefined) {
      violations.push({ file: file.path, message: `${from}/ is in no layer: add it to LAYERS in src/lint/layers.ts` });
      continue;
    }
    for (const specifier of importsOf(file.text)) {
      if (specifier === "pg" && file.path.startsWith("store/") && !STORE_ENGINES.test(file.path)) {
        violations.push({ file: file.path, message: `the store seam is engine-neutral: "pg" belongs in store/postgres/` });
      }
      const target = resolve(file.path, specifier);
      if (target === null) continue;
      if ("outside" in target) {
        if (FORBIDDEN_OUTSIDE.includes(target.outside) || target.outside === "src") {
          violations.push({ file: file.path, message: `src/server/ never imports src/${target.outside}/ (${specifier})` });
        }
        continue;
      }
      const to = unitOf(target.server);
      if (STORE_ENGINES.test(target.server) && from !== "store") {
        violations.push({ file: file.path, message: `${specifier}: reads and writes go through the store seam (store()), not around it` });
      }
      if (to === from) continue;
      const toRank = rankOf.get(to);
      if (toRank === undefined) continue;
      if (toRank > fromRank) {
        violations.push({ file: file.path, message: `${from}/ is below ${to}/ and may not import it (${specifier})` });
        continue;
      }
      const out = arrows.get(from) ?? new Map<string, string>();
      if (!out.has(to)) out.set(to, file.path);
      arrows.set(from, out);
    }
  }
  for (const cycle of cyclesOf(arrows)) {
    const path = cycle.map((unit, i) => `${unit} (${arrows.get(unit)?.get(cycle[(i + 1) % cycle.length]!)})`).join(" → ");
    violations.push({ file: cycle[0]!, message: `import cycle between folders: ${path} → ${cycle[0]}` });
  }
  return violations;
}

/** One cycle per strongly connected group of units (Tarjan), each as the units in import order. */
function cyclesOf(arrows: Map<string, Map<string, string>>): string[][] {
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const groups: string[][] = [];
  const visit = (unit: string) => {
    index.set(unit, index.size);
    low.set(unit, index.get(unit)!);
    stack.push(unit);
    for (const next of arrows.get(unit)?.keys() ?? []) {
      if (!index.has(next)) {
        visit(next);
        low.set(unit, Math.min(low.get(unit)!, low.get(next)!));
      } else if (stack.includes(next)) low.set(unit, Math.min(low.get(unit)!, index.get(next)!));
    }
    if (low.get(unit) === index.get(unit)) {
      const group: string[] = [];
      let member: string;
      do {
        member = stack.pop()!;
        group.push(member);
      } while (member !== unit);
      if (group.length > 1) groups.push(group);
    }
  };
  for (const unit of arrows.keys()) if (!index.has(unit)) visit(unit);
  return groups.map((group) => walkCycle(group, arrows));
}

/** A closed walk through a strongly connected group, found by following arrows inside it. */
function walkCycle(group: string[], arrows: Map<string, Map<string, string>>): string[] {
  const members = new Set(group);
  const start = [...group].sort()[0]!;
  const seen = new Map<string, string | null>([[start, null]]);
  const queue = [start];
  while (queue.length > 0) {
    const unit = queue.shift()!;
    for (const next of arrows.get(unit)?.keys() ?? []) {
      if (!members.has(next)) continue;
      if (next === start) {
        const path = [unit];
        for (let at = seen.get(unit); at != null; at = seen.get(at)) path.unshift(at);
        return path;
      }
      if (!seen.has(next)) {
        seen.set(next, unit);
        queue.push(next);
      }
    }
  }
  return group;
}
