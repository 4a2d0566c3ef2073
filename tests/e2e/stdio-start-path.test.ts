/**
 * What code the agent loads before each answer stays what that answer needs.
 * `initialize`, then `session/new`, then a first prompt (Anthropic, over real
 * HTTP to the fake model server) on Node `dist/cli.js`, with a loader hook
 * that logs every module Node loads into the same pipe as the answers
 * (tests/helpers/module-load-log.mjs). Every module must be on the explicit
 * allow-list of its phase, and the JavaScript read must stay within the
 * phase's byte budget. Code that only some sessions use — other providers,
 * MCP, a sandbox, checkpoints, hooks, language servers — loads when first
 * used; an import that puts it on one of these paths fails here, named.
 * The dist chunks are the same on Bun and Deno; Node is the runtime whose
 * loader can be watched with a public hook, so this test runs there only.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { makeSandbox, RUNTIMES, type Sandbox } from "../helpers/agent-process.ts";
import { startFakeModelServer, type FakeModelServer } from "../helpers/fake-model-server.ts";
import { logStartPath, type LoadedModule, type StartPathLog } from "../helpers/start-path-modules.ts";

/** `folder/`: the file names (without `.ts`) allowed from it; `other`: packages (`npm:`), built-ins (`node:`), plain files. */
type AllowList = { other?: string[] } & Record<string, string[]>;

/** Before the `initialize` answer: the CLI, settings, the store's and models' registries, the ACP connection. */
const INITIALIZE: AllowList = {
  other: [
    "npm:@agentclientprotocol/sdk", "npm:zod", "npm:valibot", "package.json",
    "node:buffer", "node:fs", "node:fs/promises", "node:os", "node:path", "node:process", "node:stream", "node:timers", "node:url",
  ],
  "src/acp/": ["agent-app", "errors", "lazy-schemas", "sdk"],
  "src/acp/connection/": ["cancel-in-order", "connection-guard", "connection-state", "deferred-handlers", "idle-warm-up", "input-end", "jsonrpc-envelope", "outbound-redaction", "protocol-handlers"],
  "src/acp/handlers/": ["auth-methods", "initialize", "session-access"],
  "src/acp/params/": ["initialize-params"],
  "src/cli/": ["agent-stdio", "bin", "build-services", "main", "options", "terminal-login"],
  "src/config/": ["auth-file", "credential-files", "home", "load", "provider-presets", "providers", "settings-schema", "settings", "version", "web-origin"],
  "src/models/": ["catalog", "faux-script", "faux", "prompt-cache", "registry", "types"],
  "src/runtime/": ["log", "random-hex", "secrets", "timers"],
  "src/runtime/fetch/": ["allowed-hosts", "host-key", "public-address"],
  "src/runtime/files/": ["bounded-read", "confined-file", "fs", "path", "stale-lock"],
  "src/runtime/host/": ["bun-dotenv", "compile-cache", "detect", "host-identity", "jit-policy", "own-invocation", "stdio"],
  "src/runtime/process/": ["proc-table", "process-temp", "process"],
  "src/sessions/": ["session-attach", "session-error", "session-registry"],
  "src/store/": [
    "archive-marker", "cwd-slug", "entry-line", "journal-reader", "jsonl-journal", "jsonl-store", "jsonl-summary", "list-cursor",
    "list-index-file", "list-index", "lock-record", "memory-store", "session-id", "session-lock", "session-title", "sorted-summaries", "types",
  ],
  "src/transport/": ["frame-decoder", "frame-encoder", "json-message", "message-stream", "stdio-stream"],
};

/**
 * Added by `session/new` and the first prompt of an Anthropic session, as one phase: the session's warm-up starts
 * once the `session/new` answer is written and a prompt may come before it is done, so which of the two answers a
 * module precedes is a matter of timing. Sessions, engine, built-in tools, the model layer, that one provider, the
 * model's `fetch`; no other provider, no MCP client (the session has no MCP server).
 */
