/**
 * Language-server diagnostics after edits, over stdio with the fake model
 * server, in a TypeScript project with `typescript` and
 * `typescript-language-server` in its node_modules: a type error comes back
 * with its line in the tool result the model reads next; the fix brings none;
 * a new file importing a missing export reports it; the `diagnostics` tool
 * reports the same and refuses a path outside the project; after the agent
 * exits no language-server process remains. In `auto` mode, where commands
 * run in the sandbox, the project's server runs in it too.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { symlinkSync } from "node:fs";
import { join } from "node:path";
import { RUNTIMES } from "../helpers/agent-process.ts";
import { startLspAgent, type LspAgent } from "../helpers/lsp-agent.ts";
import { writeTypeScriptProject } from "../helpers/lsp-project.ts";
import { processGone } from "../helpers/processes.ts";

const BROKEN = 'import { add } from "./lib";\n\nexport const total: string = add(1, 2);\n';
const MISSING_EXPORT = 'import { subtract } from "./lib";\n\nexport const left = subtract(3, 1);\n';

for (const runtime of RUNTIMES) {
  describe(`${runtime}: language-server diagnostics after edits`, () => {
    let agent: LspAgent;

    beforeAll(async () => {
      // Generous bounds: a loaded machine may take long to start the server; the assertions are on what it reports.
      agent = await startLspAgent(runtime, { mode: "yolo", settings: { lsp: { startWaitSeconds: 120, waitSeconds: 60 } }, prepare: writeTypeScriptProject });
    });

    afterAll(async () => {
      await agent.close();
    });

    test("an edit that introduces a type error returns it with its line, to the model and the editor", async () => {
      const { sent, shown } = await agent.callOnce("w1", "write", { path: "src/main.ts", content: BROKEN });
      expect(sent).toContain("reports 1 error in src/main.ts");
      expect(sent).toContain("line 3, column 14");
      expect(sent).toContain("Type 'number' is not assignable to type 'string'");
      expect(shown).toContain("Type 'number' is not assignable to type 'string'");
    }, 180_000);

    test("the fix returns no error", async () => {
      const { sent } = await agent.callOnce("e1", "edit", { path: "src/main.ts", oldText: "total: string", newText: "total: number" });
      expect(sent).not.toContain("line 3");
      expect(sent).not.toContain("not assignable");
      expect(sent).toContain("reports no errors in src/main.ts now");
    }, 180_000);

    test("a new file importing a missing export reports it", async () => {
      const { sent } = await agent.callOnce("w2", "write", { path: "src/other.ts", content: MISSING_EXPORT });
      expect(sent).toContain("in src/other.ts");
      expect(sent).toContain("line 1, column 10");
      expect(sent).toContain("has no exported member 'subtract'");
    }, 180_000);

    test("the diagnostics tool reports the same, for one file and for every changed file", async () => {
      const one = await agent.callOnce("d1", "diagnostics", { path: "src/other.ts" });
      expect(one.sent).toContain("has no exported member 'subtract'");
      expect(one.sent).toContain("line 1, column 10");
      const fixed = await agent.callOnce("d2", "diagnostics", { path: "src/main.ts" });
      expect(fixed.sent).toContain("reports no errors in src/main.ts");
      const all = await agent.callOnce("d3", "diagnostics", {});
      expect(all.sent).toContain("has no exported member 'subtract'");
      expect(all.sent).not.toContain("src/main.ts");
    }, 180_000);

    test("the diagnostics tool refuses a path outside the project, spelt out or through a link", async () => {
      agent.sandbox.write("outside.ts", "export const x: string = 1;\n");
      symlinkSync(join(agent.sandbox.root, "outside.ts"), join(agent.sandbox.project, "src", "inside.ts"));
      for (const [id, path] of [["d4", "../outside.ts"], ["d5", "src/inside.ts"]] as const) {
        const { sent } = await agent.callOnce(id, "diagnostics", { path });
        expect(sent).toContain("outside the session's directories");
        expect(sent).not.toContain("not assignable");
      }
    }, 180_000);

    test("after the agent exits no language-server process remains", async () => {
      const servers = agent.children();
      expect(servers.some((p) => p.command.includes("typescript-language-server"))).toBe(true);
      expect(servers.some((p) => p.command.includes("tsserver"))).toBe(true);
      agent.proc.child.stdin!.end();
      expect((await agent.proc.exited).code).toBe(0);
      expect(servers.filter((p) => !processGone(p.pid))).toEqual([]);
      expect(agent.children()).toEqual([]);
    }, 60_000);
  });
}

for (const runtime of RUNTIMES) {
  test(`${runtime}: in auto mode the project's server runs in the sandbox, and reports`, async () => {
    const agent = await startLspAgent(runtime, { mode: "auto", settings: { lsp: { startWaitSeconds: 120, waitSeconds: 60 } }, prepare: writeTypeScriptProject });
    try {
      const { sent } = await agent.callOnce("w1", "write", { path: "src/main.ts", content: BROKEN });
      expect(sent).toContain("Type 'number' is not assignable to type 'string'");
      const server = agent.children().find((p) => p.command.includes("typescript-language-server"));
      expect(server?.command).toMatch(/^\S*bwrap .* --unshare-net .*typescript-language-server --stdio$/s);
      agent.proc.child.stdin!.end();
      await agent.proc.exited;
      expect(agent.children()).toEqual([]);
    } finally {
      await agent.close();
    }
  }, 180_000);
}
