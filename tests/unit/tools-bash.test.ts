import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, readFileSync, realpathSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import * as v from "valibot";
import { BashInput, bashTool, toToolResult } from "../../src/tools/shell/bash.ts";
import { createLocalWorkspace } from "../../src/tools/local-workspace.ts";
import { ToolError, type ExecRequest, type ExecResult, type ToolReport, type ToolResult, type Workspace } from "../../src/tools/types.ts";

let root: string;
let workspace: Workspace;
const created: string[] = [];

beforeAll(async () => {
  root = mkdtempSync(join(realpathSync(tmpdir()), "acp-bash-"));
  workspace = await createLocalWorkspace(root, []);
});
afterAll(() => {
  for (const path of created) rmSync(path, { force: true });
  rmSync(root, { recursive: true, force: true });
});

async function run(input: { command: string; timeout?: number }, signal = new AbortController().signal) {
  const reports: ToolReport[] = [];
  const result = await bashTool.execute(input, { workspace, signal, report: (r) => reports.push(r) });
  return { result, reports, text: textOf(result) };
}
const textOf = (result: ToolResult) => (result.content[0] as { type: "text"; text: string }).text;

const base: ExecResult = {
  exitCode: 0,
  signal: null,
  output: "",
  truncated: false,
  totalLines: 0,
  totalBytes: 0,
  timedOut: false,
  cancelled: false,
};

describe("bash: running commands", () => {
  test("success: the output, no error, small details", async () => {
    const { result, text, reports } = await run({ command: "echo hello; echo world >&2" });
    expect(text).toBe("hello\nworld");
    expect(result.isError).toBeUndefined();
    expect(result.details).toEqual({
      exitCode: 0,
      signal: null,
      truncated: false,
      totalLines: 2,
      totalBytes: 12,
      timedOut: false,
      cancelled: false,
    });
    expect(reports).toEqual([{ type: "output", delta: "hello\nworld\n" }]);
  });

  test("runs in the workspace directory", async () => {
    expect((await run({ command: "pwd" })).text).toBe(root);
  });

  test("no output", async () => {
    const { result, text } = await run({ command: "true" });
    expect(text).toBe("(no output)");
    expect(result.isError).toBeUndefined();
  });

  test("a non-zero exit is an error ending in the exit code", async () => {
    const { result, text } = await run({ command: "echo broken; exit 3" });
    expect(text).toBe("broken\n\nCommand exited with code 3");
    expect(result.isError).toBe(true);
    expect(result.details).toMatchObject({ exitCode: 3 });
    expect((await run({ command: "exit 1" })).text).toBe("(no output)\n\nCommand exited with code 1");
  });

  test("killed by a signal", async () => {
    const { result, text } = await run({ command: "echo bye; kill -9 $$" });
    expect(text).toBe("bye\n\nCommand was killed by signal SIGKILL");
    expect(result.isError).toBe(true);
    expect(result.details).toMatchObject({ exitCode: null, signal: "SIGKILL" });
  });

  test("timeout, in seconds", async () => {
    const started = performance.now();
    const { result, text } = await run({ command: "echo waiting; sleep 10", timeout: 0.3 });
    expect(performance.now() - started).toBeLessThan(3000);
    expect(text).toBe("waiting\n\nCommand timed out after 0.3 seconds");
    expect(result.isError).toBe(true);
    expect(result.details).toMatchObject({ timedOut: true, cancelled: false, exitCode: null });
  });

  test("abort", async () => {
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 150);
    const { result, text } = await run({ command: "sleep 10" }, controller.signal);
    expect(text).toBe("Command aborted");
    expect(result.isError).toBe(true);
    expect(result.details).toMatchObject({ cancelled: true, exitCode: null });
  });

  test("35,000 lines: the tail with pi's note naming the full output", async () => {
    const { result, text } = await run({ command: "seq 1 35000" });
    const details = result.details as { fullOutputPath: string; truncated: boolean; totalLines: number };
    created.push(details.fullOutputPath);
    expect(details.truncated).toBe(true);
    expect(details.totalLines).toBe(35_000);
    expect(text.startsWith("33001\n33002\n")).toBe(true);
    expect(text.endsWith(`\n35000\n\n[Showing lines 33001-35000 of 35000. Full output: ${details.fullOutputPath}]`)).toBe(true);
    expect(readFileSync(details.fullOutputPath, "utf8").split("\n").length).toBe(35_001);
    expect(result.isError).toBeUndefined();
  });

  test("long lines: the note names the byte limit", async () => {
    const { result, text } = await run({ command: `for i in $(seq 1 1000); do printf '%0100d\\n' $i; done` });
    const details = result.details as { fullOutputPath: string };
    created.push(details.fullOutputPath);
    // 100-byte lines plus newlines: 50 KiB holds 506 whole lines.
    expect(text).toEndWith(`\n\n[Showing lines 495-1000 of 1000 (50.0KB limit). Full output: ${details.fullOutputPath}]`);
  });

  test("output is reported as it comes", async () => {
    const { reports } = await run({ command: "echo one; sleep 0.15; echo two" });
    expect(reports.length).toBeGreaterThanOrEqual(2);
    expect(reports.every((r) => r.type === "output")).toBe(true);
    expect(reports.map((r) => (r as { delta: string }).delta).join("")).toBe("one\ntwo\n");
  });

  test("an editor terminal is reported, and the request carries what the tool was given", async () => {
    const requests: ExecRequest[] = [];
    const fake: Workspace = {
      ...workspace,
      exec: async (request) => {
        requests.push(request);
        request.onTerminal?.("term-1");
        request.onOutput?.("hi\n");
        return { ...base, output: "hi", totalLines: 1, totalBytes: 3 };
      },
    };
    const reports: ToolReport[] = [];
    const signal = new AbortController().signal;
    const result = await bashTool.execute({ command: "echo hi", timeout: 2 }, { workspace: fake, signal, report: (r) => reports.push(r) });
    expect(textOf(result)).toBe("hi");
    expect(requests[0]).toMatchObject({ command: "echo hi", cwd: root, timeoutMs: 2000, signal });
    expect(reports).toEqual([
      { type: "terminal", terminalId: "term-1" },
      { type: "output", delta: "hi\n" },
    ]);
  });
});