const SESSION_AND_FIRST_PROMPT: AllowList = {
  other: [
    "npm:@valibot/to-json-schema", "npm:nanoid", "node:child_process", "node:crypto", "node:dns/promises", "node:http", "node:https",
    "npm:@ai-sdk/anthropic", "npm:@ai-sdk/provider", "npm:@ai-sdk/provider-utils", "npm:eventsource-parser",
  ],
  "src/acp/client/": ["ask-user", "bounded-client-request", "client-background", "client-turn", "client-workspace", "question-form", "terminal-new-text"],
  "src/acp/handlers/": ["auth", "provider-methods", "config-options", "prompt", "session-archive", "session-config", "session-handlers", "session-lifecycle", "session-rename", "session-stored", "steering", "rewind"],
  "src/acp/params/": ["image-data", "own-params", "prompt-content", "prompt-params", "steering-params"],
  "src/acp/permissions/": ["ask-client", "authorizer"],
  "src/acp/updates/": ["prepared-update", "projection", "session-announce", "session-client", "session-replay", "turn-usage"],
  // Choosing the session's model checks every provider's credentials, the clouds' own chains included; the session's sandbox
  // names the credential files those chains read (so confined commands cannot).
  "src/config/": ["cloud-credential-files", "cloud-credentials", "cloud-names", "user-folders"],
  "src/engine/": ["call-steps", "compaction", "context-files", "ids", "model-call", "request-budget", "session", "steering-inbox", "subagent", "system-prompt", "tool-call", "tool-specs", "turn"],
  "src/models/": ["ai-sdk-errors", "ai-sdk-events", "ai-sdk-messages", "ai-sdk-model-cache", "ai-sdk-rehearsal", "ai-sdk-retry", "ai-sdk", "cost", "network-failure", "provider-search", "thinking-options", "typed-parts", "wire"],
  // The catalogue of the session's provider only, not of the others.
  "src/models/catalog-data/": ["anthropic", "row", "snapshot"],
  "src/permissions/": ["command-confinement", "command-line", "command-match", "fetch-policy", "grants", "policy", "rules", "shell-lexer", "walk-filter"],
  "src/runtime/": ["abort-reason", "deadline-signal", "either-signal", "plain-text"],
  "src/runtime/fetch/": ["bounded-lookup", "guarded-get", "model-fetch", "platform-fetch", "proxy-env"],
  "src/runtime/files/": ["confined-folder", "path-stamps", "repository-root", "temp-file"],
  "src/runtime/sandbox/": ["sandbox-spec"],
  "src/runtime/process/": ["agent-watchdog", "child-lifecycle", "merged-output", "process-tree", "spawn-shell"],
  "src/sessions/": [
    "live-session", "live-title", "sandbox-status", "session-broadcast", "session-context", "session-emitter", "session-mcp", "session-notices",
    "session-sandbox", "session-settings", "session-status", "session-system-prompt", "session-tools", "session-web-search",
  ],
  "src/sessions/commands/": ["builtin-commands", "command-invocation", "slash-arguments", "slash-commands"],
  "src/sessions/checkpoints/": ["command-checkpoints"],
  // Only the finder of hook files: the code that runs hooks loads for a session that has some.
  "src/sessions/hooks/": ["hook-files"],
  "src/sessions/journal/": ["rewound-entries", "session-entry-check", "session-entry-schemas", "session-recorder", "session-restore"],
  "src/sessions/lifecycle/": ["archive-session", "delete-session", "join-session", "open-session", "rename-session", "revive-session", "start-session"],
  "src/sessions/setup/": [
    "agent-files", "file-references", "frontmatter", "linked-resource", "prompt-templates", "session-setup", "setup-file", "setup-places",
    "shell-lines", "skill-loading", "skills",
  ],
  "src/sessions/turns/": ["prompt-budget", "prompt-queue", "prompt-session", "steer-session", "turn-claim", "turn-slot", "turn-warm-up"],
  "src/store/": ["title-claim"],
  "src/tools/": ["ask", "builtin", "local-workspace", "paths", "plan", "skill", "truncate", "types"],
  "src/tools/delegation/": ["task"],
  "src/tools/files/": ["change-basis", "edit-match", "edit", "file-lock", "ls", "read", "text-format", "write"],
  "src/tools/mcp/": ["config", "connection", "connections", "failures", "names", "result", "tool-adapter", "transports"],
  "src/tools/search/": ["file-walker", "find", "gitignore-pattern", "gitignore", "glob-regex", "grep", "linear-regex", "search-engines", "time-slice", "withheld-note"],
  "src/tools/shell/": ["background-commands", "background-report", "bash-output", "bash-stop", "bash", "local-background", "local-exec", "output-buffer", "unread-output"],
  "src/tools/web/": ["fetch", "untrusted-marker"],
};

/**
 * Bytes of JavaScript each phase may read (what it reads today, and a little room). The second phase grew
 * by the permission policy's confinement of commands (which mode confines, what a session's sandbox hides):
 * every call is judged with it; the sandbox's own code (bubblewrap's command line, the probe, the failure
 * hint) loads with the first confined command. Then by what every session's path needs of this round's
 * features, each only its entry point: the catalogue of the session's provider (not the whole catalogue),
 * the finder of hook files (the hooks' runner loads only for a session that has some), the provider's own
 * search tool entry, the clouds' credential checks that choosing a default model runs (their SDKs and
 * credential libraries load with a session on that cloud), the editor's provider routes, and the seams
 * where checkpoints, hooks and language servers join a tool call. `initialize` grew by the presets' table
 * and the settings schema's new fields.
 */
