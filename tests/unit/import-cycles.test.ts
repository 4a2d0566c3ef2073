/**
 * No import circles among the program's files, type-only imports included:
 * a circle of types is still two modules that cannot be understood (or moved)
 * one without the other. Imports are read with TypeScript's own pre-processor
 * (static, re-exports, `import()` calls and `import("…")` types), and every
 * strongly connected group of files is reported, not only the first back edge.
 */
import { describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import ts from "typescript";
import { programSources } from "../helpers/program-sources.ts";

const ROOT = resolve(import.meta.dir, "../..");

/** The program files one file imports in any way, type-only and dynamic included. */
function importsOf(file: string, known: Set<string>): string[] {
  const info = ts.preProcessFile(readFileSync(join(ROOT, file), "utf8"), true, true);
  const targets = new Set<string>();
  for (const { fileName } of info.importedFiles) {
    if (!fileName.startsWith(".")) continue;
    const target = relative(ROOT, resolve(ROOT, dirname(file), fileName));
    if (known.has(target)) targets.add(target);
  }
  return [...targets];
}

/** The strongly connected groups of more than one file, or of one file importing itself (Tarjan). */
function circles(graph: Map<string, string[]>): string[][] {
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const found: string[][] = [];
  let next = 0;
  const visit = (file: string) => {
    index.set(file, next);
    low.set(file, next);
    next++;
    stack.push(file);
    onStack.add(file);
    for (const target of graph.get(file) ?? []) {
      if (!index.has(target)) {
        visit(target);
        low.set(file, Math.min(low.get(file)!, low.get(target)!));
      } else if (onStack.has(target)) {
        low.set(file, Math.min(low.get(file)!, index.get(target)!));
      }
    }
    if (low.get(file) !== index.get(file)) return;
    const group: string[] = [];
    let member: string;
    do {
      member = stack.pop()!;
      onStack.delete(member);
      group.push(member);
    } while (member !== file);
    if (group.length > 1 || (graph.get(file) ?? []).includes(file)) found.push(group.sort());
  };
  for (const file of graph.keys()) if (!index.has(file)) visit(file);
  return found;
}

describe("import circles", () => {
  const files = programSources(ROOT);
  const known = new Set(files);
  const graph = new Map(files.map((file) => [file, importsOf(file, known)]));

  test("the reader sees imports (a file that imports nothing would hide every circle)", () => {
    const edges = [...graph.values()].reduce((sum, targets) => sum + targets.length, 0);
    expect(edges).toBeGreaterThan(files.length);
    // A type-only import and a dynamic import are both read.
    expect(graph.get("src/runtime/http/http-server.ts")).toContain("src/runtime/http/http-node.ts");
  });

  test("the circle finder finds a circle of type-only imports", () => {
    const sample = new Map([
      ["a.ts", ["b.ts"]],
      ["b.ts", ["c.ts"]],
      ["c.ts", ["a.ts"]],
      ["d.ts", ["a.ts", "d.ts"]],
    ]);
    expect(circles(sample)).toEqual([["a.ts", "b.ts", "c.ts"], ["d.ts"]]);
  });

  test("no file of the program is part of an import circle, type-only imports included", () => {
    expect(circles(graph).map((group) => group.join(" <-> "))).toEqual([]);
  });
});
