import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { execFileSync, spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, realpathSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { buildSync } from "esbuild";
import { registerSecret } from "../../src/runtime/secrets.ts";
import { DeltaThrottle, MAX_DELTA_BYTES, runLocalCommand, type LocalExecOptions } from "../../src/tools/shell/local-exec.ts";
import type { OutputBuffer } from "../../src/tools/shell/output-buffer.ts";
import { utf8Length } from "../../src/tools/truncate.ts";
import type { ExecRequest } from "../../src/tools/types.ts";

const ROOT = resolve(import.meta.dir, "../..");
let dir: string;
const created: string[] = [];
const leftovers: number[] = [];

beforeAll(() => {
  dir = mkdtempSync(join(realpathSync(tmpdir()), "acp-exec-"));
});
afterAll(() => {
  for (const pid of leftovers) {
    try {
      process.kill(pid, "SIGKILL");
    } catch {}
  }
  for (const path of created) rmSync(path, { force: true });
  rmSync(dir, { recursive: true, force: true });
});

function run(command: string, extra: Partial<ExecRequest> = {}, options: LocalExecOptions = {}) {
  const deltas: string[] = [];
  const promise = runLocalCommand(
    { command, cwd: dir, signal: new AbortController().signal, onOutput: (d) => deltas.push(d), ...extra },
    options,
  );
  return { deltas, promise };
}

/** Gone, or a zombie waiting for init to reap it (it can no longer run or hold anything). */
function isGone(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch (error) {
    return (error as { code?: string }).code === "ESRCH";
  }
  const state = spawnSync("ps", ["-o", "stat=", "-p", String(pid)]).stdout?.toString().trim() ?? "";
  return state === "" || state.startsWith("Z");
}

function pidsIn(file: string): number[] {
  const pids = readFileSync(join(dir, file), "utf8").trim().split("\n").map(Number);
  leftovers.push(...pids);
  return pids;
}

const SKIP = /^…\[(\d+) bytes skipped\]…\n/;

/** Every byte of output is either in a delta or counted by a skip marker. */
function accountedBytes(deltas: string[]): number {
  let bytes = 0;
  for (const delta of deltas) {
    const marker = SKIP.exec(delta);
    bytes += marker ? Number(marker[1]) + utf8Length(delta.slice(marker[0].length)) : utf8Length(delta);
  }
  return bytes;
}

describe("runLocalCommand: output", () => {
  test("stdout and stderr arrive merged, in the order written", async () => {
    const { promise, deltas } = run("for i in 1 2 3; do echo out$i; echo err$i >&2; done");
    const result = await promise;
    expect(result.output).toBe("out1\nerr1\nout2\nerr2\nout3\nerr3");
    expect(deltas.join("")).toBe("out1\nerr1\nout2\nerr2\nout3\nerr3\n");
    expect(result).toMatchObject({ exitCode: 0, signal: null, truncated: false, totalLines: 6, totalBytes: 30 });
    expect(result.timedOut || result.cancelled).toBe(false);
  });

  test("exit codes: zero and non-zero", async () => {
    expect((await run("true").promise).exitCode).toBe(0);
    const failed = await run("echo nope; exit 42").promise;
    expect(failed.exitCode).toBe(42);
    expect(failed.output).toBe("nope");
  });

  test("killed by a signal: no exit code, the signal named", async () => {
    const result = await run("kill -9 $$").promise;
    expect(result).toMatchObject({ exitCode: null, signal: "SIGKILL", timedOut: false, cancelled: false });
  });

  test("no output", async () => {
    const result = await run("true").promise;
    expect(result).toMatchObject({ output: "", totalLines: 0, totalBytes: 0, truncated: false });
  });

  test("runs in the requested directory", async () => {
    expect((await run("pwd").promise).output).toBe(dir);
  });

  test("stdin is closed: cat ends at once, read sees EOF", async () => {
    const started = performance.now();
    const result = await run("cat; read line; echo read=$?", { timeoutMs: 5000 }).promise;
    expect(result.output).toBe("read=1");
    expect(result.timedOut).toBe(false);
    expect(performance.now() - started).toBeLessThan(2000);
  });

  test("multibyte characters split across reads decode whole", async () => {
    const { promise, deltas } = run(String.raw`printf '\303'; sleep 0.1; printf '\251 \360\237'; sleep 0.1; printf '\230\200\n'`);
    const result = await promise;
    expect(result.output).toBe("é 😀");
    expect(deltas.join("")).toBe("é 😀\n");
    expect(result.totalBytes).toBe(8);
  });

  test("slow output streams live, in coalesced deltas that add up to the output", async () => {
    const seen: number[] = [];
    const started = performance.now();
    const deltas: string[] = [];
    const result = await runLocalCommand({
      command: "for i in 1 2 3 4; do echo line$i; sleep 0.15; done",
      cwd: dir,
      signal: new AbortController().signal,
      onOutput: (d) => {
        deltas.push(d);
        seen.push(performance.now() - started);
      },
    });
    expect(deltas.join("")).toBe("line1\nline2\nline3\nline4\n");
    expect(deltas.length).toBeGreaterThanOrEqual(3);
    expect(seen[0]).toBeLessThan(400); // long before the command ends (~600 ms)
    expect(result.output).toBe("line1\nline2\nline3\nline4");
  });

  test("a background child holding the pipe does not hold the result", async () => {
    const started = performance.now();
    const result = await run("sleep 30 & echo $! > bg.pid; echo done").promise;
    pidsIn("bg.pid");
    expect(result.output).toBe("done");
    expect(performance.now() - started).toBeLessThan(2000);
  });

  test("a missing working directory is an error", async () => {
    await expect(run("true", { cwd: join(dir, "missing") }).promise).rejects.toThrow("Working directory does not exist");
  });
});

describe("runLocalCommand: secrets", () => {
  const key = "sk-exec-0123456789abcdefXYZ";
  registerSecret(key);

  test("a key printed in two writes apart in time is hidden in deltas, output and the saved file", async () => {
    const outputs = mkdtempSync(join(dir, "outputs-"));
    for (const cut of [1, 9, key.length - 1]) {
      const [head, tail] = [key.slice(0, cut), key.slice(cut)];
      // Over 50 KiB first, so the whole output is saved to a file.
      const command = `seq 1 20000; printf '%s' '${head}'; sleep 0.3; printf '%s\\n' '${tail}'; echo done`;
      const { promise, deltas } = run(command, {}, { outputDirectory: async () => outputs });
      const result = await promise;
      expect(result.truncated).toBe(true);
      expect(deltas.length).toBeGreaterThan(1);
      expect(deltas.join("")).toContain("20000\n[redacted]\ndone");
      expect(result.output.endsWith("20000\n[redacted]\ndone")).toBe(true);
      const saved = result.fullOutputPath as string;
      expect(saved.startsWith(outputs)).toBe(true);
      const text = readFileSync(saved, "utf8");
      expect(text).toContain("[redacted]");
      for (const piece of [deltas.join(""), result.output, text]) expect(piece).not.toContain(key.slice(0, 10));
    }
  });
});

describe("runLocalCommand: large output", () => {
  test("35,000 lines: tail kept, full file written, bounded deltas and memory", async () => {
    let buffer: OutputBuffer | undefined;
    const { promise, deltas } = run("seq 1 35000", {}, { onBuffer: (b) => (buffer = b) });
    const result = await promise;
    const full = Array.from({ length: 35_000 }, (_, i) => `${i + 1}`).join("\n") + "\n";
    expect(result).toMatchObject({ exitCode: 0, truncated: true, totalLines: 35_000, totalBytes: full.length });
    const lines = result.output.split("\n");
    expect(lines.length).toBe(2000);
    expect(lines[0]).toBe("33001");
    expect(lines.at(-1)).toBe("35000");
    created.push(result.fullOutputPath as string);
    expect(readFileSync(result.fullOutputPath as string, "utf8")).toBe(full);

    for (const delta of deltas) expect(utf8Length(delta)).toBeLessThanOrEqual(MAX_DELTA_BYTES);
    expect(accountedBytes(deltas)).toBe(full.length);
    expect(deltas.join("").endsWith("34999\n35000\n")).toBe(true);
    expect(buffer?.retainedLength ?? Infinity).toBeLessThanOrEqual(64 * 1024);
  });

  test("several MB of long lines: byte-limited tail, file complete, memory bounded", async () => {
    let buffer: OutputBuffer | undefined;
    let maxRetained = 0;
    const { promise, deltas } = run(
      `awk 'BEGIN { for (i = 1; i <= 35000; i++) printf "%06d %s\\n", i, "${"x".repeat(100)}" }'`,
      {},
      { onBuffer: (b) => (buffer = b) },
    );
    const sampler = setInterval(() => (maxRetained = Math.max(maxRetained, buffer?.retainedLength ?? 0)), 1);
    const result = await promise;
    clearInterval(sampler);
    maxRetained = Math.max(maxRetained, buffer?.retainedLength ?? 0);
    expect(result.totalBytes).toBe(35_000 * 108);
    expect(result.totalLines).toBe(35_000);
    expect(utf8Length(result.output)).toBeLessThanOrEqual(50 * 1024);
    expect(result.output.split("\n").at(-1)).toBe(`035000 ${"x".repeat(100)}`);
    expect(result.output.split("\n")[0]).toMatch(/^\d{6} x{100}$/);
    created.push(result.fullOutputPath as string);
    const file = readFileSync(result.fullOutputPath as string, "utf8");
    expect(file.length).toBe(35_000 * 108);
    expect(file.split("\n")[34_999]).toBe(`035000 ${"x".repeat(100)}`);
    for (const delta of deltas) expect(utf8Length(delta)).toBeLessThanOrEqual(MAX_DELTA_BYTES);
    expect(accountedBytes(deltas)).toBe(result.totalBytes);
    expect(maxRetained).toBeLessThanOrEqual(64 * 1024);
  });
});

describe("runLocalCommand: stopping", () => {
  const tree = "sleep 30 & echo $! >> pids; (sleep 30 & echo $! >> pids; wait) & echo $! >> pids; sleep 30 & echo $! >> pids; echo started; wait";

  test("timeout: killed with its children, timedOut set, exit code null", async () => {
    execFileSync("mkdir", ["-p", join(dir, "timeout")]);
    const started = performance.now();
    const result = await run(tree, { cwd: join(dir, "timeout"), timeoutMs: 400 }).promise;
    expect(performance.now() - started).toBeLessThan(2500);
    expect(result).toMatchObject({ timedOut: true, cancelled: false, exitCode: null, output: "started" });
    const pids = pidsIn("timeout/pids");
    expect(pids.length).toBe(4);
    for (const pid of pids) expect({ pid, gone: isGone(pid) }).toEqual({ pid, gone: true });
  });

  test("cancel: aborting mid-run kills the tree and returns quickly", async () => {
    execFileSync("mkdir", ["-p", join(dir, "cancel")]);
    const controller = new AbortController();
    const started = performance.now();
    let abortedAt = 0;
    const result = await runLocalCommand({
      command: tree,
      cwd: join(dir, "cancel"),
      signal: controller.signal,
      onOutput: () => {
        abortedAt = performance.now();
        controller.abort();
      },
    });
    expect(abortedAt).toBeGreaterThan(0);
    expect(performance.now() - abortedAt).toBeLessThan(1000);
    expect(performance.now() - started).toBeLessThan(2500);
    expect(result).toMatchObject({ cancelled: true, timedOut: false, exitCode: null });
    const pids = pidsIn("cancel/pids");
    expect(pids.length).toBe(4);
    for (const pid of pids) expect({ pid, gone: isGone(pid) }).toEqual({ pid, gone: true });
  });

  test("children that ignore SIGTERM get SIGKILL after the grace period", async () => {
    execFileSync("mkdir", ["-p", join(dir, "stubborn")]);
    const started = performance.now();
    const result = await run(
      "trap '' TERM; sleep 30 & echo $! >> pids; sleep 30 & echo $! >> pids; echo started; wait",
      { cwd: join(dir, "stubborn"), timeoutMs: 200 },
      { killGraceMs: 300 },
    ).promise;
    expect(result.timedOut).toBe(true);
    expect(performance.now() - started).toBeLessThan(2500);
    await new Promise((r) => setTimeout(r, 100));
    for (const pid of pidsIn("stubborn/pids")) expect({ pid, gone: isGone(pid) }).toEqual({ pid, gone: true });
  });

  test("an already-aborted signal runs nothing", async () => {
    const controller = new AbortController();
    controller.abort();
    const result = await runLocalCommand({ command: "touch ran", cwd: dir, signal: controller.signal });
    expect(result).toMatchObject({ cancelled: true, exitCode: null, output: "" });
    expect(spawnSync("test", ["-e", join(dir, "ran")]).status).toBe(1);
  });
});

describe("DeltaThrottle", () => {
  test("coalesces small pieces into one delta per interval", async () => {
    const deltas: string[] = [];
    const throttle = new DeltaThrottle((d) => deltas.push(d), 30);
    for (let i = 0; i < 100; i++) throttle.add(`${i},`);
    expect(deltas).toEqual([]);
    await new Promise((r) => setTimeout(r, 60));
    expect(deltas).toEqual([Array.from({ length: 100 }, (_, i) => `${i},`).join("")]);
  });

  test("a burst larger than a delta skips its older part with a counted marker", () => {
    const deltas: string[] = [];
    const throttle = new DeltaThrottle((d) => deltas.push(d), 1000);
    let total = 0;
    for (let i = 0; i < 5000; i++) {
      const text = `line ${i} ${"é".repeat(20)}\n`;
      total += utf8Length(text);
      throttle.add(text);
    }
    throttle.flush();
    expect(deltas.length).toBe(1);
    const delta = deltas[0] as string;
    expect(utf8Length(delta)).toBeLessThanOrEqual(MAX_DELTA_BYTES);
    expect(delta).toMatch(SKIP);
    expect(delta.endsWith(`line 4999 ${"é".repeat(20)}\n`)).toBe(true);
    expect(accountedBytes(deltas)).toBe(total);
  });

  test("one line longer than a delta keeps its end", () => {
    const deltas: string[] = [];
    const throttle = new DeltaThrottle((d) => deltas.push(d), 1000);
    throttle.add("a".repeat(40_000) + "😀".repeat(10_000));
    throttle.flush();
    const delta = deltas[0] as string;
    expect(utf8Length(delta)).toBeLessThanOrEqual(MAX_DELTA_BYTES);
    expect(delta.endsWith("😀😀")).toBe(true);
    expect(delta).not.toContain("\uFFFD");
    expect(accountedBytes(deltas)).toBe(40_000 + 40_000);
  });
});

describe("spawnShell on other runtimes", () => {
  const expectCheck = (stdout: string) => {
    const report = JSON.parse(stdout.trim().split("\n").at(-1) ?? "{}");
    expect(report.text).toBe(`out\nerr\n${dir}\n`);
    expect(report.exit).toEqual({ code: 7, signal: null });
    expect(report.killed).toEqual({ code: null, signal: "SIGTERM" });
    expect(report.childGone).toBe(true);
  };

  test("node (bundled)", () => {
    const outfile = join(dir, "spawn-shell-check.mjs");
    buildSync({
      entryPoints: [join(ROOT, "tests/helpers/spawn-shell-check.ts")],
      bundle: true,
      platform: "node",
      format: "esm",
      outfile,
      logLevel: "warning",
    });
    const out = spawnSync("node", [outfile, dir], { encoding: "utf8", timeout: 10_000 });
    expect(out.stderr).toBe("");
    expectCheck(out.stdout);
  });

  test("deno", () => {
    const deno = join(ROOT, "node_modules/.bin/deno");
    const out = spawnSync(deno, ["run", "-A", "--quiet", join(ROOT, "tests/helpers/spawn-shell-check.ts"), dir], {
      encoding: "utf8",
      timeout: 20_000,
    });
    expect(out.stderr).toBe("");
    expectCheck(out.stdout);
  });
});
