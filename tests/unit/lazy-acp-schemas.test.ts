/**
 * The build's rewrite of the ACP SDK's app module (scripts/lazy-acp-schemas.mjs):
 * the pinned SDK file rewrites cleanly; a checkout path is kept as written; and
 * any use of the schemas that the lazy stand-ins cannot serve fails the build
 * instead of failing the first request that needs it.
 */
import { describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { ROOT } from "../helpers/agent-process.ts";
import { rewriteAcpModule } from "../../scripts/lazy-acp-schemas.mjs";

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
