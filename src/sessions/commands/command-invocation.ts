/**
 * Running a file command (`/name args`): a prompt template's body with the
 * arguments put in (`$ARGUMENTS`, `$1`…, `$@`) and the files it names with
 * `@path` embedded after it, or a skill loaded with the arguments after its
 * instructions. What a command file asks for that acp-edge does not do —
 * tools granted by `allowed-tools`, another `model`, shell lines marked with
 * ``!`…` `` — is told to the user once per command, and shell lines get a note
 * for the model beside the prompt; nothing is granted, switched or run.
 * @module
 */
import type { TextPart } from "../../models/types.ts";
import { embedReferences } from "../setup/file-references.ts";
import type { LiveSession } from "../live-session.ts";
import type { PromptTemplate } from "../setup/prompt-templates.ts";
import { unhonouredNotice } from "../setup/setup-file.ts";
import { tellOnce } from "../session-notices.ts";
import { shellLines, shellLinesNote } from "../setup/shell-lines.ts";
import { loadSkill } from "../setup/skill-loading.ts";
import { expandTemplate } from "./slash-arguments.ts";
import { fileCommands } from "./slash-commands.ts";

/** What a file command becomes: a prompt (its text, then parts that follow it), or an answer without the model. */
export type Invocation = { kind: "prompt"; text: string; attachments: TextPart[] } | { kind: "answer"; text: string };

async function templatePrompt(live: LiveSession, template: PromptTemplate, rawArguments: string, budget: number): Promise<Invocation> {
  const text = expandTemplate(template.body, rawArguments);
  const notice = unhonouredNotice(template.name, template.path, template.ignored, shellLines(template.body).length > 0);
  if (notice) tellOnce(live, notice);
  const workspace = live.agent.workspace;
  const attachments = await embedReferences(text, workspace.cwd, workspace.roots, budget);
  const note = shellLinesNote(text);
  if (note) attachments.push({ type: "text", text: note });
  return { kind: "prompt", text, attachments };
}

/**
 * The invocation of the file command called `name`, or undefined when no file
 * gives one; the files its `@path`s embed bring at most `budget` bytes.
 */
export async function invokeFileCommand(live: LiveSession, name: string, rawArguments: string, budget: number): Promise<Invocation | undefined> {
  const command = fileCommands(live).get(name);
  if (!command) return undefined;
  if (command.kind === "template") return await templatePrompt(live, command.template, rawArguments, budget);
  const { skill } = command;
  const loaded = await loadSkill(live, skill, rawArguments);
  if (!loaded.ok) return { kind: "answer", text: `The skill /${skill.name} could not be loaded: ${loaded.why}.` };
  // The command as typed leads (it titles a new session), then the instructions.
  const typed = `/${skill.name}${rawArguments.trim() === "" ? "" : ` ${rawArguments.trim()}`}`;
  return { kind: "prompt", text: `${typed}\n\n${loaded.text}`, attachments: [] };
}
