/**
 * The sandbox's rules outside a running agent: a seeded fuzzer over command
 * lines × rules and answers × modes × sandbox states checks the invariants
 * (a command the sandbox would confine never runs unconfined unless the user
 * said so; the setting `on` never lets a command run unconfined; what read-only
 * runs, it runs read-only), the project cannot set the sandbox, the bubblewrap
 * command line covers secrets where they really are, and the "stopped by the
 * sandbox" note is given only on errors the sandbox causes outside the
 * writable folders.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { evaluatePolicy } from "../../src/permissions/policy.ts";
import type { Grant } from "../../src/permissions/grants.ts";
import { mergeProjectSettings } from "../../src/config/settings.ts";
import { APPROVAL_MODES, type PermissionRule } from "../../src/config/settings-schema.ts";
import { spawnSync } from "node:child_process";
import { chmodSync } from "node:fs";
import { bwrapArguments, FILTER_OPENER } from "../../src/runtime/sandbox/bwrap-arguments.ts";
import { unixSocketFilter } from "../../src/runtime/sandbox/socket-filter.ts";
import { confinedCommand, SECRET_VARIABLE_PATTERNS } from "../../src/runtime/sandbox/confined-command.ts";
import { trustedProgram } from "../../src/runtime/sandbox/trusted-program.ts";
import { sandboxBlock } from "../../src/runtime/sandbox/sandbox-failure.ts";
import { sandboxNotices, sessionSandbox } from "../../src/sessions/session-sandbox.ts";

let dir: string;
beforeAll(() => {
  dir = realpathSync(mkdtempSync(join(tmpdir(), "acp-edge-sandbox-unit-")));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** A small seeded generator (mulberry32): the same seed, the same cases. */
