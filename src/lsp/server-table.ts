/**
 * The language servers acp-edge knows how to find: which files each serves,
 * the commands tried in order (the first found on `PATH` or in the project's
 * `node_modules/.bin` wins), and the files that mark a project's root. Adding a
 * language is adding a row; the user's `lsp.servers` setting adds or replaces rows.
 * @module
 */
import type { LspSettings } from "../config/settings-schema.ts";

/** One way of starting a server: the program's name and its arguments. */
export interface ServerCommand {
  program: string;
  args: string[];
}

/** A row of the table. */
export interface ServerEntry {
  /** The name the settings use (`typescript`, `python`, …). */
  name: string;
  /** Extensions with their dot, lower case. */
  extensions: string[];
  commands: ServerCommand[];
  /** Files whose folder is the project root for this server (the nearest one up from the file). */
  rootMarkers: string[];
  /** Where the command came from: the built-in table, or the user's settings (never the project's). */
  source: "table" | "settings";
}

const cmd = (program: string, ...args: string[]): ServerCommand => ({ program, args });

/** The built-in table. */
export const BUILTIN_SERVERS: readonly ServerEntry[] = [
  {
    name: "typescript",
    extensions: [".ts", ".tsx", ".mts", ".cts", ".js", ".jsx", ".mjs", ".cjs"],
    commands: [cmd("typescript-language-server", "--stdio")],
    rootMarkers: ["tsconfig.json", "jsconfig.json", "package.json"],
    source: "table",
  },
  {
    name: "python",
    extensions: [".py", ".pyi"],
    commands: [cmd("basedpyright-langserver", "--stdio"), cmd("pyright-langserver", "--stdio")],
    rootMarkers: ["pyproject.toml", "setup.py", "setup.cfg", "pyrightconfig.json", "requirements.txt"],
    source: "table",
  },
  { name: "go", extensions: [".go"], commands: [cmd("gopls")], rootMarkers: ["go.work", "go.mod"], source: "table" },
  { name: "rust", extensions: [".rs"], commands: [cmd("rust-analyzer")], rootMarkers: ["Cargo.toml"], source: "table" },
  {
    name: "c",
    extensions: [".c", ".h", ".cc", ".cpp", ".cxx", ".hpp", ".hh"],
    commands: [cmd("clangd")],
    rootMarkers: ["compile_commands.json", "compile_flags.txt", ".clangd"],
    source: "table",
  },
];

/** The table with the user's `lsp.servers` applied: `false` removes a row, an entry replaces or adds one. */
export function serverTable(settings: LspSettings | undefined): ServerEntry[] {
  const configured = settings?.servers ?? {};
  const rows = BUILTIN_SERVERS.filter((row) => !(row.name in configured));
  for (const [name, entry] of Object.entries(configured)) {
    if (entry === false) continue;
    const builtin = BUILTIN_SERVERS.find((row) => row.name === name);
    const extensions = (entry.extensions ?? builtin?.extensions ?? []).map((ext) => (ext.startsWith(".") ? ext : `.${ext}`).toLowerCase());
    const [program, ...args] = entry.command as [string, ...string[]];
    rows.unshift({ name, extensions, commands: [{ program, args }], rootMarkers: builtin?.rootMarkers ?? [], source: "settings" });
  }
  return rows;
}

/** The row serving a file with this extension (lower case, with its dot), if any. */
export function serverFor(table: readonly ServerEntry[], extension: string): ServerEntry | undefined {
  return table.find((row) => row.extensions.includes(extension));
}

/** The LSP language id of a file with this extension. */
export function languageIdOf(extension: string, server: string): string {
  const ids: Record<string, string> = {
    ".ts": "typescript", ".mts": "typescript", ".cts": "typescript", ".tsx": "typescriptreact",
    ".js": "javascript", ".mjs": "javascript", ".cjs": "javascript", ".jsx": "javascriptreact",
    ".py": "python", ".pyi": "python", ".go": "go", ".rs": "rust", ".c": "c", ".h": "c",
  };
  return ids[extension] ?? (server === "c" ? "cpp" : server);
}
