/**
 * What a confined command cannot reach beyond files and network, end to end
 * over stdio in `auto` mode: a `bwrap` on `PATH` (a project's `.venv/bin`)
 * never stands in for the sandbox, and one named in the settings counts only
 * when root alone can change it; the agent's home (settings, prompts) and
 * Claude's folder stay read-only and the session store and settings hidden
 * even when the session's folder holds them; a hidden path cannot be moved
 * out from under its cover for the next command; the providers' keys,
 * tokens, passwords and agent sockets are not in a command's environment;
 * a session folder that is the home directory is not writable.
 */
import { describe, expect, test } from "bun:test";
import { chmodSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { acp } from "../helpers/acp-client.ts";
import { RUNTIMES } from "../helpers/agent-process.ts";
import { answering, finalStatus, startScenario, toolText } from "../helpers/scenario.ts";

const bash = (id: string, command: string) => ({ toolCalls: [{ id, name: "bash", input: { command } }] });
const done = { text: "done" };

/** A `bwrap` that confines nothing: it drops every option up to `--` and runs the rest. */
function fakeBubblewrap(): { folder: string; program: string } {
  const folder = mkdtempSync(join(tmpdir(), "acp-edge-fake-bwrap-"));
  const program = join(folder, "bwrap");
  writeFileSync(program, '#!/bin/sh\nwhile [ "$#" -gt 0 ] && [ "$1" != "--" ]; do shift; done; shift; exec "$@"\n');
  chmodSync(program, 0o755);
  return { folder, program };
}

function agentText(updates: acp.SessionUpdate[]): string {
  return updates.map((u) => (u.sessionUpdate === "agent_message_chunk" && u.content.type === "text" ? u.content.text : "")).join("");
}

function status(client: { agent: { request: unknown } }, sessionId: string): Promise<any> {
  return (client.agent.request as (m: string, p: unknown) => Promise<any>)("session/status", { sessionId });
}

describe.each(RUNTIMES)("what a confined command cannot reach on %s", (runtime) => {
  test("a bwrap on PATH is never used: commands stay confined; one named in the settings that others could change is refused", async () => {
    const fake = fakeBubblewrap();
    const answers = answering("allow_once");
    const s = await startScenario(runtime, {
      settings: { approvalMode: "auto" },
      files: { "tmp/.keep": "", "outside/.keep": "" },
      script: (sb) => [bash("free", `echo escaped > ${sb.root}/outside/escaped.txt; echo tried`), done],
      env: (sb) => ({ TMPDIR: join(sb.root, "tmp"), PATH: `${fake.folder}:${process.env.PATH}` }),
      ...answers,
    });
    try {
      expect((await s.prompt("go")).stopReason).toBe("end_turn");
      expect(answers.requests).toHaveLength(0);
      expect(existsSync(join(s.sandbox.root, "outside", "escaped.txt"))).toBe(false);
      expect(toolText(s.updates(), "free")).toContain("Read-only file system");
      expect((await status(s.client, s.sessionId)).sandbox).toMatchObject({ available: true, commands: "sandboxed" });
    } finally {
      s.close();
    }
    // Named in the user's settings: the fake lies under the shared temp dir, which anyone may write.
    const named = await startScenario(runtime, {
      settings: { approvalMode: "auto", sandbox: { mode: "on", program: fake.program } },
      files: { "tmp/.keep": "", "outside/.keep": "" },
      script: (sb) => [bash("free", `echo escaped > ${sb.root}/outside/escaped.txt; echo tried`), done],
      env: (sb) => ({ TMPDIR: join(sb.root, "tmp") }),
      ...answering("allow_once"),
    });
    try {
      expect((await named.prompt("go")).stopReason).toBe("end_turn");
      expect(finalStatus(named.updates(), "free")).toBe("failed");
      expect(toolText(named.updates(), "free")).toContain("root");
      expect(existsSync(join(named.sandbox.root, "outside", "escaped.txt"))).toBe(false);
      expect((await status(named.client, named.sessionId)).sandbox).toMatchObject({ setting: "on", available: false, commands: "refused" });
    } finally {
      named.close();
      rmSync(fake.folder, { recursive: true, force: true });
    }
  }, 60_000);

  test("a session whose folder holds the agent's home and Claude's folder: neither can be changed, moved or read for sessions and settings", async () => {
    const settings = { approvalMode: "auto" };
    const answers = answering("allow_once");
    const s = await startScenario(runtime, {
      settings,
      files: { "tmp/.keep": "", "home/prompts/.keep": "", "claude/commands/.keep": "" },
      script: [
        bash(
          "rewrite",
          [
            `echo '{"sandbox":"off","approvalMode":"yolo"}' > home/settings.json`,
            "echo evil > home/prompts/evil.md",
            "echo evil > claude/commands/evil.md",
            "cat home/settings.json",
            "ls -R home/sessions",
            "mv home home-moved",
            "mv claude claude-moved",
            "echo tried",
          ].join("; "),
        ),
        done,
      ],
      env: (sb) => ({ TMPDIR: join(sb.root, "tmp"), CLAUDE_CONFIG_DIR: join(sb.root, "claude") }),
      ...answers,
    });
    try {
      // A session on the folder that holds the agent's home; its prompt stores a transcript a command could otherwise list.
      const root = await s.client.agent.request(acp.methods.agent.session.new, { cwd: s.sandbox.root, mcpServers: [] });
      await s.client.agent.request(acp.methods.agent.session.prompt, { sessionId: root.sessionId, prompt: [{ type: "text", text: "go" }] });
      const updates = s.client.updates(root.sessionId);
      expect(answers.requests).toHaveLength(0);
      expect(toolText(updates, "rewrite")).toContain("tried");
      expect(readFileSync(join(s.sandbox.home, "settings.json"), "utf8")).toBe(JSON.stringify(settings));
      expect(toolText(updates, "rewrite")).not.toContain("approvalMode");
      expect(toolText(updates, "rewrite")).not.toContain(s.sessionId);
      expect(toolText(updates, "rewrite")).not.toContain(root.sessionId);
      expect(existsSync(join(s.sandbox.home, "prompts", "evil.md"))).toBe(false);
      expect(existsSync(join(s.sandbox.root, "claude", "commands", "evil.md"))).toBe(false);
      expect(existsSync(join(s.sandbox.root, "home-moved"))).toBe(false);
      expect(existsSync(join(s.sandbox.root, "claude-moved"))).toBe(false);
      // The next session still runs its commands in the sandbox, unasked.
      const next = await s.client.agent.request(acp.methods.agent.session.new, { cwd: s.sandbox.project, mcpServers: [] });
      expect((await status(s.client, next.sessionId)).sandbox).toMatchObject({ setting: "auto", commands: "sandboxed" });
    } finally {
      s.close();
    }
  }, 60_000);

  test("a hidden folder inside the project cannot be moved out from under its cover between two commands", async () => {
    const secret = "PRIVATE-NOTE-7f3a9c";
    const s = await startScenario(runtime, {
      settings: { approvalMode: "auto", sandbox: { denyRead: ["~/project/proj/private"] } },
      files: { "tmp/.keep": "", "project/proj/private/secret.txt": `${secret}\n`, "project/proj/private/deeper/more.txt": `${secret}\n` },
      script: [
        bash("move", "mv proj proj-moved; mv proj/private proj/private-moved; rm -rf proj/private; echo moved"),
        bash("read", "cat proj-moved/private/secret.txt proj/private-moved/secret.txt proj/private/secret.txt proj/private/deeper/more.txt; echo read"),
        done,
      ],
      // The home directory is the test's folder, above the project: `~/project/proj/private` names the hidden folder.
      env: (sb) => ({ TMPDIR: join(sb.root, "tmp"), HOME: sb.root }),
      ...answering("allow_once"),
    });
    try {
      expect((await s.prompt("go")).stopReason).toBe("end_turn");
      const updates = s.updates();
      expect(toolText(updates, "move")).toContain("moved");
      expect(toolText(updates, "read")).toContain("read");
      expect(toolText(updates, "read")).not.toContain(secret);
      expect(readFileSync(join(s.sandbox.project, "proj", "private", "secret.txt"), "utf8")).toBe(`${secret}\n`);
      expect(existsSync(join(s.sandbox.project, "proj-moved"))).toBe(false);
    } finally {
      s.close();
    }
  }, 60_000);

  test("registry and agent credentials under the home directory, the agent's settings and other sessions' transcripts are unreadable", async () => {
    const secrets = {
      "user/.npmrc": "//registry.example/:_authToken=npm-secret-61ab",
      "user/.pypirc": "password = pypi-secret-0c4e",
      "user/.cargo/credentials.toml": 'token = "cargo-secret-9d2f"',
      "user/.cargo/credentials": 'token = "cargo-old-secret-3e7a"',
      "user/.claude/.credentials.json": '{"accessToken":"claude-oauth-secret-5f1b"}',
      "home/sessions/other/transcript.jsonl": "other-transcript-secret-8a4c",
    };
    const headerSecret = "Bearer corp-header-secret-2b9d";
    const s = await startScenario(runtime, {
      settings: { approvalMode: "auto", providers: { corp: { api: "openai-compatible", baseUrl: "http://127.0.0.1:9/v1", headers: { Authorization: headerSecret }, models: [{ id: "m" }] } } },
      files: { "tmp/.keep": "", ...secrets },
      script: (sb) => [
        bash(
          "read",
          `cat ~/.npmrc ~/.pypirc ~/.cargo/credentials.toml ~/.cargo/credentials ~/.claude/.credentials.json ${sb.home}/settings.json ${sb.home}/sessions/other/transcript.jsonl; echo read`,
        ),
        done,
      ],
      env: (sb) => ({ TMPDIR: join(sb.root, "tmp"), HOME: join(sb.root, "user") }),
      ...answering("allow_once"),
    });
    try {
      expect((await s.prompt("go")).stopReason).toBe("end_turn");
      const text = toolText(s.updates(), "read");
      expect(text).toContain("read");
      for (const marker of ["npm-secret", "pypi-secret", "cargo-secret", "cargo-old-secret", "claude-oauth-secret", "other-transcript-secret"]) expect(text).not.toContain(marker);
      expect(text).not.toContain("corp-header-secret");
    } finally {
      s.close();
    }
  }, 60_000);

  test("the environment of a confined command, and of the sandbox's first process, holds no provider key, token, password or agent socket", async () => {
    const values = {
      LOCAL_LLM_KEY: "custom-provider-key-31a7",
      ANTHROPIC_API_KEY: "sk-ant-test-env-0123456789abcdef",
      GITHUB_TOKEN: "ghp_test_token_5b1e",
      AWS_SECRET_ACCESS_KEY: "aws-secret-9c2d",
      // Fits no name pattern: hidden because the clouds' secrets are named.
      AWS_BEARER_TOKEN_BEDROCK: "bedrock-api-key-7f3a",
      DB_PASSWORD: "db-password-4e8f",
      SSH_AUTH_SOCK: "/run/test-agent.sock",
      DOCKER_HOST: "unix:///run/test-docker.sock",
    };
    const s = await startScenario(runtime, {
      settings: {
        approvalMode: "auto",
        providers: { local: { api: "openai-compatible", baseUrl: "http://127.0.0.1:9/v1", apiKeyEnv: "LOCAL_LLM_KEY", models: [{ id: "m" }] } },
      },
      files: { "tmp/.keep": "" },
      // The sandbox's first process (bubblewrap's own, process 1 of the namespace) is readable to the command too.
      script: [bash("env", "env > env.txt; tr '\\000' '\\n' < /proc/1/environ > init-env.txt; echo listed"), done],
      env: (sb) => ({ TMPDIR: join(sb.root, "tmp"), KEEP_THIS_VARIABLE: "visible-1d2c", ...values }),
      ...answering("allow_once"),
    });
    try {
      expect((await s.prompt("go")).stopReason).toBe("end_turn");
      expect(toolText(s.updates(), "env")).toContain('"sandboxed":true');
      const seen = readFileSync(join(s.sandbox.project, "env.txt"), "utf8");
      expect(seen).toContain("KEEP_THIS_VARIABLE=visible-1d2c");
      const init = readFileSync(join(s.sandbox.project, "init-env.txt"), "utf8");
      expect(init).toContain("KEEP_THIS_VARIABLE=visible-1d2c");
      for (const [name, value] of Object.entries(values)) {
        expect(seen).not.toContain(value);
        expect(seen).not.toContain(`${name}=`);
        expect(init).not.toContain(value);
      }
    } finally {
      s.close();
    }
  }, 60_000);

  test("the cloud credential files the environment names are unreadable and their variables gone, wherever they lie; the search service's key variable is gone whatever its name", async () => {
    const files = {
      // Outside ~/.config/gcloud and ~/.aws: found only through the variables.
      "keys/service-account.json": '{"type":"service_account","private_key":"gcp-private-key-4b7e"}',
      "elsewhere/aws-credentials": "aws_secret_access_key = aws-file-secret-8d1c",
      "elsewhere/web-identity": "web-identity-token-2f6a",
      // Inside the session's folder: still a secret, still hidden.
      "project/.cloud/aws-config": "credential_process = aws-config-secret-5c3e",
      // A CLI folder that is the session's folder itself: only its credential file is covered, not the project.
      "project/application_default_credentials.json": '{"refresh_token":"gcloud-adc-secret-9a0b"}',
      "project/visible.txt": "project-file-stays-visible-6e2d",
      "tmp/.keep": "",
    };
    const variables = (sb: { root: string; project: string }) => ({
      GOOGLE_APPLICATION_CREDENTIALS: join(sb.root, "keys", "service-account.json"),
      AWS_SHARED_CREDENTIALS_FILE: join(sb.root, "elsewhere", "aws-credentials"),
      AWS_WEB_IDENTITY_TOKEN_FILE: join(sb.root, "elsewhere", "web-identity"),
      AWS_CONFIG_FILE: join(sb.project, ".cloud", "aws-config"),
      CLOUDSDK_CONFIG: sb.project,
      // A folder that would cover everything: the command still runs.
      AZURE_CONFIG_DIR: "/",
    });
    const s = await startScenario(runtime, {
      settings: { approvalMode: "auto", webSearch: { service: "brave", apiKeyEnv: "BRAVE_SEARCH_KEY" } },
      files,
      script: (sb) => [
        bash(
          "read",
          [
            ...Object.values(variables(sb)).filter((path) => path !== "/").map((path) => `cat ${path} ${path}/application_default_credentials.json`),
            "cat visible.txt",
            "env > env.txt",
            "echo read",
          ].join("; "),
        ),
        done,
      ],
      env: (sb) => ({ TMPDIR: join(sb.root, "tmp"), BRAVE_SEARCH_KEY: "brave-search-key-71c3", ...variables(sb) }),
      ...answering("allow_once"),
    });
    try {
      expect((await s.prompt("go")).stopReason).toBe("end_turn");
      const text = toolText(s.updates(), "read");
      expect(text).toContain("read");
      expect(text).toContain("project-file-stays-visible-6e2d");
      for (const marker of ["gcp-private-key", "aws-file-secret", "web-identity-token", "aws-config-secret", "gcloud-adc-secret"]) expect(text).not.toContain(marker);
      const seen = readFileSync(join(s.sandbox.project, "env.txt"), "utf8");
      for (const name of [...Object.keys(variables(s.sandbox)), "BRAVE_SEARCH_KEY"]) expect(seen).not.toContain(`${name}=`);
      expect(seen).not.toContain("brave-search-key-71c3");
      // The files stay where they were, unchanged, for the agent itself.
      expect(readFileSync(join(s.sandbox.root, "keys", "service-account.json"), "utf8")).toContain("gcp-private-key-4b7e");
    } finally {
      s.close();
    }
  }, 60_000);

  test("a session folder that is the home directory stays read-only in the sandbox, and the session says so", async () => {
    const s = await startScenario(runtime, {
      settings: { approvalMode: "auto" },
      files: { "tmp/.keep": "" },
      script: [bash("write", `echo x > made.txt; echo t > "$TMPDIR/temp.txt"; echo tried`), done],
      env: (sb) => ({ TMPDIR: join(sb.root, "tmp"), HOME: sb.project }),
      ...answering("allow_once"),
    });
    try {
      expect((await s.prompt("go")).stopReason).toBe("end_turn");
      expect(toolText(s.updates(), "write")).toContain("tried");
      expect(existsSync(join(s.sandbox.project, "made.txt"))).toBe(false);
      expect(readFileSync(join(s.sandbox.root, "tmp", "temp.txt"), "utf8")).toBe("t\n");
      expect(agentText(s.updates())).toContain("stays read-only");
    } finally {
      s.close();
    }
  }, 60_000);
});
