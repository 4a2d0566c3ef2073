/**
 * Command files and skills as a session finds them (`setupPlaces`,
 * `readSetup`, `availableCommands`): which one wins when names collide, and
 * what a hostile repository or a careless setup can put in `.claude/` and
 * `.agents/` — links out, /proc, FIFOs, huge files, malformed YAML, alias
 * bombs, names a command cannot have, a skill named like a built-in,
 * thousands of commands — each skipped with a notice naming it, the rest
 * offered, the session never failing.
 */
import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import { execFileSync } from "node:child_process";
import { mkdirSync, symlinkSync, truncateSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { resolveAreas } from "../../src/runtime/files/confined-file.ts";
import { readSetup } from "../../src/sessions/setup/session-setup.ts";
import { setupPlaces } from "../../src/sessions/setup/setup-places.ts";
import { availableCommands, fileCommands } from "../../src/sessions/commands/slash-commands.ts";
import { builtinCommand } from "../../src/sessions/commands/builtin-commands.ts";
import { makeSandbox, type Sandbox } from "../helpers/agent-process.ts";

const OUTSIDE = "OUTSIDE-MARKER-51c2";

describe("command files and skills", () => {
  let sandbox: Sandbox;
  let project: string;
  let user: string;
  const skill = (path: string, name: string, description: string, extra = "") => sandbox.write(path, `---\nname: ${name}\ndescription: ${description}\n${extra}---\nBody of ${name}\n`);

  beforeEach(() => {
    sandbox = makeSandbox();
    project = sandbox.project;
    user = join(sandbox.root, "user");
    mkdirSync(user, { recursive: true });
    sandbox.write("outside/secret.md", `---\ndescription: ${OUTSIDE}\n---\n${OUTSIDE}\n`);
    sandbox.write("outside/skill/SKILL.md", `---\nname: outside\ndescription: ${OUTSIDE}\n---\n${OUTSIDE}\n`);
  });
  afterEach(() => sandbox.cleanup());

  async function read() {
    const roots = await resolveAreas([project]);
    const places = await setupPlaces(sandbox.home, project, roots, { claude: join(user, ".claude"), agents: join(user, ".agents") });
    const setup = await readSetup(places);
    return { ...setup, commands: availableCommands(setup), byName: fileCommands(setup) };
  }
  const sourceOf = (setup: Awaited<ReturnType<typeof read>>, name: string) => {
    const command = setup.byName.get(name);
    return command?.kind === "template" ? command.template.path : command?.skill.file;
  };

  test("precedence: built-ins, then the project's (its own prompts, skills, Claude commands), then the user's", async () => {
    for (const [where, name] of [
      ["project/.acp-edge/prompts", "a"], ["project/.claude/commands", "a"], ["home/prompts", "a"],
      ["project/.claude/commands", "b"], ["user/.claude/commands", "b"],
      ["home/prompts", "c"], ["user/.claude/commands", "c"],
      ["project/.claude/commands", "compact"],
    ] as const) sandbox.write(`${where}/${name}.md`, `${where} ${name}\n`);
    skill("project/.agents/skills/s/SKILL.md", "s", "agents skill");
    skill("project/.claude/skills/s/SKILL.md", "s", "claude skill");
    skill("project/.claude/skills/b/SKILL.md", "b", "a skill beats a command of the same level");
    skill("user/.claude/skills/a/SKILL.md", "a", "the project's template wins");
    skill("user/.agents/skills/help/SKILL.md", "help", "a skill named like a built-in");
    const setup = await read();
    expect(sourceOf(setup, "a")).toBe(join(project, ".acp-edge", "prompts", "a.md"));
    expect(sourceOf(setup, "b")).toBe(join(project, ".claude", "skills", "b", "SKILL.md"));
    expect(sourceOf(setup, "c")).toBe(join(sandbox.home, "prompts", "c.md"));
    expect(sourceOf(setup, "s")).toBe(join(project, ".agents", "skills", "s", "SKILL.md"));
    expect(setup.byName.has("compact")).toBe(false);
    expect(setup.commands.filter((c) => c.name === "compact")).toHaveLength(1);
    expect(setup.notices).toContain(`/compact from ${join(project, ".claude", "commands", "compact.md")} is not offered: the built-in /compact keeps that name.`);
    // A skill named like a built-in is not a command, but the model may still load it.
    expect(setup.commands.filter((c) => c.name === "help")).toEqual([{ name: "help", description: "List the available commands" }]);
    expect(setup.skills.find((s) => s.name === "help")?.modelInvocable).toBe(true);
    expect(setup.notices).toContain(`/help from ${join(user, ".agents", "skills", "help", "SKILL.md")} is not offered: the built-in /help keeps that name.`);
  });

  test("sub-folders namespace commands; argument-hint is the hint; invocation flags are honoured", async () => {
    sandbox.write("project/.claude/commands/frontend/forms/field.md", "---\nargument-hint: [label] [type]\n---\nA field $1 of $2.\n");
    skill("project/.claude/skills/hidden/SKILL.md", "hidden", "Only for the model", "user-invocable: false\n");
    skill("project/.claude/skills/manual/SKILL.md", "manual", "Only for the user", "disable-model-invocation: true\n");
    const setup = await read();
    expect(setup.commands.find((c) => c.name === "frontend:forms:field")).toEqual({ name: "frontend:forms:field", description: "A field $1 of $2.", input: { hint: "[label] [type]" } });
    expect(setup.byName.has("hidden")).toBe(false);
    expect(setup.skills.find((s) => s.name === "hidden")?.modelInvocable).toBe(true);
    expect(setup.byName.get("manual")?.kind).toBe("skill");
    expect(setup.skills.find((s) => s.name === "manual")?.modelInvocable).toBe(false);
  });

  test("a skill's name follows the Agent Skills rules; without one the folder names it", async () => {
    sandbox.write("project/.claude/skills/from-folder/SKILL.md", "---\ndescription: No name field\n---\nbody\n");
    for (const [folder, name] of [["upper", "Bad-Name"], ["lead", "-lead"], ["double", "a--b"], ["long", "x".repeat(65)], ["space", "two words"], ["dots", "../../etc"]]) {
      skill(`project/.claude/skills/${folder}/SKILL.md`, name!, "whatever");
    }
    sandbox.write("project/.claude/skills/nodesc/SKILL.md", "---\nname: nodesc\n---\n\n# Heading only\n");
    sandbox.write("project/.claude/skills/firstline/SKILL.md", "# Title\n\nUse this for release chores.\nMore.\n");
    const setup = await read();
    expect(setup.skills.map((s) => [s.name, s.description])).toEqual([
      ["firstline", "Use this for release chores."],
      ["from-folder", "No name field"],
    ]);
    for (const folder of ["upper", "lead", "double", "long", "space", "dots"]) {
      expect(setup.notices).toContain(`Skill ${join(project, ".claude", "skills", folder, "SKILL.md")} was not loaded: its name is not 1 to 64 lowercase letters, digits and single hyphens (not at either end).`);
    }
    expect(setup.notices).toContain(`Skill ${join(project, ".claude", "skills", "nodesc", "SKILL.md")} was not loaded: it has no description, so the model could not tell when to use it.`);
  });

  test("hostile files in .claude and .agents are skipped with a notice; nothing of them is read", async () => {
    const commands = join(project, ".claude", "commands");
    const skills = join(project, ".claude", "skills");
    mkdirSync(commands, { recursive: true });
    mkdirSync(join(skills, "fifo"), { recursive: true });
    mkdirSync(join(skills, "huge"), { recursive: true });
    mkdirSync(join(skills, "environ"), { recursive: true });
    sandbox.write("project/.claude/commands/good.md", "Good.\n");
    symlinkSync(join(sandbox.root, "outside", "secret.md"), join(commands, "linked.md"));
    symlinkSync("/proc/self/environ", join(commands, "environ.md"));
    execFileSync("mkfifo", [join(commands, "fifo.md")]);
    symlinkSync(join(sandbox.root, "outside", "skill"), join(skills, "linked-out"));
    symlinkSync("/proc/self/environ", join(skills, "environ", "SKILL.md"));
    execFileSync("mkfifo", [join(skills, "fifo", "SKILL.md")]);
    writeFileSync(join(skills, "huge", "SKILL.md"), "");
    truncateSync(join(skills, "huge", "SKILL.md"), 1024 ** 3);
    sandbox.write("project/.claude/skills/yaml/SKILL.md", "---\nname: yaml\ndescription: [unclosed\n  - : :\n---\nbody\n");
    const aliases = Array.from({ length: 9 }, (_, i) => `l${i + 1}: &l${i + 1} [*l${i}, *l${i}, *l${i}, *l${i}]`).join("\n");
    sandbox.write("project/.claude/skills/bomb/SKILL.md", `---\nname: bomb\ndescription: bomb\nl0: &l0 [lol, lol]\n${aliases}\n---\nbody\n`);
    // The user's own folder leading out is refused the same way.
    mkdirSync(join(user, ".claude"), { recursive: true });
    symlinkSync(join(sandbox.root, "outside"), join(user, ".claude", "commands"));
    const setup = await read();
    // Past the built-in commands, only the one good file.
    expect(setup.commands.map((c) => c.name).filter((name) => builtinCommand(name) === undefined)).toEqual(["good"]);
    expect(setup.skills).toEqual([]);
    const says = (path: string, why: string) => expect(setup.notices, path).toContain(`${path} was not ${why}.`);
    says(`Command file ${join(commands, "linked.md")}`, "read: it leads outside the session's folders");
    says(`Command file ${join(commands, "environ.md")}`, "read: it leads outside the session's folders");
    says(`Command file ${join(commands, "fifo.md")}`, "read: it is not a regular file (a FIFO)");
    says(`Skill ${join(skills, "linked-out")}`, "read: it leads outside the session's folders");
    says(`Skill ${join(skills, "environ", "SKILL.md")}`, "read: it leads outside the session's folders");
    says(`Skill ${join(skills, "fifo", "SKILL.md")}`, "read: it is not a regular file (a FIFO)");
    says(`Skill ${join(skills, "huge", "SKILL.md")}`, "read: it is larger than 64 KiB");
    says(`Skill ${join(skills, "yaml", "SKILL.md")}`, "loaded: its frontmatter is not valid YAML (line 2: multiline implicit key)");
    says(`Skill ${join(skills, "bomb", "SKILL.md")}`, "loaded: its frontmatter is not valid YAML (aliases are not allowed)");
    says(`Command file ${join(user, ".claude", "commands")}`, "read: it leads outside your Claude and .agents folders");
    expect(JSON.stringify(setup)).not.toContain(OUTSIDE);
  });

  test("names a command cannot have are told once per folder; thousands of commands stop at the bound, said so", async () => {
    for (const name of ["with space", "semi;colon", "ünïcode", "$(touch x)", "-dash"]) sandbox.write(`project/.claude/commands/${name}.md`, "odd\n");
    for (let i = 0; i < 2500; i++) sandbox.write(`project/.claude/commands/many/c${String(i).padStart(4, "0")}.md`, `Command ${i}\n`);
    const setup = await read();
    const names = setup.commands.map((c) => c.name);
    // At most 200 files per folder are listed (the odd names among them are then left out).
    expect(names.filter((n) => n.startsWith("many:")).length).toBeGreaterThan(150);
    expect(names.length - 4).toBeLessThanOrEqual(200);
    expect(names.some((n) => /[ ;$ü]/.test(n))).toBe(false);
    expect(setup.notices.filter((n) => n.startsWith("Command files ") && n.includes("are not offered"))).toHaveLength(1);
    expect(setup.notices).toContain(`Command file ${join(project, ".claude", "commands")} was not read: it holds too many entries; the rest were not read.`);
  });
});
