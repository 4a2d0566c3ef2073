// The esbuild plugin that defers the ACP SDK's schema building (see src/acp/lazy-schemas.ts), and the
// rewrite it applies to the SDK's app module, checked so that an SDK whose module uses its schemas in a
// way the lazy stand-ins cannot serve fails the build rather than a request.
import { readFileSync } from "node:fs";
import { dirname, join } from "node:path";

const SCHEMA_IMPORT = 'import * as validate from "../schema/zod.gen.js";';
const GUARDS_EXPORT = /export \{([^}]*)\} from "\.\.\/schema\/guards\.gen\.js";/;

/**
 * Every use of `validate` must be `validate.zName` with `zName` exported by the schema module, and either
 * an argument of `requestSpec(…)`/`notificationSpec(…)` (the SDK calls `.parse` on it) or called through
 * `.parse(`/`.safeParse(` on the spot: the only uses a property-forwarding stand-in serves.
 */
function checkSchemaUses(code, schemaModule) {
  const exported = new Set([...schemaModule.matchAll(/^export const (z\w+) =/gm)].map((m) => m[1]));
  for (const match of code.matchAll(/\bvalidate\b(\.(\w+))?/g)) {
    const at = match.index;
    const line = code.slice(code.lastIndexOf("\n", at) + 1, code.indexOf("\n", at) === -1 ? undefined : code.indexOf("\n", at));
    const after = code.slice(at + match[0].length, at + match[0].length + 12);
    const name = match[2];
    const fail = (why) => {
      throw new Error(`lazy-acp-schemas: the SDK's app module ${why}: ${line.trim()}`);
    };
    if (!name) fail("uses the schema namespace itself");
    if (!exported.has(name)) fail(`uses ${name}, which its schema module does not export`);
    const asSpecArgument = /\b(requestSpec|notificationSpec)\(/.test(line) && /^\s*[,)]/.test(after);
    const parsedHere = /^\.(parse|safeParse)\(/.test(after);
    if (!asSpecArgument && !parsedHere) fail(`uses ${name} other than through .parse or .safeParse`);
  }
}

/**
 * The SDK's app module with its generated zod schemas and the guards built from them replaced by
 * namespaces of lazy stand-ins from `lazyModule`, loaded with `require` so esbuild defers their modules'
 * evaluation. Throws when the module no longer has the lines this replaces, or uses its schemas otherwise.
 */
export function rewriteAcpModule(source, lazyModule, schemaModule) {
  if (!source.includes(SCHEMA_IMPORT)) throw new Error(`lazy-acp-schemas: the SDK's app module no longer contains ${JSON.stringify(SCHEMA_IMPORT)}`);
  const guards = GUARDS_EXPORT.exec(source);
  if (!guards) throw new Error("lazy-acp-schemas: the SDK's app module no longer re-exports ../schema/guards.gen.js");
  const withoutImport = source.replace(SCHEMA_IMPORT, () => "");
  checkSchemaUses(withoutImport, schemaModule);
  const names = guards[1].split(",").map((n) => n.trim()).filter(Boolean);
  // Function replacers: a replacement string would read `$&`, `$'`… in a checkout path as patterns.
  return (
    source
      .replace(SCHEMA_IMPORT, () => `import { lazyNamespace as __lazyNamespace } from ${JSON.stringify(lazyModule)};\nconst validate = __lazyNamespace(() => require("../schema/zod.gen.js"));`)
      .replace(guards[0], () => `const __guards = __lazyNamespace(() => require("../schema/guards.gen.js"));\n${names.map((n) => `export const ${n} = __guards.${n};`).join("\n")}`) +
    // For the idle warm-up after `initialize` (src/acp/sdk.ts: prepareSchemas).
    '\nexport const __loadSchemas = (names) => { const schemas = require("../schema/zod.gen.js").__schemas; for (const name of names) schemas?.[name]?.(); };\n'
  );
}

const SCHEMA_EXPORT = /^export const (z\w+) = /;
const TOP_LEVEL_BREAK = /^(\/\*\*|\/\/# sourceMappingURL|export const z\w+ = )/;

/**
 * The SDK's generated schema module with every schema built on first use: each
 * `export const zName = …;` becomes a memoised builder `zName()`, and every use of a schema name
 * inside another definition calls its builder. The builders are exported as `__schemas`, which
 * `src/acp/lazy-schemas.ts` reads, so parsing a request builds that request's schemas only. Throws
 * when the module has anything else at its top level than its imports, comments and schema exports.
 */
export function rewriteSchemaModule(source) {
  const lines = source.split("\n");
  const head = [];
  const schemas = [];
  let current;
  for (const line of lines) {
    const start = SCHEMA_EXPORT.exec(line);
    if (start) {
      current = { name: start[1], body: [line.slice(start[0].length)] };
      schemas.push(current);
    } else if (TOP_LEVEL_BREAK.test(line) || (!current && (line.startsWith(" *") || line === ""))) {
      current = undefined;
    } else if (current) {
      current.body.push(line);
    } else if (line.startsWith("import ") || line.startsWith("//")) {
      head.push(line);
    } else if (!line.startsWith(" *") && line.trim() !== "") {
      throw new Error(`lazy-acp-schemas: the SDK's schema module has a top-level line this rewrite does not know: ${line}`);
    }
  }
  if (schemas.length === 0) throw new Error("lazy-acp-schemas: the SDK's schema module exports no schemas");
  const names = new Set(schemas.map((s) => s.name));
  const reference = new RegExp(`\\b(${[...names].join("|")})\\b`, "g");
  const built = schemas.map(({ name, body }) => {
    const text = body.join("\n").trimEnd();
    if (!text.endsWith(";")) throw new Error(`lazy-acp-schemas: the definition of ${name} does not end where expected`);
    const expression = text.slice(0, -1).replace(reference, (used) => `${used}()`);
    return `let ${name}$;\nconst ${name} = () => (${name}$ ??= ${expression});`;
  });
  return `${head.join("\n")}\n${built.join("\n")}\nexport const __schemas = { ${[...names].join(", ")} };\n`;
}

/** The SDK's guards module reading its schemas through the builders `rewriteSchemaModule` leaves. */
export function rewriteGuardsModule(source) {
  if (!source.includes('import * as validate from "./zod.gen.js";')) throw new Error("lazy-acp-schemas: the SDK's guards module no longer imports its schemas as `validate`");
  return source.replace(/\bvalidate\.(z\w+)\b/g, (_use, name) => `validate.__schemas.${name}()`);
}

/** The esbuild plugin applying `rewriteAcpModule` to the SDK's `dist/v1/stable/acp.js`. */
export function lazyAcpSchemas(lazyModule) {
  return {
    name: "lazy-acp-schemas",
    setup(builder) {
      builder.onLoad({ filter: /@agentclientprotocol[\\/]sdk[\\/]dist[\\/]v1[\\/]stable[\\/]acp\.js$/ }, (args) => {
        const schemaModule = readFileSync(join(dirname(args.path), "..", "schema", "zod.gen.js"), "utf8");
        const contents = rewriteAcpModule(readFileSync(args.path, "utf8"), lazyModule, schemaModule);
        return { contents, loader: "js", resolveDir: dirname(args.path) };
      });
      builder.onLoad({ filter: /@agentclientprotocol[\\/]sdk[\\/]dist[\\/]v1[\\/]schema[\\/]zod\.gen\.js$/ }, (args) => ({
        contents: rewriteSchemaModule(readFileSync(args.path, "utf8")),
        loader: "js",
        resolveDir: dirname(args.path),
      }));
      builder.onLoad({ filter: /@agentclientprotocol[\\/]sdk[\\/]dist[\\/]v1[\\/]schema[\\/]guards\.gen\.js$/ }, (args) => ({
        contents: rewriteGuardsModule(readFileSync(args.path, "utf8")),
        loader: "js",
        resolveDir: dirname(args.path),
      }));
    },
  };
}
