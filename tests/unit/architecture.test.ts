/**
 * The layer table of docs/architecture.md as a test: the table is read from
 * the doc (the doc is the source of truth), every import under src/ and in
 * mod.ts is checked against it, and so are the rules beside it (no cycles,
 * runtime globals only in src/runtime/, one name per idea).
 */
import { describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { basename, dirname, join, relative, resolve } from "node:path";
import { programSources } from "../helpers/program-sources.ts";

const ROOT = resolve(import.meta.dir, "../..");
const RUNTIME = "src/runtime";

/** A layer row of the doc's table: its folder and what it may import. */
interface LayerRow {
  folder: string;
  mayImport: string;
}

/** The rows of the first table in docs/architecture.md whose first cell names a folder or mod.ts. */
function layerTable(doc: string): LayerRow[] {
  const rows: LayerRow[] = [];
  for (const line of doc.split("\n")) {
    const cells = line.split("|").map((cell) => cell.trim());
    const folder = /^`(mod\.ts|src\/[a-z-]+)\/?`$/.exec(cells[1] ?? "")?.[1];
    if (folder && cells.length >= 5) rows.push({ folder, mayImport: cells[3]! });
  }
  return rows;
}

/** The layer a file belongs to: mod.ts, or the top folder under src/. */
function layerOf(file: string): string {
  if (file === "mod.ts") return "mod.ts";
  return file.split("/").slice(0, 2).join("/");
}

/** Whether `from` may import `to` according to the table (a layer may always use itself and src/runtime/). */
function allowed(rows: LayerRow[], from: string, to: string): boolean {
  if (from === to || to === RUNTIME) return true;
  const index = rows.findIndex((row) => row.folder === from);
  const target = rows.findIndex((row) => row.folder === to);
  if (index === -1 || target === -1) return false;
  const rule = rows[index]!.mayImport;
  if (rule === "src") return true;
  if (rule === "everything below") return target > index;
  if (rule === "nothing above") return false;
  const names = rule.split(",").map((name) => name.replace(/\(.*\)/, "").trim());
  return names.includes(to.replace(/^src\//, ""));
}

/** Source text without comments, so prose that names `process` or an import is not mistaken for code. */
function code(text: string): string {
  return text.replace(/\/\*[\s\S]*?\*\//g, "").replace(/(^|[^:"'`])\/\/.*$/gm, "$1");
}

/** Code without the contents of one-line string literals (import specifiers are read before this). */
function withoutStrings(text: string): string {
  return text.replace(/"(?:[^"\\\n]|\\.)*"|'(?:[^'\\\n]|\\.)*'/g, '""');
}

/** The module specifiers a file imports or re-exports, static or dynamic; `typeOnly` when erased at run time. */
function specifiers(text: string): Array<{ spec: string; typeOnly: boolean }> {
  const found: Array<{ spec: string; typeOnly: boolean }> = [];
  for (const match of text.matchAll(/\b(import|export)\s+(type\s)?[^"';]*?\sfrom\s*["']([^"']+)["']/g)) {
    found.push({ spec: match[3]!, typeOnly: match[2] !== undefined });
  }
  for (const match of text.matchAll(/\bimport\s*\(?\s*["']([^"']+)["']/g)) found.push({ spec: match[1]!, typeOnly: false });
  return found;
}

/** What one source file imports: program files (all, and those still imported at run time), and packages. */
function importsOf(file: string): { files: string[]; runtimeFiles: string[]; packages: string[] } {
  const text = code(readFileSync(join(ROOT, file), "utf8"));
  const files: string[] = [];
  const runtimeFiles: string[] = [];
  const packages: string[] = [];
  for (const { spec, typeOnly } of specifiers(text)) {
    if (!spec.startsWith(".")) {
      packages.push(spec);
      continue;
    }
    // JSON files are data (the package version), not modules of a layer.
    if (spec.endsWith(".json")) continue;
    const target = relative(ROOT, resolve(ROOT, dirname(file), spec));
    files.push(target);
    if (!typeOnly) runtimeFiles.push(target);
  }
  return { files, runtimeFiles, packages };
}

const files = programSources(ROOT);
const graph = new Map(files.map((file) => [file, importsOf(file)]));
const doc = readFileSync(join(ROOT, "docs/architecture.md"), "utf8");
const rows = layerTable(doc);

describe("architecture", () => {
  test("the doc's table names every layer under src/", () => {
    const folders = new Set(files.map(layerOf));
    expect(rows.length).toBeGreaterThan(5);
    expect([...folders].filter((folder) => !rows.some((row) => row.folder === folder))).toEqual([]);
  });

  test("the doc names every folder under src/, each with what it holds", () => {
    const folders = new Set(files.filter((file) => file !== "mod.ts").map((file) => dirname(file)));
    const named = new Map<string, string>();
    for (const line of doc.split("\n")) {
      const cells = line.split("|").map((cell) => cell.trim());
      const folder = /^`(src\/[a-z/-]+?)\/?`/.exec(cells[1] ?? "")?.[1];
      if (folder && (cells[2] ?? "").length > 0) named.set(folder, cells[2]!);
    }
    expect([...folders].filter((folder) => !named.has(folder)).sort()).toEqual([]);
  });

  test("no folder under src/ holds more than 25 source files directly", () => {
    const counts = new Map<string, number>();
    for (const file of files.filter((f) => f !== "mod.ts")) counts.set(dirname(file), (counts.get(dirname(file)) ?? 0) + 1);
    expect([...counts].filter(([, count]) => count > 25).map(([folder, count]) => `${folder}: ${count}`)).toEqual([]);
  });

  test("every import follows the layer table", () => {
    const broken: string[] = [];
    for (const [file, { files: targets }] of graph) {
      for (const target of targets) {
        if (!graph.has(target)) broken.push(`${file} imports ${target}, which is not a source file`);
        else if (!allowed(rows, layerOf(file), layerOf(target))) broken.push(`${file} imports ${target}`);
      }
    }
    expect(broken).toEqual([]);
  });

  test("relative imports spell .ts", () => {
    const bad = [...graph].flatMap(([file, { files: targets }]) => targets.filter((t) => !t.endsWith(".ts")).map((t) => `${file} -> ${t}`));
    expect(bad).toEqual([]);
  });

  test("there are no import cycles between files (type-only imports are erased at run time)", () => {
    const cycles: string[] = [];
    const state = new Map<string, "open" | "done">();
    const visit = (file: string, path: string[]) => {
      if (state.get(file) === "done") return;
      if (state.get(file) === "open") {
        cycles.push([...path.slice(path.indexOf(file)), file].join(" -> "));
        return;
      }
      state.set(file, "open");
      for (const target of graph.get(file)?.runtimeFiles ?? []) visit(target, [...path, file]);
      state.set(file, "done");
    };
    for (const file of files) visit(file, []);
    expect(cycles).toEqual([]);
  });

  test("only src/runtime/ touches process, Bun, Deno or node:* modules", () => {
    const global = /(?<![\w.$])(?:globalThis\s*\.\s*)?(process|Bun|Deno)\s*(?:\.|\[|\?\.)|\btypeof\s+(process|Bun|Deno)\b/;
    const found: string[] = [];
    for (const [file, { packages }] of graph) {
      if (file.startsWith(`${RUNTIME}/`)) continue;
      for (const spec of packages) if (spec.startsWith("node:") || spec === "process") found.push(`${file} imports ${spec}`);
      const match = global.exec(withoutStrings(code(readFileSync(join(ROOT, file), "utf8"))));
      if (match) found.push(`${file} uses ${match[1] ?? match[2]}`);
    }
    expect(found).toEqual([]);
  });

  test("only src/acp/ imports the ACP SDK", () => {
    const found = [...graph].filter(([file, { packages }]) => !file.startsWith("src/acp/") && packages.some((p) => p.startsWith("@agentclientprotocol/")));
    expect(found.map(([file]) => file)).toEqual([]);
  });

  test("nothing loads the `ai` package at run time: the model layer calls the provider packages' models itself", () => {
    const found: string[] = [];
    for (const file of files) {
      for (const { spec, typeOnly } of specifiers(code(readFileSync(join(ROOT, file), "utf8")))) {
        if (!typeOnly && (spec === "ai" || spec.startsWith("ai/"))) found.push(`${file} imports ${spec}`);
      }
    }
    expect(found).toEqual([]);
  });

  test("a file name is used once, unless each file's first line says it is the same idea at another level", () => {
    const byName = new Map<string, string[]>();
    for (const file of files) byName.set(basename(file), [...(byName.get(basename(file)) ?? []), file]);
    const unexplained: string[] = [];
    for (const [name, same] of byName) {
      if (same.length < 2) continue;
      for (const file of same) {
        const firstLine = /^\/\*\*\s*\n\s*\*\s*(.*)$/m.exec(readFileSync(join(ROOT, file), "utf8"))?.[1] ?? "";
        if (!/same idea/i.test(firstLine)) unexplained.push(`${file} (also ${same.filter((f) => f !== file).join(", ")})`);
      }
      void name;
    }
    expect(unexplained).toEqual([]);
  });

  test("no two modules export a function, class or constant of the same name", () => {
    // mod.ts is the public API: its names are a contract and may wrap the function they name.
    const owners = new Map<string, string[]>();
    for (const file of files.filter((f) => f !== "mod.ts")) {
      const text = code(readFileSync(join(ROOT, file), "utf8"));
      for (const match of text.matchAll(/^export\s+(?:async\s+)?(?:function\*?|class|const|let)\s+([A-Za-z_$][\w$]*)/gm)) {
        owners.set(match[1]!, [...(owners.get(match[1]!) ?? []), file]);
      }
    }
    const twice = [...owners].filter(([, where]) => where.length > 1).map(([name, where]) => `${name}: ${where.join(", ")}`);
    expect(twice).toEqual([]);
  });
});
