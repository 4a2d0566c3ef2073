/**
 * A TypeScript project for the language-server tests: `typescript` and
 * `typescript-language-server` in its `node_modules` (links to this
 * repository's copies), a strict tsconfig, and a library module to import.
 * Also reading what the model was sent back after a tool call.
 */
import { mkdirSync, symlinkSync } from "node:fs";
import { join } from "node:path";
import { ROOT, type Sandbox } from "./agent-process.ts";
import type { RecordedRequest } from "./fake-model-server.ts";

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

/** The tool results the model was sent in `request` (Anthropic Messages), as text. */
export function toolResultsSent(request: RecordedRequest): string {
  const messages = (request.body?.messages ?? []) as Array<{ role: string; content: unknown }>;
  const last = messages.at(-1);
  if (!last || !Array.isArray(last.content)) return "";
  return (last.content as Array<{ type: string; content?: unknown }>)
    .filter((part) => part.type === "tool_result")
    .map((part) => (typeof part.content === "string" ? part.content : JSON.stringify(part.content)))
    .join("\n");
}
