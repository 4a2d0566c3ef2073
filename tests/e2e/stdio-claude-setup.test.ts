/**
 * A user's Claude Code setup working on the first prompt, over stdio on each
 * runtime against the fake model server (tests/helpers/claude-setup.ts):
 * the commands the editor is offered (names, descriptions, hints), a nested
 * command reaching the model expanded with its `@file` embedded, the user's
 * and the project's instructions in order, skills named in the system prompt
 * and their instructions only once loaded, a loaded user skill's files read
 * without asking while a write there asks, skills run as commands, and
 * command files and skills added or changed between prompts.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { readFileSync, rmSync, writeFileSync, mkdirSync } from "node:fs";
import { join } from "node:path";
import { agentText, connectClient, initialize, acp, type TestClient } from "../helpers/acp-client.ts";
import { makeSandbox, RUNTIMES, spawnAgent, type AgentProcess, type Sandbox } from "../helpers/agent-process.ts";
import { plantClaudeSetup, type ClaudeSetup } from "../helpers/claude-setup.ts";
import { waitFor } from "../helpers/expect-error.ts";
import { startFakeModelServer, type FakeModelServer } from "../helpers/fake-model-server.ts";

const { methods } = acp;

/** The commands of the latest `available_commands_update`, and how many were sent. */
function latestCommands(client: TestClient, sessionId: string): { commands: acp.AvailableCommand[]; count: number } {
  const updates = client.updates(sessionId).filter((u) => u.sessionUpdate === "available_commands_update");
  const last = updates.at(-1);
  return { commands: last?.sessionUpdate === "available_commands_update" ? last.availableCommands : [], count: updates.length };
}

