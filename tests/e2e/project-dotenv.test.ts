/**
 * A project's `.env` files never configure the agent. Bun loads them from
 * the folder it starts in before any of our code runs (and editors start
 * the agent in the user's project): a hostile `.env` could set a provider
 * key or point `ANTHROPIC_BASE_URL` at someone else's server. On every
 * runtime, `acp-edge models` started in such a folder must see none of it.
 */
import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import { execFileSync } from "node:child_process";
import { symlinkSync, truncateSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { BIN, makeSandbox, ROOT, runAgentCommand, RUNTIMES, type Launcher, type Sandbox } from "../helpers/agent-process.ts";
import { namesIn, undoBunDotenv } from "../../src/runtime/host/bun-dotenv.ts";
import { reportDotenvUndo } from "../../src/cli/main.ts";

const DOTENV = [
  "ANTHROPIC_API_KEY=sk-ant-from-a-project-dotenv-0000",
  "export OPENAI_API_KEY='sk-from-a-project-dotenv-1111'",
  "ANTHROPIC_BASE_URL=http://127.0.0.1:9/v1",
].join("\n");

/** Each runtime as the suite runs it, plus `bun dist/cli.js` (what `bunx --bun acp-edge` runs). */
const launchers: Array<{ name: string; runtime: (typeof RUNTIMES)[number] | Launcher; bun: boolean }> = [
  ...RUNTIMES.map((runtime) => ({ name: runtime, runtime, bun: runtime === "bun" })),
  ...(RUNTIMES.includes("bun") ? [{ name: "bun dist/cli.js", runtime: { command: join(BIN, "bun"), args: [join(ROOT, "dist", "cli.js")] }, bun: true }] : []),
];

for (const { name, runtime, bun } of launchers) {
  describe(`a project's .env on ${name}`, () => {
    let sandbox: Sandbox;
    beforeEach(() => {
      sandbox = makeSandbox();
      writeFileSync(join(sandbox.project, ".env"), `${DOTENV}\n`);
      writeFileSync(join(sandbox.project, ".env.local"), "ACP_EDGE_LOG=debug\n");
      writeFileSync(join(sandbox.project, ".env.development"), "OPENAI_API_KEY=sk-from-env-development-2222\n");
    });
    afterEach(() => sandbox.cleanup());

    test("gives no model credentials, and its values appear nowhere", async () => {
      const result = await runAgentCommand(runtime, ["models"], { cwd: sandbox.project, env: { ACP_EDGE_HOME: sandbox.home } });
      expect(result.code).toBe(0);
      expect(result.stdout).toContain("anthropic/claude-sonnet-4-5");
      expect(result.stdout).not.toMatch(/claude-sonnet-4-5\s+\S+\s+yes/);
      for (const line of result.stdout.split("\n").filter((l) => /^(anthropic|openai)\//.test(l))) expect(line).toContain("no — run `acp-edge login");
      expect(result.stdout + result.stderr).not.toContain("from-a-project-dotenv");
      expect(result.stdout + result.stderr).not.toContain("from-env-development");
      // Bun loaded the files before the agent started; the agent says what it undid, by name only.
      if (bun) expect(result.stderr).toContain("ANTHROPIC_API_KEY");
    });

    test("leaves the real environment as it was", async () => {
      const result = await runAgentCommand(runtime, ["models"], {
        cwd: sandbox.project,
        env: { ACP_EDGE_HOME: sandbox.home, OPENAI_API_KEY: "sk-the-real-environment-3333" },
      });
      expect(result.code).toBe(0);
      const openai = result.stdout.split("\n").filter((l) => l.startsWith("openai/"));
      expect(openai.length).toBeGreaterThan(0);
      for (const line of openai) expect(line).not.toContain("no — run `acp-edge login");
      for (const line of result.stdout.split("\n").filter((l) => l.startsWith("anthropic/"))) expect(line).toContain("no — run `acp-edge login");
    });
  });
}

describe("undoBunDotenv where the start environment cannot be read", () => {
  let sandbox: Sandbox;
  beforeEach(() => (sandbox = makeSandbox()));
  afterEach(() => {
    for (const name of ["ACP_EDGE_DOTENV_TEST_A", "ACP_EDGE_DOTENV_TEST_B", "ACP_EDGE_DOTENV_TEST_C"]) delete process.env[name];
    sandbox.cleanup();
  });

  test("removes every variable a file names (failing closed), and nothing else", async () => {
    writeFileSync(join(sandbox.project, ".env.production.local"), "ACP_EDGE_DOTENV_TEST_A=1\n  export ACP_EDGE_DOTENV_TEST_B = 2\n");
    process.env.ACP_EDGE_DOTENV_TEST_A = "1";
    process.env.ACP_EDGE_DOTENV_TEST_B = "2";
    process.env.ACP_EDGE_DOTENV_TEST_C = "3";
    const undo = await undoBunDotenv(sandbox.project, "bun", () => undefined);
    expect(undo).toEqual({ removed: ["ACP_EDGE_DOTENV_TEST_A", "ACP_EDGE_DOTENV_TEST_B"], restored: [], exact: false });
    expect(process.env.ACP_EDGE_DOTENV_TEST_C).toBe("3");
  });

  test("does nothing on Node and Deno, nor without .env files", async () => {
    writeFileSync(join(sandbox.project, ".env"), "ACP_EDGE_DOTENV_TEST_A=1\n");
    process.env.ACP_EDGE_DOTENV_TEST_A = "1";
    expect((await undoBunDotenv(sandbox.project, "node", () => undefined)).removed).toEqual([]);
    expect((await undoBunDotenv(sandbox.project, "deno", () => undefined)).removed).toEqual([]);
    expect((await undoBunDotenv(sandbox.home, "bun", () => undefined)).removed).toEqual([]);
    expect(process.env.ACP_EDGE_DOTENV_TEST_A).toBe("1");
  });

  test("reads .env files as Bun does, but never blocks and never reads past its budget: a FIFO and a device are skipped, a huge file is reported", async () => {
    execFileSync("mkfifo", [join(sandbox.project, ".env")]);
    symlinkSync("/dev/zero", join(sandbox.project, ".env.local"));
    writeFileSync(join(sandbox.root, "outside.env"), "ACP_EDGE_DOTENV_TEST_A=1\n");
    symlinkSync(join(sandbox.root, "outside.env"), join(sandbox.project, ".env.development"));
    writeFileSync(join(sandbox.project, ".env.test"), "");
    truncateSync(join(sandbox.project, ".env.test"), 1024 ** 3);
    process.env.ACP_EDGE_DOTENV_TEST_A = "1";
    const undo = await undoBunDotenv(sandbox.project, "bun", () => undefined);
    // A link out is followed, as Bun follows it: what it set is undone (only its names are used).
    expect(undo).toEqual({ removed: ["ACP_EDGE_DOTENV_TEST_A"], restored: [], exact: false, unread: [join(sandbox.project, ".env.test")] });
  });

  test("a .env that could not be read stops the agent from starting (it cannot name what Bun set)", () => {
    expect(reportDotenvUndo({ removed: [], restored: [], exact: false, unread: [join(sandbox.project, ".env")] })).toBe(false);
    expect(reportDotenvUndo({ removed: ["A"], restored: [], exact: false })).toBe(true);
  });

  test("namesIn over-reads rather than under-reads", () => {
    const text = 'A=1\r\nexport B="x\nC=inside a quoted value"\n# D=comment\n E : yaml style\n=nothing\nG.H-I=ok';
    expect(namesIn(text)).toEqual(["A", "B", "C", "E", "G.H-I"]);
  });

  test("namesIn reads every name Bun sets, also those starting with a digit, a dot or a dash", () => {
    // Bun's loader takes [A-Za-z0-9_.-]+ as a name, whatever its first character.
    expect(namesIn("1F=a\n.G=b\n-H=c\n\t\v\f 9=d\n@I=no\nJ K=no")).toEqual(["1F", ".G", "-H", "9"]);
  });

  test("in a .env named for the NODE_ENV at start, whatever its value, every name is removed", async () => {
    writeFileSync(join(sandbox.project, ".env.staging"), "ACP_EDGE_DOTENV_TEST_A=1\n");
    writeFileSync(join(sandbox.project, ".env.staging.local"), "ACP_EDGE_DOTENV_TEST_B=1\n");
    process.env.ACP_EDGE_DOTENV_TEST_A = "1";
    process.env.ACP_EDGE_DOTENV_TEST_B = "1";
    const before = process.env.NODE_ENV;
    process.env.NODE_ENV = "staging";
    try {
      expect((await undoBunDotenv(sandbox.project, "bun", () => undefined)).removed.sort()).toEqual(["ACP_EDGE_DOTENV_TEST_A", "ACP_EDGE_DOTENV_TEST_B"]);
    } finally {
      if (before === undefined) delete process.env.NODE_ENV;
      else process.env.NODE_ENV = before;
    }
  });
});

describe("undoBunDotenv where the start environment can be read", () => {
  let sandbox: Sandbox;
  beforeEach(() => (sandbox = makeSandbox()));
  afterEach(() => {
    for (const name of ["ACP_EDGE_DOTENV_TEST_A", "ACP_EDGE_DOTENV_TEST_B"]) delete process.env[name];
    sandbox.cleanup();
  });

  /** The current environment without `drop` and with `change` as it was at start. */
  const startWithout = (drop: string[], change: Record<string, string> = {}) => () => {
    const start = new Map(Object.entries(process.env).filter((e): e is [string, string] => e[1] !== undefined && !drop.includes(e[0])));
    for (const [name, value] of Object.entries(change)) start.set(name, value);
    return start;
  };

  test("restores it whatever file set a variable, even one of a name not known to load", async () => {
    // No .env file of the names Bun loads today: what differs from the start is undone all the same.
    writeFileSync(join(sandbox.project, ".env.staging"), "ACP_EDGE_DOTENV_TEST_A=1\n");
    process.env.ACP_EDGE_DOTENV_TEST_A = "from-a-file";
    process.env.ACP_EDGE_DOTENV_TEST_B = "changed";
    const undo = await undoBunDotenv(sandbox.project, "bun", startWithout(["ACP_EDGE_DOTENV_TEST_A"], { ACP_EDGE_DOTENV_TEST_B: "real" }));
    expect(undo).toEqual({ removed: ["ACP_EDGE_DOTENV_TEST_A"], restored: ["ACP_EDGE_DOTENV_TEST_B"], exact: true });
    expect(process.env.ACP_EDGE_DOTENV_TEST_A).toBeUndefined();
    expect(process.env.ACP_EDGE_DOTENV_TEST_B).toBe("real");
  });
});
