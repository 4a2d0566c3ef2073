/**
 * `acp-edge demo`: an offline conversation through the whole stack — ACP
 * client, NDJSON framing, handlers, engine, a real `read` of a file of the
 * current project — with the scripted `faux` model, printed readably.
 * @module
 */
import { runInProcessConversation } from "../acp/connection/in-process-client.ts";
import { serveConnection } from "../acp/agent-app.ts";
import type { SessionUpdate } from "../acp/sdk.ts";
import type { FauxStep } from "../models/faux-script.ts";
import type { ModelMessage } from "../models/types.ts";
import { statOrUndefined, readDir } from "../runtime/files/fs.ts";
import { currentDirectory } from "../runtime/process/process.ts";
import { join } from "../runtime/files/path.ts";
import { printOut } from "../runtime/log.ts";
import { createMessageStream } from "../transport/message-stream.ts";
import type { CliOptions } from "./options.ts";
import { buildServices } from "./build-services.ts";

const CANDIDATES = ["README.md", "readme.md", "package.json", "AGENTS.md", "Cargo.toml", "pyproject.toml", "go.mod"];

async function pickFile(cwd: string): Promise<string | undefined> {
  for (const name of CANDIDATES) if ((await statOrUndefined(join(cwd, name)))?.isFile) return name;
  const entries = await readDir(cwd);
  return entries.filter((e) => e.isFile && !e.name.startsWith(".")).map((e) => e.name).sort()[0];
}

/** The scripted model: read the file, then describe what came back. */
function demoScript(file: string | undefined): FauxStep[] {
  if (!file) return [{ text: "This directory has no files I can read, so there is nothing to summarise." }];
  return [
    {
      thinking: `The user wants to know what this project is. ${file} is the best place to start; I'll read its beginning.`,
      toolCalls: [{ name: "read", input: { path: file, limit: 40 } }],
      delayMs: 15,
    },
    (messages: readonly ModelMessage[]) => ({ text: summarise(file, messages), delayMs: 15 }),
  ];
}

function summarise(file: string, messages: readonly ModelMessage[]): string {
  const result = [...messages].reverse().find((m) => m.role === "tool");
  if (!result || result.role !== "tool") return `I could not read ${file}.`;
  const text = result.content.map((p) => (p.type === "text" ? p.text : "")).join("");
  if (result.isError) return `Reading ${file} failed: ${text}`;
  const lines = text.split("\n").filter((l) => l.trim() !== "" && !l.startsWith("["));
  const heading = lines.find((l) => l.startsWith("#"))?.replace(/^#+\s*/, "") ?? lines[0]?.trim() ?? "(empty)";
  return `I read ${file}: ${lines.length} non-empty lines in its first 40. It opens with "${heading.slice(0, 120)}". ` +
    "That was a real tool call through the agent; with a real model I would now explain the project in detail.";
}

export async function runDemo(options: CliOptions): Promise<number> {
  const cwd = currentDirectory();
  const file = await pickFile(cwd);
  const services = await buildServices({ ...options, model: "faux/script", noSession: true }, { fauxSteps: demoScript(file) });
  const prompt = file ? `What is this project? Start with ${file}.` : "What is this project?";
  printOut(`acp-edge demo — the full agent stack, offline, with a scripted model (faux/script)\nproject: ${cwd}\n\n`);

  const printer = new UpdatePrinter();
  await runInProcessConversation(
    (fromClient, toClient) => serveConnection(services, createMessageStream(fromClient, toClient)),
    {
      cwd,
      prompts: [prompt],
      onPrompt: (text) => printOut(`you    › ${text}\n`),
      onUpdate: (update) => printer.print(update),
      onStop: (reason) => printer.finish(`done   › stop reason: ${reason}\n`),
    },
  );
  return 0;
}

/** Streams updates as labelled lines, continuing a line while chunks of one message arrive. */
class UpdatePrinter {
  #open?: string;

  print(update: SessionUpdate): void {
    switch (update.sessionUpdate) {
      case "agent_thought_chunk":
      case "agent_message_chunk": {
        if (update.content.type !== "text") return;
        const label = update.sessionUpdate === "agent_thought_chunk" ? "think  › " : "agent  › ";
        if (this.#open !== label) this.#line(label);
        printOut(update.content.text);
        return;
      }
      case "tool_call":
        this.#line(`tool   › ${update.title} [${update.kind ?? "other"}] ${update.status ?? "pending"}`);
        return;
      case "tool_call_update": {
        this.#line(`tool   › ${update.status ?? "updated"}`);
        const text = update.content?.map((c) => (c.type === "content" && c.content.type === "text" ? c.content.text : "")).join("") ?? "";
        if (text) {
          const preview = text.split("\n").slice(0, 3).map((l) => `         ${l.slice(0, 100)}`).join("\n");
          printOut(`\n${preview}${text.split("\n").length > 3 ? "\n         …" : ""}`);
        }
        return;
      }
      case "usage_update":
        this.#line(`usage  › ${update.used} of ${update.size} tokens in context`);
        return;
      default:
        return;
    }
  }

  finish(text: string): void {
    if (this.#open) printOut("\n");
    this.#open = undefined;
    printOut(text);
  }

  #line(label: string): void {
    if (this.#open) printOut("\n");
    printOut(label);
    this.#open = label;
  }
}
