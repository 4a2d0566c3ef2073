/**
 * A hostile repository: at every name the agent reads on its own (context
 * files in the home, the repository root and the cwd, prompt templates of
 * the user and of the project, Claude Code's commands and skills and the
 * cross-agent skills of the project and of the user's home, the user's
 * `~/.claude/CLAUDE.md` and `~/.agents/AGENTS.md`, ignore files,
 * `.git/info/exclude`, `.env`)
 * something a repository or a shared folder can hold: links to
 * /proc/self/environ, /dev/zero, a file and a folder outside, a FIFO, a 1 GB
 * sparse file, dangling links, a link loop, deep nesting, malformed YAML, an
 * alias bomb, `@path` references and shell lines aimed outside, and a
 * command that shadows a built-in. Outside files
 * carry a unique marker; so does the agent's environment. Legitimate files
 * sit next to them, so the session has something to work with.
 */
import { execFileSync } from "node:child_process";
import { mkdirSync, readdirSync, readFileSync, statSync, symlinkSync, truncateSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { Sandbox } from "./agent-process.ts";

/** The markers: none may reach the model, a client, a session file or a log. */
export interface HostileMarkers {
  /** In every file outside the project. */
  outside: string;
  /** A variable of the agent's environment (not a registered secret). */
  environment: string;
  /** The provider key: in the environment, and quoted by a legitimate context file (so it must be redacted). */
  apiKey: string;
}

/** Where things are in the hostile project. */
export interface HostileProject {
  markers: HostileMarkers;
  /** The repository root (holds `.git`). */
  repository: string;
  /** The session's cwd, a folder of the repository. */
  cwd: string;
  /** Every hostile name the agent reads on its own, for the notices it must give. */
  contextFiles: string[];
  templateNames: string[];
  /** Command files, skills and user instruction files that must be skipped, each with the reason told. */
  setupRefusals: Array<[string, string]>;
  ignoreFiles: string[];
  /** Environment entries to start the agent with. */
  env: Record<string, string>;
}

function sparse(path: string): void {
  writeFileSync(path, "");
  truncateSync(path, 1024 ** 3);
}

function fifo(path: string): void {
  execFileSync("mkfifo", [path]);
}

/** Plants the hostile project in `sandbox` (`project` becomes the repository, `project/app` the cwd). */
export function plantHostileProject(sandbox: Sandbox): HostileProject {
  const tag = Math.random().toString(36).slice(2, 10);
  const markers: HostileMarkers = {
    outside: `OUTSIDE-MARKER-${tag}`,
    environment: `ENV-MARKER-${tag}`,
    apiKey: `sk-ant-api03-KEYMARKER-${tag}-0123456789`,
  };
  const outside = join(sandbox.root, "outside");
  const repository = sandbox.project;
  const cwd = join(repository, "app");
  mkdirSync(join(outside, "prompts"), { recursive: true });
  // Outside content that is also a dotenv line and invalid JSON, so any path that echoes it shows.
  writeFileSync(join(outside, "secret.md"), `LEAKED_VARIABLE=${markers.outside}\n{ not json ${markers.outside}\n`);
  writeFileSync(join(outside, "prompts", "evil.md"), `---\ndescription: ${markers.outside}\n---\n${markers.outside}\n`);
  const secret = join(outside, "secret.md");

  // The user's home: a FIFO at the first name looked for, a context file leading out, a prompts folder that is a link out.
  fifo(join(sandbox.home, "AGENTS.md"));
  symlinkSync(secret, join(sandbox.home, "CLAUDE.md"));
  symlinkSync(join(outside, "prompts"), join(sandbox.home, "prompts"));

  // The repository root, above the cwd: a link out, and a legitimate file that quotes the key.
  mkdirSync(join(repository, ".git", "info"), { recursive: true });
  symlinkSync("/proc/self/environ", join(repository, ".git", "info", "exclude"));
  symlinkSync(secret, join(repository, "AGENTS.md"));
  writeFileSync(join(repository, "CLAUDE.md"), `LEGIT-CONTEXT-RULE: the deploy key is ${markers.apiKey}\n`);
  symlinkSync(secret, join(repository, ".gitignore"));

  // The cwd: every context name hostile.
  mkdirSync(join(cwd, "src"), { recursive: true });
  symlinkSync("/proc/self/environ", join(cwd, "AGENTS.md"));
  symlinkSync("/dev/zero", join(cwd, "AGENTS.MD"));
  fifo(join(cwd, "CLAUDE.md"));
  sparse(join(cwd, "CLAUDE.MD"));
  writeFileSync(join(cwd, "src", "main.ts"), "export const legit = 'LEGIT-SOURCE';\n");
  symlinkSync("/dev/zero", join(cwd, ".gitignore"));
  fifo(join(cwd, "src", ".gitignore"));
  symlinkSync(secret, join(cwd, ".env"));
  symlinkSync(join(outside, "prompts"), join(cwd, "linked-outside"));
  symlinkSync("nowhere", join(cwd, "dangling"));

  // Deep nesting, with a sparse ignore file at the bottom.
  let deep = join(cwd, "deep");
  for (let i = 0; i < 40; i++) deep = join(deep, `d${i}`);
  mkdirSync(deep, { recursive: true });
  sparse(join(deep, ".gitignore"));
  writeFileSync(join(deep, "bottom.txt"), "LEGIT-DEEP\n");

  // The project's prompt templates: one good, the rest hostile.
  const prompts = join(cwd, ".acp-edge", "prompts");
  mkdirSync(join(prompts, "a", "b", "c", "d", "e"), { recursive: true });
  writeFileSync(join(prompts, "good.md"), `---\ndescription: A legitimate template\n---\nSay LEGIT-TEMPLATE and $ARGUMENTS (key ${markers.apiKey})\n`);
  symlinkSync(secret, join(prompts, "evil.md"));
  symlinkSync("/proc/self/environ", join(prompts, "environ.md"));
  symlinkSync("/dev/zero", join(prompts, "zero.md"));
  fifo(join(prompts, "fifo.md"));
  sparse(join(prompts, "big.md"));
  symlinkSync("nowhere.md", join(prompts, "dangling.md"));
  symlinkSync(join(outside, "prompts"), join(prompts, "outdir"));
  symlinkSync(".", join(prompts, "loop"));
  writeFileSync(join(prompts, "a", "b", "c", "d", "e", "deep.md"), "too deep\n");

  const setupRefusals = plantHostileSetup(sandbox, cwd, outside, secret);

  return {
    markers,
    repository,
    cwd,
    setupRefusals,
    contextFiles: [
      join(sandbox.home, "AGENTS.md"),
      join(sandbox.home, "CLAUDE.md"),
      join(repository, "AGENTS.md"),
      join(cwd, "AGENTS.md"),
      join(cwd, "AGENTS.MD"),
      join(cwd, "CLAUDE.md"),
      join(cwd, "CLAUDE.MD"),
    ],
    templateNames: ["evil.md", "environ.md", "zero.md", "fifo.md", "big.md", "dangling.md", "outdir", join(sandbox.home, "prompts")],
    ignoreFiles: [join(cwd, ".gitignore"), join(cwd, "src", ".gitignore"), join(deep, ".gitignore"), join(repository, ".gitignore"), join(repository, ".git", "info", "exclude")],
    env: { HOSTILE_ENVIRONMENT_MARKER: markers.environment, ANTHROPIC_API_KEY: markers.apiKey, HOME: join(sandbox.root, "user") },
  };
}

/**
 * Claude Code's and the cross-agent folders, hostile: in the project's `.claude/commands`,
 * `.claude/skills`, `.agents/skills` and in the user's `~/.claude` and `~/.agents` (the home is
 * `<root>/user`). One good command (it names files outside with `@` and a shell line that would
 * print them) and one good skill sit among them. Returns each refused name with its notice.
 */
function plantHostileSetup(sandbox: Sandbox, cwd: string, outside: string, secret: string): Array<[string, string]> {
  const commands = join(cwd, ".claude", "commands");
  const skills = join(cwd, ".claude", "skills");
  const shared = join(cwd, ".agents", "skills");
  const user = join(sandbox.root, "user");
  for (const dir of [commands, skills, shared, join(user, ".claude", "commands"), join(user, ".agents", "skills", "environ")]) mkdirSync(dir, { recursive: true });
  writeFileSync(
    join(commands, "audit.md"),
    `---\ndescription: Audit the project\nargument-hint: [area] [depth]\nallowed-tools: Bash(*)\n---\nAudit LEGIT-COMMAND $1 with @${secret} and @/proc/self/environ and @../../outside/secret.md. Context: !\`cat ${secret}\`\n`,
  );
  writeFileSync(join(commands, "compact.md"), "SHADOWS THE BUILT-IN\n");
  symlinkSync(secret, join(commands, "evil.md"));
  fifo(join(commands, "fifo.md"));
  sparse(join(commands, "big.md"));
  mkdirSync(join(skills, "legit-skill"), { recursive: true });
  writeFileSync(join(skills, "legit-skill", "SKILL.md"), "---\nname: legit-skill\ndescription: A legitimate skill for LEGIT work.\n---\nLEGIT-SKILL-BODY\n");
  symlinkSync(secret, join(skills, "legit-skill", "data.txt"));
  symlinkSync(join(outside, "prompts"), join(skills, "linked-out"));
  for (const name of ["environ", "fifo", "big", "bomb", "yaml"]) mkdirSync(join(skills, name));
  symlinkSync("/proc/self/environ", join(skills, "environ", "SKILL.md"));
  fifo(join(skills, "fifo", "SKILL.md"));
  sparse(join(skills, "big", "SKILL.md"));
  const aliases = Array.from({ length: 9 }, (_, i) => `l${i + 1}: &l${i + 1} [*l${i}, *l${i}, *l${i}, *l${i}]`).join("\n");
  writeFileSync(join(skills, "bomb", "SKILL.md"), `---\nname: bomb\ndescription: bomb\nl0: &l0 [lol, lol]\n${aliases}\n---\nbody\n`);
  writeFileSync(join(skills, "yaml", "SKILL.md"), "---\nname: yaml\ndescription: [unclosed\n  - : :\n---\nbody\n");
  symlinkSync(".", join(shared, "loop"));
  // The user's own folders: instructions leading out, a FIFO command, a skill reading /proc.
  mkdirSync(join(user, ".claude"), { recursive: true });
  symlinkSync(secret, join(user, ".claude", "CLAUDE.md"));
  fifo(join(user, ".agents", "AGENTS.md"));
  fifo(join(user, ".claude", "commands", "fifo.md"));
  symlinkSync("/proc/self/environ", join(user, ".agents", "skills", "environ", "SKILL.md"));
  const read = "was not read";
  const out = "it leads outside the session's folders";
  const mine = "it leads outside your Claude and .agents folders";
  const fifoWhy = "it is not a regular file (a FIFO)";
  return [
    [`Context file ${join(user, ".claude", "CLAUDE.md")} ${read}`, mine],
    [`Context file ${join(user, ".agents", "AGENTS.md")} ${read}`, fifoWhy],
    [`Command file ${join(commands, "evil.md")} ${read}`, out],
    [`Command file ${join(commands, "fifo.md")} ${read}`, fifoWhy],
    [`Command file ${join(commands, "big.md")} ${read}`, "it is larger than 64 KiB"],
    [`Command file ${join(user, ".claude", "commands", "fifo.md")} ${read}`, fifoWhy],
    [`Skill ${join(skills, "linked-out")} ${read}`, out],
    [`Skill ${join(skills, "environ", "SKILL.md")} ${read}`, out],
    [`Skill ${join(skills, "fifo", "SKILL.md")} ${read}`, fifoWhy],
    [`Skill ${join(skills, "big", "SKILL.md")} ${read}`, "it is larger than 64 KiB"],
    [`Skill ${join(skills, "bomb", "SKILL.md")} was not loaded`, "its frontmatter is not valid YAML (aliases are not allowed)"],
    [`Skill ${join(skills, "yaml", "SKILL.md")} was not loaded`, "its frontmatter is not valid YAML (line 2: multiline implicit key)"],
    [`Skill ${join(user, ".agents", "skills", "environ", "SKILL.md")} ${read}`, mine],
    [`/compact from ${join(commands, "compact.md")} is not offered`, "the built-in /compact keeps that name"],
  ];
}

/** Every regular file under `folder` (session files), as text. */
export function filesUnder(folder: string): Array<{ path: string; text: string }> {
  const found: Array<{ path: string; text: string }> = [];
  let names: string[];
  try {
    names = readdirSync(folder);
  } catch {
    return found;
  }
  for (const name of names) {
    const path = join(folder, name);
    const info = statSync(path);
    if (info.isDirectory()) found.push(...filesUnder(path));
    else if (info.isFile()) found.push({ path, text: readFileSync(path, "utf8") });
  }
  return found;
}

/** The markers that occur in `text` (none, when all is well). */
export function leakedMarkers(text: string, markers: HostileMarkers): string[] {
  return Object.entries(markers)
    .filter(([, value]) => text.includes(value))
    .map(([name]) => name);
}
