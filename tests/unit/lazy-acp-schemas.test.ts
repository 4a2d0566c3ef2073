/**
 * The build's rewrite of the ACP SDK's app and schema modules
 * (scripts/lazy-acp-schemas.mjs): the pinned SDK files rewrite cleanly; a
 * checkout path is kept as written; every lazily built schema is the SDK's
 * own (same JSON Schema, same answers to a seeded run of params); and
 * anything the rewrite cannot account for fails the build instead of the
 * first request that needs it.
 */
import { describe, expect, test } from "bun:test";
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import * as z from "zod/v4";
import { SESSION_SCHEMAS, TURN_SCHEMAS } from "../../src/acp/sdk.ts";
import { ROOT } from "../helpers/agent-process.ts";
import { rewriteAcpModule, rewriteSchemaModule } from "../../scripts/lazy-acp-schemas.mjs";

const SDK = join(ROOT, "node_modules", "@agentclientprotocol", "sdk", "dist", "v1");
const appModule = readFileSync(join(SDK, "stable", "acp.js"), "utf8");
const schemaModule = readFileSync(join(SDK, "schema", "zod.gen.js"), "utf8");
const LAZY = "/src/acp/lazy-schemas.ts";

describe("rewriteAcpModule", () => {
  test("the SDK's own module: no eager schema import is left, every guard is re-exported", () => {
    const out = rewriteAcpModule(appModule, LAZY, schemaModule);
    expect(out).not.toMatch(/import \* as validate from/);
    expect(out).not.toMatch(/from "\.\.\/schema\/guards\.gen\.js"/);
    for (const name of ["CreateElicitationRequest", "CreateElicitationResponse", "ElicitationPropertySchema", "MultiSelectItems"]) expect(out).toContain(`export const ${name} = __guards.${name};`);
    expect(out).toContain("export const __loadSchemas");
  });

  test("a checkout path with $ patterns is written as it is", () => {
    const path = "/home/a$&b$'c$`d$$e/src/acp/lazy-schemas.ts";
    expect(rewriteAcpModule(appModule, path, schemaModule)).toContain(`from ${JSON.stringify(path)};`);
  });

  test.each([
    ["composed into another schema", "const x = z.union([validate.zPromptRequest, validate.zNewSessionRequest]);"],
    ["tested with instanceof", "if (validate.zPromptRequest instanceof Object) {}"],
    ["the namespace itself passed on", "const all = Object.keys(validate);"],
    ["a schema that does not exist", "const y = validate.zNoSuchRequest.parse({});"],
  ])("a use the stand-ins cannot serve fails the build: %s", (_what, line) => {
    expect(() => rewriteAcpModule(`${appModule}\n${line}\n`, LAZY, schemaModule)).toThrow(/lazy-acp-schemas/);
  });

  test("a module without the lines it replaces fails the build", () => {
    expect(() => rewriteAcpModule(appModule.replace('import * as validate from "../schema/zod.gen.js";', ""), LAZY, schemaModule)).toThrow(/no longer contains/);
  });
});

describe("rewriteSchemaModule", () => {
  /** The rewritten schema module, written where it can be imported (its imports made absolute). */
  async function rewritten(): Promise<{ __schemas: Record<string, () => unknown> }> {
    const dir = mkdtempSync(join(tmpdir(), "acp-edge-lazy-schemas-"));
    const out = rewriteSchemaModule(schemaModule)
      .replace('"../../core/schema-deserialize.js"', JSON.stringify(pathToFileURL(join(SDK, "..", "core", "schema-deserialize.js")).href))
      .replace('"zod/v4"', JSON.stringify(pathToFileURL(join(ROOT, "node_modules", "zod", "v4", "index.js")).href));
    writeFileSync(join(dir, "zod.gen.js"), out);
    return await import(pathToFileURL(join(dir, "zod.gen.js")).href);
  }
  const original = () => import(pathToFileURL(join(SDK, "schema", "zod.gen.js")).href) as Promise<Record<string, z.ZodType>>;

  test("every schema is built lazily and describes the same JSON as the SDK's own", async () => {
    const [lazy, eager] = await Promise.all([rewritten(), original()]);
    const names = Object.keys(eager).filter((n) => n.startsWith("z"));
    expect(Object.keys(lazy.__schemas).sort()).toEqual(names.sort());
    for (const name of names) {
      const describe = (schema: unknown) => JSON.stringify(z.toJSONSchema(schema as z.ZodType, { unrepresentable: "any", io: "input" }));
      expect({ name, json: describe(lazy.__schemas[name]!()) }).toEqual({ name, json: describe(eager[name]) });
    }
  });

  test("a seeded run of params: the same answer from both for every method acp-edge serves", async () => {
    const [lazy, eager] = await Promise.all([rewritten(), original()]);
    const names = [...SESSION_SCHEMAS, ...TURN_SCHEMAS, "zCloseSessionRequest", "zDeleteSessionRequest", "zSetSessionModeRequest", "zSetSessionConfigOptionRequest", "zAuthenticateRequest"];
    let seed = 2026;
    const next = () => (seed = (seed * 48271) % 2147483647);
    const keys = ["sessionId", "cwd", "mcpServers", "prompt", "type", "text", "name", "command", "args", "env", "url", "headers", "cursor", "modeId", "configId", "value", "methodId", "uri", "data", "mimeType", "_meta"];
    const leaf = () => [null, true, 1, -1, 1.5, "", "x", "/tmp", "text", "stdio", "http", [], {}][next() % 13];
    const value = (depth: number): unknown => {
      const pick = next() % 4;
      if (depth > 3 || pick === 0) return leaf();
      if (pick === 1) return Array.from({ length: next() % 3 }, () => value(depth + 1));
      return Object.fromEntries(Array.from({ length: 1 + (next() % 4) }, () => [keys[next() % keys.length]!, value(depth + 1)]));
    };
    const answer = (schema: unknown, input: unknown) => {
      const result = (schema as z.ZodType).safeParse(input);
      return result.success ? { ok: JSON.stringify(result.data) } : { issues: result.error.issues.map((i) => `${i.path.join(".")}:${i.code}`).join(",") };
    };
    for (const name of names) {
      expect(eager[name]).toBeDefined();
      for (let i = 0; i < 300; i += 1) {
        const input = { sessionId: "sess_1", cwd: "/tmp", mcpServers: [], prompt: [{ type: "text", text: "hi" }], ...(value(0) as object) };
        expect({ name, input, answer: answer(lazy.__schemas[name]!(), input) }).toEqual({ name, input, answer: answer(eager[name], input) });
      }
    }
  });

  test("a definition it cannot account for fails the build", () => {
    expect(() => rewriteSchemaModule(`${schemaModule}\nconst sideEffect = register();\n`)).toThrow(/lazy-acp-schemas/);
    expect(() => rewriteSchemaModule('import * as z from "zod/v4";\n')).toThrow(/lazy-acp-schemas/);
  });
});
