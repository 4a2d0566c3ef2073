/**
 * A typical setup brought from Claude Code: a project with `.claude/commands`
 * (nested, with frontmatter as people write it — `argument-hint: [a] [b]`,
 * which YAML refuses — `allowed-tools`, `@file` and ``!`…` `` lines),
 * `.claude/skills` and `.agents/skills` with extra files, an `AGENTS.md`;
 * and a user's home with `~/.claude/CLAUDE.md`, `~/.claude/commands`,
 * `~/.claude/skills` and `~/.agents/AGENTS.md`. Each text the model may or
 * may not see carries a marker of its own.
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";

/** Where the setup lives. */
export interface ClaudeSetup {
  /** The project (a git repository) and the session's cwd. */
  project: string;
  /** The user's home directory (`HOME`). */
  userHome: string;
  /** The user's skill whose files the tests read and write. */
  userSkill: string;
}

function put(path: string, text: string): void {
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, text);
}

/** Plants the setup under `root`. */
export function plantClaudeSetup(root: string): ClaudeSetup {
  const project = join(root, "project");
  const userHome = join(root, "user");
  mkdirSync(join(project, ".git"), { recursive: true });
  put(join(project, "AGENTS.md"), "PROJECT-RULE: run the tests before you answer.\n");
  put(join(project, "docs", "style.md"), "STYLE-GUIDE: components are function components.\n");
  const commands = join(project, ".claude", "commands");
  put(
    join(commands, "frontend", "component.md"),
    "---\ndescription: Create a React component\nargument-hint: [name] [props]\nallowed-tools: Bash(npm run:*), Write\nmodel: claude-3-5-haiku-20241022\n---\n" +
      "Create a component named $1 with props $2. Follow @docs/style.md. Status: !`git status --short`\n",
  );
  put(join(commands, "review.md"), "Review the current changes for COMMAND-REVIEW-MARKER.\n");
  put(join(commands, "help.md"), "---\ndescription: A help that shadows the built-in\n---\nSHADOW-HELP-MARKER\n");
  put(join(commands, "odd name!.md"), "An odd name.\n");
  const skills = join(project, ".claude", "skills");
  put(
    join(skills, "pdf-tools", "SKILL.md"),
    "---\nname: pdf-tools\ndescription: >-\n  Extract text and tables from PDF files.\n  Use when the user mentions PDFs.\nargument-hint: <file.pdf>\nallowed-tools: Bash(python:*)\n---\n# PDF tools\n\nPDF-SKILL-BODY: run scripts/extract.py on the file.\n",
  );
  put(join(skills, "pdf-tools", "scripts", "extract.py"), "print('extract')\n");
  put(join(skills, "pdf-tools", "reference.md"), "PDF-REFERENCE\n");
  put(join(skills, "broken", "SKILL.md"), "---\nname: broken\ndescription: [unclosed\n  nested: : :\n---\nBROKEN-SKILL-BODY\n");
  put(join(project, ".agents", "skills", "release-notes", "SKILL.md"), "---\nname: release-notes\ndescription: Write release notes from the git log.\n---\nRELEASE-SKILL-BODY\n");

  const claude = join(userHome, ".claude");
  put(join(claude, "CLAUDE.md"), "USER-CLAUDE-RULE: answer in English.\n");
  put(join(claude, "commands", "standup.md"), "---\ndescription: Summarise yesterday's work\n---\nSummarise what changed since yesterday.\n");
  const userSkill = join(claude, "skills", "deploy-checklist");
  put(join(userSkill, "SKILL.md"), "---\nname: deploy-checklist\ndescription: The checks to run before any deploy.\n---\nDEPLOY-SKILL-BODY: read checklist.md and follow it.\n");
  put(join(userSkill, "checklist.md"), "CHECKLIST-TEXT: tests green, changelog written.\n");
  put(join(userSkill, "notes", "history.md"), "older notes\n");
  put(join(userHome, ".agents", "AGENTS.md"), "USER-AGENTS-RULE: prefer small commits.\n");
  return { project, userHome, userSkill };
}