for (const runtime of RUNTIMES) {
  describe(`${runtime}: a Claude Code setup`, () => {
    let sandbox: Sandbox;
    let setup: ClaudeSetup;
    let server: FakeModelServer;
    let proc: AgentProcess;
    let client: TestClient;
    let sessionId: string;
    const permissionsAsked: acp.RequestPermissionRequest[] = [];

    beforeAll(async () => {
      sandbox = makeSandbox();
      setup = plantClaudeSetup(sandbox.root);
      writeFileSync(join(sandbox.home, "settings.json"), JSON.stringify({ maxRetries: 0 }));
      server = await startFakeModelServer();
      proc = spawnAgent(runtime, ["agent", "stdio", "--model", "anthropic/claude-sonnet-4-5"], {
        env: { ACP_EDGE_HOME: sandbox.home, ANTHROPIC_BASE_URL: server.url, ANTHROPIC_API_KEY: "sk-test-claude-setup-0123456789", HOME: setup.userHome },
      });
      client = connectClient(proc, {
        onPermission: (params) => {
          permissionsAsked.push(params);
          return { outcome: { outcome: "selected", optionId: params.options.find((o) => o.kind === "reject_once")!.optionId } };
        },
      });
      await initialize(client);
      ({ sessionId } = await client.agent.request(methods.agent.session.new, { cwd: setup.project, mcpServers: [] }));
      await waitFor(() => latestCommands(client, sessionId).count > 0, 30_000, "available_commands_update");
    });

    afterAll(async () => {
      proc.child.kill("SIGKILL");
      await server.close();
      sandbox.cleanup();
    });

    async function prompt(text: string) {
      const { stopReason } = await client.agent.request(methods.agent.session.prompt, { sessionId, prompt: [{ type: "text", text }] });
      return stopReason;
    }

    test("the editor is offered the commands, descriptions and hints; what is not offered is told", () => {
      const { commands } = latestCommands(client, sessionId);
      const byName = new Map(commands.map((c) => [c.name, c]));
      expect(commands.map((c) => c.name)).toEqual([
        "compact", "name", "session", "help", "undo", "rewind",
        "deploy-checklist", "frontend:component", "pdf-tools", "release-notes", "review", "standup",
      ]);
      expect(byName.get("frontend:component")).toMatchObject({ description: "Create a React component", input: { hint: "[name] [props]" } });
      expect(byName.get("pdf-tools")).toMatchObject({ description: "Extract text and tables from PDF files. Use when the user mentions PDFs.", input: { hint: "<file.pdf>" } });
      expect(byName.get("review")).toMatchObject({ description: "Review the current changes for COMMAND-REVIEW-MARKER.", input: { hint: "arguments" } });
      expect(byName.get("standup")?.description).toBe("Summarise yesterday's work");
      expect(byName.get("help")?.description).toBe("List the available commands");
      const notices = agentText(client.updates(sessionId));
      expect(notices).toContain(`/help from ${join(setup.project, ".claude", "commands", "help.md")} is not offered: the built-in /help keeps that name.`);
      expect(notices).toContain(`Skill ${join(setup.project, ".claude", "skills", "broken", "SKILL.md")} was not loaded: its frontmatter is not valid YAML`);
      expect(notices).toContain(`Command files ${join(setup.project, ".claude", "commands", "odd name!.md")} are not offered`);
      expect(notices).not.toContain("BROKEN-SKILL-BODY");
    });

    test("the model sees the instructions in order and the skills by name, not their bodies, and is offered the skill tool", async () => {
      server.push({ text: "ok" });
      expect(await prompt("hello")).toBe("end_turn");
      const body = server.requests.at(-1)!.body;
      const system = JSON.stringify(body.system);
      const order = ["USER-AGENTS-RULE", "USER-CLAUDE-RULE", "PROJECT-RULE"].map((marker) => system.indexOf(marker));
      expect(order.every((at) => at >= 0)).toBe(true);
      expect([...order].sort((a, b) => a - b)).toEqual(order);
      expect(system).toContain(`${join(setup.userHome, ".claude", "CLAUDE.md")} (the user's instructions)`);
      expect(system).toContain(`${join(setup.project, "AGENTS.md")} (the project's instructions)`);
      expect(system).toContain("- pdf-tools: Extract text and tables from PDF files. Use when the user mentions PDFs.");
      expect(system).toContain("- deploy-checklist: The checks to run before any deploy.");
      expect(system).toContain("- release-notes: Write release notes from the git log.");
      for (const hidden of ["PDF-SKILL-BODY", "DEPLOY-SKILL-BODY", "RELEASE-SKILL-BODY", "CHECKLIST-TEXT", "BROKEN"]) expect(system).not.toContain(hidden);
      expect((body.tools as Array<{ name: string }>).map((t) => t.name)).toContain("skill");
    });

    test("/frontend:component Button reaches the model expanded, its @file embedded, nothing granted or run", async () => {
      server.push({ text: "component made" });
      expect(await prompt('/frontend:component Button "size, color"')).toBe("end_turn");
      const messages = JSON.stringify(server.requests.at(-1)!.body.messages);
      expect(messages).toContain("Create a component named Button with props size, color. Follow @docs/style.md.");
      expect(messages).toContain(`<resource uri=\\"file://${join(setup.project, "docs", "style.md")}\\">\\nSTYLE-GUIDE: components are function components.`);
      expect(messages).toContain("[Not run: acp-edge does not run the shell commands a command file or skill marks with !`…` (`git status --short`)");
      const told = agentText(client.updates(sessionId));
      const notice = `/frontend:component (${join(setup.project, ".claude", "commands", "frontend", "component.md")}): its allowed-tools grant nothing`;
      expect(told).toContain(notice);
      expect(told).toContain("its model is not used");
      // Told once per session, however often the command runs.
      server.push({ text: "again" });
      await prompt("/frontend:component Card");
      expect(agentText(client.updates(sessionId)).split(notice).length - 1).toBe(1);
      expect(server.requests.at(-1)!.body.model).toBe("claude-sonnet-4-5");
    });

    test("a skill's body reaches the model only once loaded; a loaded user skill's files are read without asking, a write there asks", async () => {
      const checklist = join(setup.userSkill, "checklist.md");
      const before = server.requests.length;
      server.push(
        { toolCalls: [{ id: "s1", name: "skill", input: { name: "deploy-checklist" } }] },
        { toolCalls: [{ id: "r1", name: "read", input: { path: checklist } }] },
        { toolCalls: [{ id: "w1", name: "write", input: { path: checklist, content: "overwritten" } }] },
        { text: "checked" },
      );
      const asked = permissionsAsked.length;
      expect(await prompt("get ready to deploy")).toBe("end_turn");
      const requests = server.requests.slice(before).map((r) => JSON.stringify(r.body));
      expect(requests[0]).not.toContain("DEPLOY-SKILL-BODY");
      expect(requests[1]).toContain("DEPLOY-SKILL-BODY: read checklist.md and follow it.");
      expect(requests[1]).toContain("- checklist.md");
      expect(requests[1]).toContain("- notes/history.md");
      expect(requests[2]).toContain("CHECKLIST-TEXT: tests green, changelog written.");
      // The read went through without a request; the write asked (and was rejected).
      expect(permissionsAsked.slice(asked).map((p) => p.toolCall.toolCallId)).toEqual(["w1"]);
      expect(readFileSync(checklist, "utf8")).toBe("CHECKLIST-TEXT: tests green, changelog written.\n");
      expect(requests[3]).toContain("The user rejected this tool call");
      // The grant is the session's, in words that say what it allows.
      const file = JSON.stringify(client.updates(sessionId).filter((u) => u.sessionUpdate === "tool_call_update" && u.toolCallId === "s1"));
      expect(file).toContain(`The files in ${setup.userSkill} can be read without asking for the rest of this session (reading only).`);
    });

    test("a skill runs as a command: its instructions and the arguments reach the model", async () => {
      server.push({ text: "extracted" });
      expect(await prompt("/pdf-tools report.pdf")).toBe("end_turn");
      const messages = JSON.stringify(server.requests.at(-1)!.body.messages);
      expect(messages).toContain("/pdf-tools report.pdf");
      expect(messages).toContain("PDF-SKILL-BODY: run scripts/extract.py on the file.");
      expect(messages).toContain("ARGUMENTS: report.pdf");
      expect(messages).toContain("- scripts/extract.py");
    });

    test("command files and skills added, edited or removed between prompts reach the next prompt", async () => {
      const sent = latestCommands(client, sessionId).count;
      writeFileSync(join(setup.project, ".claude", "commands", "frontend", "page.md"), "---\ndescription: Create a page\nargument-hint: <route>\n---\nCreate the page $1.\n");
      mkdirSync(join(setup.project, ".claude", "skills", "sql-review"), { recursive: true });
      writeFileSync(join(setup.project, ".claude", "skills", "sql-review", "SKILL.md"), "---\nname: sql-review\ndescription: Review SQL migrations.\n---\nSQL-SKILL-BODY\n");
      rmSync(join(setup.project, ".claude", "commands", "review.md"));
      server.push({ text: "ok" });
      await prompt("anything new?");
      const { commands, count } = latestCommands(client, sessionId);
      expect(count).toBe(sent + 1);
      expect(commands.find((c) => c.name === "frontend:page")).toMatchObject({ description: "Create a page", input: { hint: "<route>" } });
      expect(commands.map((c) => c.name)).toContain("sql-review");
      expect(commands.map((c) => c.name)).not.toContain("review");
      const system = JSON.stringify(server.requests.at(-1)!.body.system);
      expect(system).toContain("- sql-review: Review SQL migrations.");
      expect(system).not.toContain("SQL-SKILL-BODY");
      server.push({ text: "paged" });
      await prompt("/frontend:page /settings");
      expect(JSON.stringify(server.requests.at(-1)!.body.messages)).toContain("Create the page /settings.");
    });
  });
}
