/**
 * Language servers that misbehave, and programs that must not run: a server
 * that floods reports and notifications (what the model reads stays bounded),
 * one that announces a message beyond the bound (ended before it is buffered),
 * one that never answers `initialize` (the edit goes on, said so, and the
 * process is ended), one that crashes (restarted once, then a notice); a
 * server command in a project's settings file, and a project's own
 * `node_modules/.bin` server without the sandbox in `write` mode, never run;
 * without a sandbox and not in yolo no server runs, one on the user's `PATH`
 * included (said once); in `write` mode a server of the user's runs in the
 * sandbox;
 * a server that ignores the end of its input and SIGTERM, ended when the
 * agent is killed.
 * Over stdio with the fake model server.
 */
import { afterEach, describe, expect, test } from "bun:test";
import { chmodSync, existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { NODE, ROOT, RUNTIMES, type Sandbox } from "../helpers/agent-process.ts";
import { waitFor } from "../helpers/expect-error.ts";
import { startLspAgent, type LspAgent } from "../helpers/lsp-agent.ts";

const HOSTILE = join(ROOT, "tests", "helpers", "hostile-language-server.mjs");

/** User settings naming the hostile server for `.fk` files in `mode` (with its extra argument). */
function hostile(mode: string, extra: string[] = [], waits = { startWaitSeconds: 60, waitSeconds: 60 }) {
  return { lsp: { ...waits, servers: { fake: { command: [NODE, HOSTILE, mode, ...extra], extensions: [".fk"] } } } };
}

/**
 * `write` mode with the user's sandbox setting off; the user's settings name `fk-language-server`,
 * a program put in `folder` (of the test's sandbox) that leaves a `ran` mark when it starts.
 */
function writeModeWithoutSandbox(folder: string) {
  return {
    mode: "write",
    settings: { sandbox: "off", lsp: { servers: { fake: { command: ["fk-language-server"], extensions: [".fk"] } } } },
    prepare: (sandbox: Sandbox) => {
      const bin = sandbox.write(`${folder}/fk-language-server`, `#!/bin/sh\ntouch ${join(sandbox.root, "ran")}\nexec ${NODE} ${HOSTILE} flood\n`);
      chmodSync(bin, 0o755);
    },
  };
}

for (const runtime of RUNTIMES) {
  describe(`${runtime}: hostile language servers`, () => {
    let agent: LspAgent | undefined;
    afterEach(async () => {
      await agent?.close();
      agent = undefined;
    });

    test("a server flooding reports and notifications: the result stays bounded, the agent goes on", async () => {
      agent = await startLspAgent(runtime, { mode: "yolo", settings: hostile("flood") });
      const { sent } = await agent.callOnce("w1", "write", { path: "a.fk", content: "x\n" });
      expect(sent).toContain("reports 2500 errors in a.fk");
      expect(sent).toContain("… and 2480 more");
      expect(sent.match(/^ {2}line \d+/gm)?.length).toBe(20);
      expect(sent).not.toContain("x".repeat(600));
      expect(sent).not.toContain("elsewhere");
      expect(sent.length).toBeLessThan(20_000);
      const again = await agent.callOnce("d1", "diagnostics", {});
      expect(again.sent).toContain("reports 2500 errors in a.fk");
    }, 120_000);

    test("reports of random shapes (seeded): every listed error has its line, the result stays bounded, the agent goes on", async () => {
      const seed = Number(process.env.LSP_FUZZ_SEED ?? 7);
      agent = await startLspAgent(runtime, { mode: "yolo", settings: hostile("fuzz", [String(seed)]) });
      for (let i = 0; i < 3; i++) {
        const { sent } = await agent.callOnce(`w${i}`, "write", { path: "a.fk", content: `${i}\n` });
        expect(sent).toContain("Successfully wrote");
        expect(sent.length).toBeLessThan(20 * 700 + 2000);
        const listed = sent.split("\n").filter((line) => line.startsWith("  ") && !line.startsWith("  …"));
        expect(listed.length).toBeLessThanOrEqual(20);
        for (const line of listed) {
          expect(line).toMatch(/^ {2}line [1-9]\d*, column [1-9]\d*: [^\n]{0,620}$/);
          // No terminal controls or bidirectional overrides reach the model or the editor.
          expect(line).not.toMatch(/[\u0000-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/);
        }
      }
    }, 120_000);

    test("a server announcing a message beyond the bound is ended before its message is buffered", async () => {
      agent = await startLspAgent(runtime, { mode: "yolo", settings: hostile("huge") });
      const { sent } = await agent.callOnce("w1", "write", { path: "a.fk", content: "x\n" });
      expect(sent).toContain("Successfully wrote");
      expect(sent).toContain("exited before it reported on a.fk");
      expect(agent.children().filter((p) => p.command.includes(HOSTILE))).toEqual([]);
    }, 120_000);

    test("a server that never answers initialize: the edit goes on, says so, and the process is ended", async () => {
      agent = await startLspAgent(runtime, { mode: "yolo", settings: hostile("silent", [], { startWaitSeconds: 2, waitSeconds: 2 }) });
      const { sent } = await agent.callOnce("w1", "write", { path: "a.fk", content: "x\n" });
      expect(sent).toContain("Successfully wrote");
      expect(sent).toContain("could not be used: it did not answer initialize");
      expect(agent.children().filter((p) => p.command.includes(HOSTILE))).toEqual([]);
      // Told once: the next edit goes on without it, quietly.
      const next = await agent.callOnce("w2", "write", { path: "a.fk", content: "y\n" });
      expect(next.sent).not.toContain("language server");
    }, 120_000);

    test("a server that crashes is restarted once, then left down with a notice", async () => {
      agent = await startLspAgent(runtime, { mode: "yolo", settings: hostile("crash", ["starts.log"]) });
      const first = await agent.callOnce("w1", "write", { path: "a.fk", content: "1\n" });
      expect(first.sent).toContain("exited before it reported on a.fk; it is started again with the next change");
      const second = await agent.callOnce("w2", "write", { path: "a.fk", content: "2\n" });
      expect(second.sent).toContain("crashed again after a restart; it is not started again");
      const third = await agent.callOnce("w3", "write", { path: "a.fk", content: "3\n" });
      expect(third.sent).not.toContain("language server");
      expect(readFileSync(join(agent.sandbox.project, "starts.log"), "utf8").trim().split("\n")).toHaveLength(2);
      expect(agent.children().filter((p) => p.command.includes(HOSTILE))).toEqual([]);
    }, 120_000);

    test("a server that ignores the end of its input and SIGTERM is ended when the agent is killed", async () => {
      agent = await startLspAgent(runtime, { mode: "yolo", settings: hostile("stubborn") });
      const { sent } = await agent.callOnce("w1", "write", { path: "a.fk", content: "x\n" });
      expect(sent).toContain("reports 1 error in a.fk");
      const servers = agent.children().filter((p) => p.command.includes(HOSTILE));
      expect(servers).toHaveLength(1);
      agent.proc.child.kill("SIGKILL");
      await agent.proc.exited;
      await waitFor(() => agent!.children().every((p) => !p.command.includes(HOSTILE)), 20_000, "the server to be ended");
    }, 120_000);

    test("a server command in the project's settings file is never run", async () => {
      agent = await startLspAgent(runtime, {
        mode: "yolo",
        settings: {},
        prepare: (sandbox) => sandbox.write("project/.acp-edge/settings.json", JSON.stringify(hostile("marker", [join(sandbox.root, "ran")]))),
      });
      const { sent } = await agent.callOnce("w1", "write", { path: "a.fk", content: "x\n" });
      expect(sent).toContain("Successfully wrote");
      expect(sent).not.toContain("language server");
      expect(existsSync(join(agent.sandbox.root, "ran"))).toBe(false);
    }, 120_000);

    test("a server program from the project does not run unconfined unless the mode is yolo", async () => {
      // The user's settings name the program; the project supplies one of that name.
      agent = await startLspAgent(runtime, writeModeWithoutSandbox("project/node_modules/.bin"));
      const { sent } = await agent.callOnce("w1", "write", { path: "a.fk", content: "x\n" });
      expect(sent).toContain("Successfully wrote");
      expect(sent).toContain("was not started: it is code from the repository");
      expect(existsSync(join(agent.sandbox.root, "ran"))).toBe(false);
    }, 120_000);

    test("without a sandbox (the user's setting off) and not in yolo, a server on the user's PATH is not started, and the edit says why once", async () => {
      agent = await startLspAgent(runtime, { ...writeModeWithoutSandbox("user-bin"), pathFirst: (sandbox) => join(sandbox.root, "user-bin") });
      const first = await agent.callOnce("w1", "write", { path: "a.fk", content: "x\n" });
      expect(first.sent).toContain("Successfully wrote");
      expect(first.sent).toContain("was not started: a language server can run code from the repository (build scripts, the project's own compiler), run only under the sandbox or in yolo mode");
      expect(first.sent).toContain("the sandbox setting is off");
      const second = await agent.callOnce("w2", "write", { path: "b.fk", content: "y\n" });
      expect(second.sent).toContain("Successfully wrote");
      expect(second.sent).not.toContain("language server");
      expect(existsSync(join(agent.sandbox.root, "ran"))).toBe(false);
    }, 120_000);

    test("in write mode a server from the user's settings runs in the sandbox, and reports", async () => {
      agent = await startLspAgent(runtime, { mode: "write", settings: hostile("flood") });
      const { sent } = await agent.callOnce("w1", "write", { path: "a.fk", content: "x\n" });
      expect(sent).toContain("reports 2500 errors in a.fk");
      // The server is started by the sandbox's program, not by the agent directly.
      const confined = agent.children().filter((p) => p.command.includes(HOSTILE) && /(^|\/)bwrap\s/.test(p.command));
      expect(confined.length).toBeGreaterThan(0);
    }, 120_000);
  });
}