const BUDGET = { initialize: 645_000, "session/new and the first prompt": 510_000 };

/** esbuild's own small chunks (entry wrappers, shared helpers) carry no sources; each must stay this small. */
const SOURCELESS_MAX_BYTES = 2_048;

function allowed(lists: AllowList[]): Set<string> {
  const names = new Set<string>();
  for (const list of lists) {
    for (const [folder, files] of Object.entries(list)) {
      for (const file of files ?? []) names.add(folder === "other" ? file : `${folder}${file}.ts`);
    }
  }
  return names;
}

const kib = (bytes: number) => `${(bytes / 1024).toFixed(1)} KiB`;
const chunkName = (m: LoadedModule) => m.url.replace(/^.*\/dist\//, "dist/");

/** Every problem of one phase, as lines that name the module and the chunk that brought it. */
function problems(phase: string, modules: LoadedModule[], allow: Set<string>, budget: number): string[] {
  const out: string[] = [];
  for (const m of modules) {
    const sourceless = m.sources.length === 1 && m.sources[0]!.startsWith("dist/");
    if (sourceless) {
      if (m.bytes > SOURCELESS_MAX_BYTES) out.push(`${phase}: ${chunkName(m)} (${kib(m.bytes)}, no sources) is larger than esbuild's own chunks get`);
      continue;
    }
    for (const source of m.sources) {
      if (!allow.has(source)) out.push(`${phase} loaded ${source} (in ${chunkName(m)}, ${kib(m.bytes)}), which is not on its allow-list: load it when first used, or add it to the list if this answer truly needs it`);
    }
  }
  const total = modules.reduce((sum, m) => sum + m.bytes, 0);
  if (total > budget) {
    const largest = [...modules].sort((a, b) => b.bytes - a.bytes).slice(0, 5).map((m) => `${chunkName(m)} ${kib(m.bytes)} (${m.sources.slice(0, 3).join(", ")}${m.sources.length > 3 ? ", …" : ""})`);
    out.push(`${phase} read ${kib(total)} of JavaScript, over its budget of ${kib(budget)}; largest: ${largest.join("; ")}`);
  }
  return out;
}

describe.if(RUNTIMES.includes("node"))("what loads before each answer (node dist/cli.js)", () => {
  let sandbox: Sandbox;
  let model: FakeModelServer;
  let log: StartPathLog;

  beforeAll(async () => {
    sandbox = makeSandbox();
    model = await startFakeModelServer([], { reply: () => ({ text: "Hello there." }) });
    log = await logStartPath(
      ["agent", "stdio", "--model", "anthropic/claude-sonnet-4-5"],
      [
        { method: "initialize", params: { protocolVersion: 1, clientCapabilities: {} } },
        { method: "session/new", params: { cwd: sandbox.project, mcpServers: [] } },
        (answers) => ({
          method: "session/prompt",
          params: { sessionId: (answers[1] as { sessionId: string }).sessionId, prompt: [{ type: "text", text: "Say hello." }] },
        }),
      ],
      { env: { ACP_EDGE_HOME: sandbox.home, ANTHROPIC_API_KEY: "sk-ant-fake-start-path", ANTHROPIC_BASE_URL: `${model.url}/v1` }, cwd: sandbox.project },
    );
  });
  afterAll(async () => {
    await model.close();
    sandbox.cleanup();
  });

  test("the log sees the program load (so an empty list cannot pass for a short one)", () => {
    const [init, session, prompt] = log.phases.map((phase) => phase.flatMap((m) => m.sources));
    expect(init).toContain("src/cli/bin.ts");
    expect(init).toContain("npm:@agentclientprotocol/sdk");
    expect([...session!, ...prompt!]).toContain("npm:@ai-sdk/anthropic");
    expect((log.frames.at(-1) as { result?: { stopReason?: string } }).result?.stopReason).toBe("end_turn");
  });

  test("initialize loads only what it needs, within its budget", () => {
    expect(problems("initialize", log.phases[0]!, allowed([INITIALIZE]), BUDGET.initialize)).toEqual([]);
  });

  test("session/new and the first prompt load only what the session and its provider need, within their budget", () => {
    const loaded = [...log.phases[1]!, ...log.phases[2]!];
    expect(problems("session/new and the first prompt", loaded, allowed([INITIALIZE, SESSION_AND_FIRST_PROMPT]), BUDGET["session/new and the first prompt"])).toEqual([]);
  });
});
