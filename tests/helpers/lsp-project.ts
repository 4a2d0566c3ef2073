/**
 * A TypeScript project for the language-server tests: `typescript` and
 * `typescript-language-server` in its `node_modules` (links to this
 * repository's copies), a strict tsconfig, and a library module to import.
 */
import { mkdirSync, symlinkSync } from "node:fs";
import { join } from "node:path";
import { ROOT, type Sandbox } from "./agent-process.ts";

export const LIB_SOURCE = "export function add(a: number, b: number): number {\n  return a + b;\n}\n";

/** Fills `sandbox.project` with the TypeScript project. */
export function writeTypeScriptProject(sandbox: Sandbox): void {
  sandbox.write("project/package.json", JSON.stringify({ name: "lsp-fixture", private: true, type: "module" }));
  sandbox.write("project/tsconfig.json", JSON.stringify({ compilerOptions: { strict: true, noEmit: true, target: "ES2022", module: "ESNext", moduleResolution: "Bundler" }, include: ["src"] }));
  sandbox.write("project/src/lib.ts", LIB_SOURCE);
  const modules = join(sandbox.project, "node_modules");
  mkdirSync(join(modules, ".bin"), { recursive: true });
  symlinkSync(join(ROOT, "node_modules", "typescript"), join(modules, "typescript"));
  symlinkSync(join(ROOT, "node_modules", "typescript-language-server"), join(modules, "typescript-language-server"));
  symlinkSync(join("..", "typescript-language-server", "lib", "cli.mjs"), join(modules, ".bin", "typescript-language-server"));
}