describe("bash: input and description", () => {
  test("an empty command is refused", async () => {
    await expect(run({ command: "" })).rejects.toBeInstanceOf(ToolError);
    await expect(run({ command: "  \n " })).rejects.toBeInstanceOf(ToolError);
  });

  test("a timeout must be positive", async () => {
    await expect(run({ command: "true", timeout: 0 })).rejects.toBeInstanceOf(ToolError);
    await expect(run({ command: "true", timeout: -5 })).rejects.toBeInstanceOf(ToolError);
  });

  test("schema: command required, timeout optional number", () => {
    expect(v.safeParse(BashInput, { command: "ls" }).success).toBe(true);
    expect(v.safeParse(BashInput, { command: "ls", timeout: 5 }).success).toBe(true);
    expect(v.safeParse(BashInput, {}).success).toBe(false);
    expect(v.safeParse(BashInput, { command: "ls", timeout: "5" }).success).toBe(false);
  });

  test("access and describe", () => {
    expect(bashTool.access?.({ command: "rm -rf build" }, workspace)).toEqual({ class: "execute", command: "rm -rf build" });
    expect(bashTool.describe({ command: "  npm test \n" }, workspace)).toEqual({ title: "npm test", locations: [] });
    const long = bashTool.describe({ command: "x".repeat(500) }, workspace).title;
    expect(long.length).toBe(200);
    expect(long.endsWith("…")).toBe(true);
    expect(bashTool.kind).toBe("execute");
    expect(bashTool.promptSnippet).toBe("Execute bash commands (ls, grep, find, etc.)");
  });
});

describe("bash: result text", () => {
  test("truncated without a file: the note has no path", () => {
    const result = toToolResult({ ...base, output: "c\nd", truncated: true, totalLines: 4000, totalBytes: 9000 });
    expect(textOf(result)).toBe("c\nd\n\n[Showing lines 3999-4000 of 4000 (50.0KB limit)]");
  });

  test("timed out with truncated output keeps both notes, in order", () => {
    const result = toToolResult(
      { ...base, exitCode: null, signal: "SIGTERM", output: "tail", truncated: true, fullOutputPath: "/var/log/f.log", totalLines: 9, timedOut: true },
      5,
    );
    expect(textOf(result)).toBe("tail\n\n[Showing lines 9-9 of 9 (50.0KB limit). Full output: /var/log/f.log]\n\nCommand timed out after 5 seconds");
    expect(result.isError).toBe(true);
    expect(result.details).toMatchObject({ fullOutputPath: "/var/log/f.log", signal: "SIGTERM" });
  });
});
