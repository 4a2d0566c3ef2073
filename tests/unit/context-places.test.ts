/**
 * Which folders are searched for context files and where their files may
 * lead: the home (files stay inside it), the session's roots (files stay
 * inside them), and the folders of the git repository above the cwd, whose
 * files are read only where they are — a link from there is followed only
 * into the roots. Folders above the repository, a repository someone else
 * owns, and a home kept under git are not searched.
 */
import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import { chownSync, mkdirSync, rmSync, symlinkSync } from "node:fs";
import { join } from "node:path";
import { contextPlaces, loadContextFiles } from "../../src/engine/context-files.ts";
import { resolveAreas } from "../../src/runtime/files/confined-file.ts";
import { userInstructionFolders } from "../../src/sessions/setup/setup-places.ts";
import { repositoryRoot } from "../../src/runtime/files/repository-root.ts";
import { makeSandbox, type Sandbox } from "../helpers/agent-process.ts";

describe("context places", () => {
  let sandbox: Sandbox;
  let repo: string;
  let cwd: string;

  beforeEach(() => {
    sandbox = makeSandbox();
    repo = sandbox.project;
    cwd = join(repo, "packages", "app");
    mkdirSync(join(repo, ".git"), { recursive: true });
    mkdirSync(cwd, { recursive: true });
    sandbox.write("AGENTS.md", "above the repository\n");
    sandbox.write("project/AGENTS.md", "repository root\n");
    sandbox.write("project/packages/app/AGENTS.md", "cwd\n");
    sandbox.write("home/AGENTS.md", "home\n");
  });
  afterEach(() => sandbox.cleanup());

  async function load(extra: string[] = []) {
    const roots = await resolveAreas([cwd, ...extra]);
    return await loadContextFiles(await contextPlaces(userInstructionFolders(sandbox.home, {}), roots));
  }
  const contents = (loaded: Awaited<ReturnType<typeof load>>) => loaded.files.map((f) => f.content.trim());

  test("home first, then the repository's folders down to the cwd; nothing above the repository", async () => {
    expect(contents(await load())).toEqual(["home", "repository root", "cwd"]);
  });

  test("a repository folder's file is read where it is; a link from it leads only into the roots", async () => {
    sandbox.write("project/docs/shared.md", "shared docs\n");
    symlinkSync(join(repo, "docs", "shared.md"), join(repo, "packages", "AGENTS.md"));
    const loaded = await load();
    expect(contents(loaded)).toEqual(["home", "repository root", "cwd"]);
    expect(loaded.skipped).toEqual([{ path: join(repo, "packages", "AGENTS.md"), why: "it leads outside the session's folders" }]);
    // With the repository among the roots, the link stays inside them.
    expect(contents(await load([repo]))).toEqual(["home", "repository root", "shared docs", "cwd"]);
  });

  test("without a repository, only the roots are searched", async () => {
    const plainCwd = join(sandbox.root, "plain", "app");
    mkdirSync(plainCwd, { recursive: true });
    sandbox.write("plain/AGENTS.md", "above a plain folder\n");
    sandbox.write("plain/app/AGENTS.md", "plain cwd\n");
    const plain = await loadContextFiles(await contextPlaces(userInstructionFolders(sandbox.home, {}), await resolveAreas([plainCwd])));
    expect(plain.files.map((f) => f.content.trim())).toEqual(["home", "plain cwd"]);
  });

  test("a .git or a repository folder of another owner than the cwd's does not make a repository", async () => {
    if (process.getuid?.() !== 0) return; // only root can give a folder away
    chownSync(join(repo, ".git"), 12345, 12345);
    expect(contents(await load())).toEqual(["home", "cwd"]);
    chownSync(join(repo, ".git"), 0, 0);
    chownSync(repo, 12345, 12345);
    expect(contents(await load())).toEqual(["home", "cwd"]);
    chownSync(repo, 0, 0);
    expect(contents(await load())).toEqual(["home", "repository root", "cwd"]);
  });

  test("the search for a repository stops below the user's home (a home kept under git is not one project)", async () => {
    const [realCwd, realRepo] = await resolveAreas([cwd, repo]);
    expect(await repositoryRoot(realCwd!, sandbox.root)).toBe(realRepo);
    expect(await repositoryRoot(realCwd!, repo)).toBeUndefined();
    expect(await repositoryRoot(realRepo!, repo)).toBeUndefined();
  });

  test("a home file must stay inside the home", async () => {
    sandbox.write("elsewhere/AGENTS.md", "not the home's\n");
    symlinkSync(join(sandbox.root, "elsewhere", "AGENTS.md"), join(sandbox.home, "CLAUDE.md"));
    const loaded = await load();
    expect(contents(loaded)[0]).toBe("home");
    rmSync(join(sandbox.home, "AGENTS.md"));
    const again = await load();
    expect(contents(again)).toEqual(["repository root", "cwd"]);
    expect(again.skipped).toEqual([{ path: join(sandbox.home, "CLAUDE.md"), why: "it leads outside the acp-edge home" }]);
  });

  test("the user's own instructions come first, most general first, each once even when linked, each labelled", async () => {
    const user = { agents: join(sandbox.root, "user", ".agents"), claude: join(sandbox.root, "user", ".claude") };
    sandbox.write("user/.agents/AGENTS.md", "agents\n");
    sandbox.write("user/.claude/CLAUDE.md", "claude\n");
    const roots = await resolveAreas([cwd]);
    const load = async () => await loadContextFiles(await contextPlaces(userInstructionFolders(sandbox.home, user), roots));
    const loaded = await load();
    expect(loaded.files.map((f) => [f.content.trim(), f.scope])).toEqual([
      ["agents", "user"], ["claude", "user"], ["home", "user"], ["repository root", "project"], ["cwd", "project"],
    ]);
    // ~/.claude/CLAUDE.md kept as a link to ~/.agents/AGENTS.md is one file, given once.
    rmSync(join(user.claude, "CLAUDE.md"));
    symlinkSync(join(user.agents, "AGENTS.md"), join(user.claude, "CLAUDE.md"));
    expect(contents(await load())).toEqual(["agents", "home", "repository root", "cwd"]);
    // A link from them into the acp-edge home (keys, sessions) or anywhere else is refused.
    rmSync(join(user.claude, "CLAUDE.md"));
    symlinkSync(join(sandbox.home, "AGENTS.md"), join(user.claude, "CLAUDE.md"));
    expect((await load()).skipped).toEqual([{ path: join(user.claude, "CLAUDE.md"), why: "it leads outside your Claude and .agents folders" }]);
  });

  test("all instructions share one budget: the nearest are read whole, the farthest cut or left out, each said", async () => {
    const block = (marker: string) => `${marker}\n${"x".repeat(60 * 1024)}\n`;
    sandbox.write("home/AGENTS.md", block("HOME"));
    sandbox.write("project/AGENTS.md", block("ROOT"));
    sandbox.write("project/packages/AGENTS.md", block("PACKAGES"));
    sandbox.write("project/packages/app/AGENTS.md", block("CWD"));
    const loaded = await load();
    expect(loaded.files.map((f) => f.content.split("\n")[0])).toEqual(["ROOT", "PACKAGES", "CWD"]);
    const total = loaded.files.reduce((n, f) => n + new TextEncoder().encode(f.content).length, 0);
    expect(total).toBeLessThanOrEqual(128 * 1024 + 100);
    expect(loaded.files[0]!.content).toEndWith("[cut: instructions are limited to 128 KiB in all]");
    expect(loaded.skipped).toEqual([
      { path: join(repo, "AGENTS.md"), why: "the instructions together are larger than 128 KiB; only its first 7 KiB were read", partly: true },
      { path: join(sandbox.home, "AGENTS.md"), why: "the instructions together are larger than 128 KiB, and nearer files come first" },
    ]);
  });
});