function random(seed: number): () => number {
  return () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const WORDS = ["npm", "test", "echo", "hi", "touch", "x", "rm", "-rf", "/", "$(printf touch)", "$HOME", "'a b'", '"q"', "`id`", "sh", "-c", "eval", "sudo", "curl", "http://x"];
const SEPARATORS = [" ", "; ", " && ", " | ", " > out.txt ", " 2>&1 ", "\n", " & ", " # "];
const RULES: PermissionRule[][] = [
  [],
  [{ action: "allow", command: "echo" }],
  [{ action: "allow", command: "npm test" }],
  [{ action: "deny", command: "touch" }],
  [{ action: "ask", command: "rm" }],
  [{ action: "allow", tools: ["bash"] }],
];
const GRANTS: Grant[][] = [
  [],
  [{ effect: "allow", class: "execute", scope: { kind: "command", prefixes: ["echo hi"] }, label: "Always allow `echo hi` in this session" }],
  [{ effect: "allow", class: "execute", scope: { kind: "tool", name: "bash" }, label: "Always allow bash in this session" }],
  [{ effect: "deny", class: "execute", scope: { kind: "command", prefixes: ["rm"] }, label: "Always reject `rm` in this session" }],
];

describe("the sandbox in the permission policy (seeded fuzz)", () => {
  test("escalations always ask or are refused; the setting on never runs unconfined; read-only runs only read-only", async () => {
    const next = random(40);
    const pick = <T>(list: readonly T[]): T => list[Math.floor(next() * list.length)]!;
    for (let i = 0; i < 3000; i++) {
      const line = Array.from({ length: 1 + Math.floor(next() * 5) }, () => pick(WORDS)).join(pick(SEPARATORS));
      const mode = pick(APPROVAL_MODES);
      const setting = pick(["auto", "on", "off"] as const);
      const available = next() < 0.8;
      const outsideSandbox = next() < 0.3;
      const rules = pick(RULES);
      const grants = pick(GRANTS);
      const verdict = await evaluatePolicy({
        toolName: "bash",
        access: { class: "execute", command: line, ...(outsideSandbox ? { outsideSandbox: { reason: "r" } } : {}) },
        mode,
        rules,
        grants,
        cwd: dir,
        roots: [dir],
        sandbox: { mode: setting, available, ...(available ? {} : { missing: "bubblewrap" }) },
      });
      const where = JSON.stringify({ line, mode, setting, available, outsideSandbox, rules, grants, verdict });
      const confines = mode !== "yolo" && setting !== "off" && (setting === "on" || mode === "auto" || mode === "read-only");
      if (confines && setting === "on" && !available) expect(verdict.decision, where).toBe("deny");
      const refusedOutright = confines && setting === "on" && !available;
      if (outsideSandbox && mode !== "yolo" && !refusedOutright) {
        // Leaving the sandbox: never unasked, never offered "always allow", whatever the mode or setting.
        expect(verdict.decision, where).not.toBe("allow");
        if (verdict.decision === "ask") expect(verdict.offer.allow, where).toBeUndefined();
        if (mode === "read-only") expect(verdict.decision, where).toBe("deny");
      }
      if (confines && available && !outsideSandbox && verdict.decision !== "deny") {
        expect(verdict.sandbox, where).toEqual({ readOnly: mode === "read-only" });
      }
      if (!confines || (!available && setting !== "on")) expect(verdict.decision === "deny" || verdict.sandbox === undefined, where).toBe(true);
      if (mode === "read-only" && verdict.decision === "allow") expect(verdict.sandbox, where).toEqual({ readOnly: true });
    }
  });
});

describe("settings", () => {
  test("a project file cannot set the sandbox, and auto is looser than write", () => {
    const merged = mergeProjectSettings({ sandbox: "on", approvalMode: "write" }, { sandbox: "off", approvalMode: "auto" }, "project settings");
    expect(merged.sandbox).toBe("on");
    expect(merged.approvalMode).toBe("write");
    expect(mergeProjectSettings({}, { sandbox: { mode: "off", allowWrite: ["/"] } }, "project settings").sandbox).toBeUndefined();
    expect(mergeProjectSettings({ approvalMode: "auto" }, { approvalMode: "write" }, "project settings").approvalMode).toBe("write");
  });
});

describe("a session's sandbox", () => {
  test("writable: the session's folders, the temp dir and allowWrite (only the temp dir read-only); hidden: the secrets, the agent's credential files and denyRead", async () => {
    const agentHome = join(dir, "agent-home");
    const sandbox = sessionSandbox({ sandbox: { mode: "on", allowWrite: ["/opt/cache"], denyRead: ["~/private"] } }, agentHome, ["/srv/repo-a", "/srv/repo-b"]);
    expect(sandbox.mode).toBe("on");
    // Nothing is known (or spawned) before something asks.
    expect(sandbox.known()).toBeUndefined();
    expect(await sandbox.spec(false)).toBeUndefined();
    const availability = await sandbox.availability();
    expect(availability.available).toBe(true);
    const spec = (await sandbox.spec(false))!;
    expect(spec.writable).toEqual(["/srv/repo-a", "/srv/repo-b", tmpdir(), "/opt/cache"]);
    expect((await sandbox.spec(true))!.writable).toEqual([tmpdir()]);
    expect(spec.hidden).toContain(join(agentHome, "auth.json"));
    expect(spec.hidden).toContain(join(agentHome, "api-token"));
    expect(spec.hidden).toContain(join(process.env.HOME!, ".ssh"));
    expect(spec.hidden).toContain(join(process.env.HOME!, "private"));
    expect(sessionSandbox({ sandbox: "off" }, agentHome, ["/srv/repo-a"]).known()).toMatchObject({ available: false });
    // The agent's home exists once the sandbox does: a missing one could not be mounted read-only.
    expect(existsSync(agentHome)).toBe(true);
  });
});

describe("notices", () => {
  test("allowHosts is honoured, so nothing is said about it; nothing is said where the sandbox works", async () => {
    const settings = { sandbox: { mode: "auto" as const, allowHosts: ["registry.internal", "*.example.com"] } };
    const sandbox = sessionSandbox(settings, join(dir, "agent-home"), [dir]);
    expect(await sandboxNotices(sandbox, "auto")).toEqual([]);
    expect(sandbox.allowHosts).toEqual(["registry.internal", "*.example.com"]);
    expect(await sandboxNotices(sessionSandbox({}, join(dir, "agent-home"), [dir]), "auto")).toEqual([]);
  });
});

describe("the bubblewrap command line", () => {
  test("secrets are covered where they really are, after the writable binds; missing paths are left out", async () => {
    const home = join(dir, "home");
    const keys = join(dir, "elsewhere-keys");
    mkdirSync(keys, { recursive: true });
    mkdirSync(home, { recursive: true });
    symlinkSync(keys, join(home, ".ssh"));
    writeFileSync(join(home, "auth.json"), "{}");
    const args = await bwrapArguments({
      program: "/usr/bin/bwrap",
      extraOptions: [],
      writable: [home, join(dir, "missing")],
      hidden: [join(home, ".ssh"), join(home, "auth.json"), join(home, ".aws")],
    });
    const at = (value: string) => args.indexOf(value);
    // The shell in front opens the socket filter as descriptor 3 for bubblewrap's --seccomp 3.
    expect(args.slice(0, 3)).toEqual(["/bin/sh", "-c", FILTER_OPENER]);
    expect(readFileSync(args[3]!)).toEqual(Buffer.from(unixSocketFilter()));
    expect(args.slice(4, 8)).toEqual(["/usr/bin/bwrap", "--ro-bind", "/", "/"]);
    // The filter's folder is mounted read-only with the other protected paths; the filter applies after every mount.
    const folder = dirname(args[3]!);
    expect(args.join(" ")).toContain(`--ro-bind ${folder} ${folder}`);
    expect(args.slice(at("--seccomp"), at("--seccomp") + 2)).toEqual(["--seccomp", "3"]);
    expect(at("--seccomp")).toBeGreaterThan(at("--tmpfs"));
    expect(args).toContain("--unshare-net");
    expect(args.at(-1)).toBe("--");
    expect(args.join(" ")).toContain(`--bind ${home} ${home}`);
    expect(args.join(" ")).not.toContain(join(dir, "missing"));
    expect(args.join(" ")).toContain(`--tmpfs ${keys} --remount-ro ${keys}`);
    expect(args.join(" ")).toContain(`--ro-bind /dev/null ${join(home, "auth.json")}`);
    expect(args.join(" ")).not.toContain(".aws");
    expect(at(`--tmpfs`)).toBeGreaterThan(at("--bind"));
  });
});

describe("the places a command cannot change or move", () => {
  test("protected paths read-only after the writable binds, every folder between a writable folder and a protected or hidden path pinned before the covers", async () => {
    const work = join(dir, "pins", "work");
    const agentHome = join(work, "agent-home");
    mkdirSync(join(work, "proj", "deep", "private"), { recursive: true });
    mkdirSync(join(agentHome, "sessions"), { recursive: true });
    writeFileSync(join(agentHome, "settings.json"), "{}");
    const args = await bwrapArguments({
      program: "/usr/bin/bwrap",
      extraOptions: [],
      writable: [work],
      readOnly: [agentHome, join(work, "missing")],
      hidden: [join(work, "proj", "deep", "private"), join(agentHome, "sessions"), join(agentHome, "settings.json")],
    });
    const line = args.join(" ");
    const at = (text: string) => line.indexOf(text);
    expect(line).toContain(`--bind ${work} ${work}`);
    for (const folder of [join(work, "proj"), join(work, "proj", "deep"), agentHome]) expect(line).toContain(`--bind ${folder} ${folder}`);
    expect(line).toContain(`--ro-bind ${agentHome} ${agentHome}`);
    expect(line).not.toContain("missing");
    // Later mounts cover earlier ones: writable, pins, read-only, covers.
    expect(at(`--bind ${join(work, "proj")} `)).toBeGreaterThan(at(`--bind ${work} `));
    expect(at(`--ro-bind ${agentHome} `)).toBeGreaterThan(at(`--bind ${agentHome} `));
    expect(at(`--tmpfs ${join(agentHome, "sessions")}`)).toBeGreaterThan(at(`--ro-bind ${agentHome} `));
    expect(line).toContain(`--ro-bind /dev/null ${join(agentHome, "settings.json")}`);
    // The writable folder itself and what lies outside it are never bound twice.
    expect(line.split(`--bind ${work} `).length).toBe(2);
    expect(line).not.toContain(`--bind ${dir} `);
  });

  test("a session folder that is / or holds the home directory is never writable, and the session says so", async () => {
    const home = process.env.HOME!;
    const sandbox = sessionSandbox({ sandbox: "on" }, join(dir, "agent-home"), ["/", home, join(home, "project"), "/srv/app"]);
    await sandbox.availability();
    expect((await sandbox.spec(false))!.writable).toEqual([join(home, "project"), "/srv/app", tmpdir()]);
    expect(sandbox.unwritableRoots).toEqual(["/", home]);
    const notices = await sandboxNotices(sandbox, "auto");
    expect(notices).toEqual([expect.stringContaining("stays read-only")]);
  });
});

describe("which bubblewrap is trusted", () => {
  test("the system's, never a program under a folder others can write; a named one passes the same checks", () => {
    const system = trustedProgram("bwrap");
    expect(system).toMatchObject({ program: expect.stringMatching(/^\/(usr\/)?(local\/)?s?bin\/bwrap$/) });
    const folder = join(dir, "bin");
    mkdirSync(folder, { recursive: true });
    const fake = join(folder, "bwrap");
    writeFileSync(fake, "#!/bin/sh\nexec true\n");
    chmodSync(fake, 0o755);
    // The temp dir above it is writable by anyone (and a test's folders may not be root's).
    expect(trustedProgram("bwrap", fake)).toMatchObject({ refused: expect.stringContaining("root") });
    expect(trustedProgram("bwrap", join(folder, "missing"))).toMatchObject({ refused: expect.stringContaining("not an executable") });
    expect(trustedProgram("bwrap", "relative/bwrap")).toMatchObject({ refused: expect.stringContaining("absolute") });
    chmodSync(folder, 0o777);
    expect(trustedProgram("bwrap", fake)).toMatchObject({ refused: expect.stringContaining("root") });
    const again = trustedProgram("bwrap");
    if (again && "program" in again) expect(trustedProgram("bwrap", again.program)).toEqual({ program: again.program });
  });
});

describe("the environment of a confined command (seeded fuzz)", () => {
  /** The `sh -c prelude sh` in front of bubblewrap and the `shell -c command` after its `--`, without bubblewrap between them. */
  async function prelude(secretVariables: string[]): Promise<string[]> {
    const args = await confinedCommand({ program: "/usr/bin/bwrap", extraOptions: [], writable: [], hidden: [], secretVariables }, "/bin/sh", "env");
    // The prelude comes first; bubblewrap's part starts with the shell that opens the socket filter.
    expect(args.slice(0, 2)).toEqual(["/bin/sh", "-c"]);
    expect(args[2]).toContain("unset");
    return [...args.slice(0, 4), ...args.slice(args.indexOf("--") + 1)];
  }
  const matches = (name: string, extra: readonly string[]) =>
    [...SECRET_VARIABLE_PATTERNS, ...extra].some((pattern) => new RegExp(`^${pattern.replaceAll("*", ".*")}$`).test(name));

  test("every variable a pattern or a provider names is gone; every other keeps its value, odd values included", async () => {
    const next = random(7);
    const pick = <T>(list: readonly T[]): T => list[Math.floor(next() * list.length)]!;
    const parts = ["GITHUB", "_TOKEN", "_token", "API", "_API_KEY", "_KEY", "DB", "PASSWORD", "password", "_SECRET", "SECRET_", "SSH_AUTH_SOCK", "DOCKER_HOST", "X", "_", "9", "KEEP", "LOCAL_LLM"];
    const values = ["plain", "with space", "a\nFAKE_TOKEN=1", "a\nKEEP_ME=2", "=", "*", "$(id)", "'\"", "", "\n\n", "?"];
    const extra = ["LOCAL_LLM_KEY", "bad;name", "x) rm -rf / ;;"];
    const [program, ...rest] = await prelude(extra);
    for (let i = 0; i < 150; i++) {
      const env: Record<string, string> = { PATH: process.env.PATH! };
      for (let n = 0; n < 6; n++) {
        let name = pick(parts);
        while (next() < 0.5) name += pick(parts);
        if (/^[A-Za-z_][A-Za-z0-9_]*$/.test(name)) env[name] = pick(values);
      }
      const out = spawnSync(program!, rest, { env, encoding: "utf8" });
      expect(out.status).toBe(0);
      for (const [name, value] of Object.entries(env)) {
        const line = `\n${name}=${value}\n`;
        if (matches(name, ["LOCAL_LLM_KEY"])) expect(`\n${out.stdout}`).not.toContain(`\n${name}=`);
        else expect(`\n${out.stdout}`).toContain(line);
      }
    }
  });
});

describe("telling that the sandbox stopped a command", () => {
  const spec = { program: "/usr/bin/bwrap", extraOptions: [], writable: ["/srv/project", "/tmp"], hidden: [] };
  test.each([
    ["sh: 1: cannot create /etc/x: Read-only file system", "files"],
    ["touch: cannot touch '/home/u/.cache/x': Read-only file system", "files"],
    ["npm ERR! code EACCES\nnpm ERR! path /usr/lib/node_modules", "files"],
    ["curl: (6) Could not resolve host: example.com", "network"],
    ["connect ENETUNREACH 1.2.3.4:443", "network"],
    ["fatal: unable to access 'https://x/': Could not resolve host: x", "network"],
  ])("%s → %s", (output, expected) => {
    expect(sandboxBlock(output, spec)).toBe(expected as "files" | "network");
  });
  test.each([
    "cat: /srv/project/secret.txt: Permission denied",
    "rm: cannot remove '/tmp/own/file': Operation not permitted",
    "Error: tests failed (3 of 10)",
    "",
  ])("no note for %j", (output) => {
    expect(sandboxBlock(output, spec)).toBeUndefined();
  });
});
