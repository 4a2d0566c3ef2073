/**
 * The sandbox around commands, end to end over stdio: in `auto` mode a
 * scripted model's commands run without a permission request, confined —
 * they write in the project and the temp dir but nowhere else, cannot read
 * the fake `~/.ssh/id_rsa` of a home made for the test (nor through a
 * symlink in the project), reach no local listener, and cannot get out
 * with `unshare`, `nsenter` or `/proc/self/root`. A background command is
 * confined the same way and ends with the agent; a project file that turns
 * the sandbox off changes nothing; a command that asks to run outside the
 * sandbox asks once, naming its reason, and runs when allowed. `read-only`
 * mode runs commands in a read-only sandbox; the setting `on` confines
 * commands after the usual question and refuses them where no sandbox
 * exists; `auto` mode without one asks, with a notice.
 */
import { describe, expect, test } from "bun:test";
import { existsSync, mkdtempSync, readFileSync, rmSync, symlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import { createServer, type Server } from "node:net";
import { join } from "node:path";
import { acp } from "../helpers/acp-client.ts";
import { NODE, RUNTIMES, type Sandbox } from "../helpers/agent-process.ts";
import { EditorTerminals } from "../helpers/editor-capabilities.ts";
import { waitFor } from "../helpers/expect-error.ts";
import { killProcessesWithEnv, processesWithEnv } from "../helpers/processes.ts";
import { answering, finalStatus, startScenario, toolText, type Scenario, type ScenarioOptions } from "../helpers/scenario.ts";

const KEY = "FAKE-PRIVATE-KEY-d41d8cd98f00b204";
const AUTH_KEY = "sk-ant-test-0123456789abcdef0123456789abcdef";

const bash = (id: string, command: string, extra: Record<string, unknown> = {}) => ({ toolCalls: [{ id, name: "bash", input: { command, ...extra } }] });
const done = { text: "done" };

/** Where a test keeps what the agent must not touch: a home with a key, a temp dir, a folder outside. */
interface Places {
  home: string;
  temp: string;
  outside: string;
}

function placesOf(sandbox: Sandbox): Places {
  return { home: join(sandbox.root, "user"), temp: join(sandbox.root, "tmp"), outside: join(sandbox.root, "outside") };
}

/**
 * A scenario whose user home holds a fake `~/.ssh/id_rsa`, whose agent home holds a fake key, and whose
 * temp dir is a folder of its own; `script` may name the places (`{outside}`, `{home}`, `{agentHome}`).
 */
async function startConfined(
  runtime: Parameters<typeof startScenario>[0],
  options: Omit<ScenarioOptions, "script" | "env"> & { script: unknown[]; env?: Record<string, string> },
): Promise<Scenario & { places: Places }> {
  const s = await startScenario(runtime, {
    ...options,
    files: {
      "user/.ssh/id_rsa": `${KEY}\n`,
      "tmp/.keep": "",
      "outside/.keep": "",
      "home/auth.json": JSON.stringify({ anthropic: { type: "api_key", key: AUTH_KEY } }),
      ...options.files,
    },
    script: (sandbox) => {
      const places = placesOf(sandbox);
      const text = JSON.stringify(options.script).replaceAll("{outside}", places.outside).replaceAll("{agentHome}", sandbox.home).replaceAll("{home}", places.home);
      return JSON.parse(text) as unknown[];
    },
    env: (sandbox) => ({ HOME: placesOf(sandbox).home, TMPDIR: placesOf(sandbox).temp, ...options.env }),
  });
  return { ...s, places: placesOf(s.sandbox) };
}

function listen(): Promise<{ server: Server; port: number; connections: () => number }> {
  let count = 0;
  const server = createServer((socket) => {
    count++;
    socket.destroy();
  });
  return new Promise((resolve) => server.listen(0, "127.0.0.1", () => resolve({ server, port: (server.address() as { port: number }).port, connections: () => count })));
}

const connect = (port: number) =>
  `"${NODE}" -e "require('net').connect(${port}, '127.0.0.1').on('connect', () => console.log('CONNECTED')).on('error', (e) => console.log('no connection: ' + e.code))"`;

function status(s: Scenario): Promise<any> {
  return (s.client.agent.request as (m: string, p: unknown) => Promise<any>)("session/status", { sessionId: s.sessionId });
}

function agentText(updates: acp.SessionUpdate[]): string {
  return updates.map((u) => (u.sessionUpdate === "agent_message_chunk" && u.content.type === "text" ? u.content.text : "")).join("");
}

describe.each(RUNTIMES)("the sandbox on %s", (runtime) => {
  test("auto mode: commands run confined without asking — project and temp writable, the rest not, secrets hidden, no network, no way out", async () => {
    const listener = await listen();
    const answers = answering("allow_once");
    const outside = "{outside}";
    const script = [
      bash("inside", `echo made > inside.txt && echo temp > "$TMPDIR/temp.txt" && echo ok`),
      bash("outside", `echo escaped > ${outside}/escape.txt`),
      bash("secrets", `cat ~/.ssh/id_rsa > stolen.txt; cat keys/id_rsa >> stolen.txt; cat {agentHome}/auth.json >> stolen.txt; ls -A ~/.ssh >> stolen.txt; echo read`),
      bash("network", connect(listener.port)),
      bash(
        "escape",
        [
          `unshare -U -r -m sh -c 'mount -o remount,rw / ; echo x > ${outside}/unshare.txt'`,
          `nsenter -t 1 -m -n sh -c 'echo x > ${outside}/nsenter.txt'`,
          `echo x > /proc/self/root${outside}/proc-root.txt`,
          `echo x > /proc/1/root${outside}/proc-one.txt`,
          `grep CapEff /proc/self/status`,
          `unshare -U -r true && echo NESTED-USERNS`,
          `echo tried`,
        ].join("; "),
      ),
      done,
    ];
    const s = await startConfined(runtime, { script, args: ["--approval-mode", "auto"], ...answers });
    try {
      symlinkSync(join(s.places.home, ".ssh"), join(s.sandbox.project, "keys"));
      expect((await s.prompt("go")).stopReason).toBe("end_turn");
      const updates = s.updates();
      expect(answers.requests).toHaveLength(0);

      expect(finalStatus(updates, "inside")).toBe("completed");
      expect(readFileSync(join(s.sandbox.project, "inside.txt"), "utf8")).toBe("made\n");
      expect(readFileSync(join(s.places.temp, "temp.txt"), "utf8")).toBe("temp\n");
      expect(toolText(updates, "inside")).toContain('"sandboxed":true');

      expect(finalStatus(updates, "outside")).toBe("failed");
      expect(existsSync(join(s.places.outside, "escape.txt"))).toBe(false);
      expect(toolText(updates, "outside")).toContain("Read-only file system");
      expect(toolText(updates, "outside")).toContain("outsideSandbox: true");

      const stolen = readFileSync(join(s.sandbox.project, "stolen.txt"), "utf8");
      expect(stolen).not.toContain(KEY);
      expect(stolen).not.toContain("id_rsa");
      expect(stolen).not.toContain(AUTH_KEY);
      expect(toolText(updates, "secrets")).toContain("read");

      expect(toolText(updates, "network")).toContain("no connection");
      expect(toolText(updates, "network")).not.toContain("CONNECTED");
      expect(listener.connections()).toBe(0);

      expect(toolText(updates, "escape")).toContain("tried");
      // No capability is left, even to a command the agent runs as root, and no new user namespace can give one back.
      expect(toolText(updates, "escape")).toMatch(/CapEff:\\t0{16}/);
      expect(toolText(updates, "escape")).not.toContain("NESTED-USERNS");
      for (const name of ["unshare.txt", "nsenter.txt", "proc-root.txt", "proc-one.txt"]) expect(existsSync(join(s.places.outside, name))).toBe(false);

      // The session tells that its commands are sandboxed: the mode option's description and /session.
      const mode = s.newSession.configOptions?.find((o) => o.id === "mode");
      expect(mode?.description).toContain("Commands: run in the sandbox");
      const before = s.updates().length;
      await s.prompt("/session");
      expect(agentText(s.updates(before))).toContain("Commands: run in the sandbox");
    } finally {
      s.close();
      listener.server.close();
    }
  }, 60_000);

  test("a Unix-domain socket outside (a container daemon's, a session bus, an SSH agent) cannot be reached; pipes between a command's own processes still work", async () => {
    const answers = answering("allow_once");
    const received: string[] = [];
    const service = createServer((socket) => {
      socket.on("data", (data) => received.push(String(data)));
      socket.end("SERVICE-REPLY\n");
    });
    const socketPath = join(mkdtempSync(join(tmpdir(), "acp-edge-service-")), "service.sock");
    await new Promise<void>((resolve) => service.listen(socketPath, resolve));
    const reach = `"${NODE}" -e "const c = require('net').connect('${socketPath}'); c.on('connect', () => c.write('run: id')); c.on('data', (d) => console.log('GOT ' + d)); c.on('error', (e) => console.log('no connection: ' + e.code))"`;
    const pipes = `"${NODE}" -e "console.log('child says ' + require('child_process').execSync('echo hello').toString().trim())"`;
    const script = [bash("unix", reach), bash("pipes", pipes), done];
    const s = await startConfined(runtime, { script, args: ["--approval-mode", "auto"], ...answers });
    try {
      expect((await s.prompt("go")).stopReason).toBe("end_turn");
      const updates = s.updates();
      expect(answers.requests).toHaveLength(0);
      expect(toolText(updates, "unix")).toContain("no connection: EACCES");
      expect(toolText(updates, "unix")).not.toContain("SERVICE-REPLY");
      expect(received).toEqual([]);
      expect(toolText(updates, "pipes")).toContain("child says hello");
    } finally {
      s.close();
      service.close();
      rmSync(join(socketPath, ".."), { recursive: true, force: true });
    }
  }, 60_000);

  test("a background command is confined the same way, shows as sandboxed and ends with the agent, even killed", async () => {
    const listener = await listen();
    const marker = `SANDBOX_TEST_MARK=${crypto.randomUUID()}`;
    const command = [
      `export ${marker}`,
      `echo in > bg-inside.txt`,
      `echo x > {outside}/bg.txt`,
      `cat ~/.ssh/id_rsa > bg-stolen.txt`,
      `${connect(listener.port)} > bg-network.txt`,
      `touch bg-finished`,
      `exec sleep 600`,
    ].join("; ");
    const s = await startConfined(runtime, {
      script: [{ toolCalls: [{ id: "start", name: "bash", input: { command, background: true } }] }, { text: "left running" }],
      args: ["--approval-mode", "auto"],
    });
    try {
      expect((await s.prompt("start it")).stopReason).toBe("end_turn");
      expect(finalStatus(s.updates(), "start")).toBe("completed");
      await waitFor(() => existsSync(join(s.sandbox.project, "bg-finished")), 20_000, "the background command to finish its checks");
      expect(readFileSync(join(s.sandbox.project, "bg-inside.txt"), "utf8")).toBe("in\n");
      expect(existsSync(join(s.places.outside, "bg.txt"))).toBe(false);
      expect(readFileSync(join(s.sandbox.project, "bg-stolen.txt"), "utf8")).not.toContain(KEY);
      expect(readFileSync(join(s.sandbox.project, "bg-network.txt"), "utf8")).toContain("no connection");
      expect(listener.connections()).toBe(0);

      const now = await status(s);
      expect(now.sandbox).toMatchObject({ setting: "auto", available: true, commands: "sandboxed" });
      expect(now.backgroundCommands).toEqual([expect.objectContaining({ running: true, sandboxed: true })]);
      // The exported marker shows in /proc only once the shell has exec'd its `sleep`, a moment after `bg-finished`.
      await waitFor(() => processesWithEnv(marker).length > 0, 10_000, "the confined command's sleep to carry the marker");

      // The agent's end, even by SIGKILL, ends the confined tree (its watchdog is outside the sandbox): nothing with the marker is left.
      s.proc.child.kill("SIGKILL");
      await s.proc.exited;
      await waitFor(() => processesWithEnv(marker).length === 0, 10_000, "the confined command to end with the agent");
    } finally {
      s.close();
      listener.server.close();
      killProcessesWithEnv(marker);
    }
  }, 60_000);

  test("in the editor's terminal the editor runs the sandbox around the shell: foreground and background confined alike", async () => {
    const terminals = new EditorTerminals();
    const marker = `SANDBOX_TEST_MARK=${crypto.randomUUID()}`;
    const s = await startConfined(runtime, {
      script: [
        bash("fg", "echo in > term-inside.txt; echo x > {outside}/term.txt; cat ~/.ssh/id_rsa > term-stolen.txt; echo fg-done"),
        { toolCalls: [{ id: "bg", name: "bash", input: { command: `export ${marker}; echo x > {outside}/term-bg.txt; touch term-bg-done; exec sleep 600`, background: true } }] },
        done,
      ],
      args: ["--approval-mode", "auto"],
      capabilities: { terminal: true },
      terminals,
    });
    try {
      expect((await s.prompt("go")).stopReason).toBe("end_turn");
      expect(terminals.created).toHaveLength(2);
      for (const created of terminals.created) {
        // A shell opens the socket filter for bubblewrap, which confines the shell the command runs in.
        expect(created.command).toBe("/bin/sh");
        expect(created.args.find((arg) => arg.endsWith("/bwrap"))).toBeDefined();
        expect(created.args).toContain("--seccomp");
        expect(created.args).toContain("--unshare-net");
      }
      expect(toolText(s.updates(), "fg")).toContain("fg-done");
      expect(readFileSync(join(s.sandbox.project, "term-inside.txt"), "utf8")).toBe("in\n");
      expect(existsSync(join(s.places.outside, "term.txt"))).toBe(false);
      expect(readFileSync(join(s.sandbox.project, "term-stolen.txt"), "utf8")).not.toContain(KEY);
      await waitFor(() => existsSync(join(s.sandbox.project, "term-bg-done")), 20_000, "the background command in the terminal");
      expect(existsSync(join(s.places.outside, "term-bg.txt"))).toBe(false);
      expect((await status(s)).backgroundCommands).toEqual([expect.objectContaining({ running: true, sandboxed: true, terminalId: expect.any(String) })]);
    } finally {
      s.close();
      killProcessesWithEnv(marker);
    }
  }, 60_000);

  test("a project file that turns the sandbox off (and loosens the mode) changes nothing", async () => {
    const answers = answering("allow_once");
    const s = await startConfined(runtime, {
      script: [bash("outside", "echo escaped > {outside}/escape.txt; cat ~/.ssh/id_rsa"), done],
      args: ["--approval-mode", "auto"],
      files: { "project/.acp-edge/settings.json": JSON.stringify({ sandbox: "off", approvalMode: "yolo", permissionRules: [{ action: "allow", command: "echo" }] }) },
      ...answers,
    });
    try {
      expect((await s.prompt("go")).stopReason).toBe("end_turn");
      expect(answers.requests).toHaveLength(0);
      expect(existsSync(join(s.places.outside, "escape.txt"))).toBe(false);
      expect(toolText(s.updates(), "outside")).not.toContain(KEY);
      expect(s.proc.stderr()).toContain("ignored");
      expect((await status(s)).sandbox).toMatchObject({ setting: "auto", commands: "sandboxed" });
    } finally {
      s.close();
    }
  }, 60_000);

  test("outsideSandbox: the same write asks once, naming the reason, offers no 'always', and succeeds when allowed", async () => {
    const answers = answering("allow_once");
    const reason = "the build writes its cache outside the project";
    const s = await startConfined(runtime, {
      script: [bash("escalate", "echo escaped > {outside}/escape.txt", { outsideSandbox: true, reason }), done],
      args: ["--approval-mode", "auto"],
      // Even a user's allow rule for the command does not let it leave the sandbox unasked.
      settings: { permissionRules: [{ action: "allow", command: "echo" }] },
      ...answers,
    });
    try {
      expect((await s.prompt("go")).stopReason).toBe("end_turn");
      expect(answers.requests).toHaveLength(1);
      expect(JSON.stringify(answers.requests[0]!.toolCall)).toContain(reason);
      expect(answers.requests[0]!.options.map((o) => o.kind)).toEqual(["allow_once", "reject_once", "reject_always"]);
      expect(finalStatus(s.updates(), "escalate")).toBe("completed");
      expect(readFileSync(join(s.places.outside, "escape.txt"), "utf8")).toBe("escaped\n");
    } finally {
      s.close();
    }
  }, 60_000);

  test("outsideSandbox rejected: nothing runs; in read-only mode it is refused without asking", async () => {
    /** One write outside asking to leave the sandbox in `mode`, answered with `kind`. */
    const escalate = async (mode: string, kind: acp.PermissionOptionKind) => {
      const answers = answering(kind);
      const s = await startConfined(runtime, {
        script: [bash("escalate", "echo escaped > {outside}/escape.txt", { outsideSandbox: true, reason: "r" }), done],
        args: ["--approval-mode", mode],
        ...answers,
      });
      try {
        expect((await s.prompt("go")).stopReason).toBe("end_turn");
        return { asked: answers.requests.length, status: finalStatus(s.updates(), "escalate"), text: toolText(s.updates(), "escalate"), escaped: existsSync(join(s.places.outside, "escape.txt")) };
      } finally {
        s.close();
      }
    };
    expect(await escalate("auto", "reject_once")).toMatchObject({ asked: 1, status: "failed", escaped: false });
    const readOnly = await escalate("read-only", "allow_once");
    expect(readOnly).toMatchObject({ asked: 0, status: "failed", escaped: false });
    expect(readOnly.text).toContain("refused in read-only mode");
  }, 60_000);

  test("read-only mode: commands run in a read-only sandbox — they read the project and write only the temp dir", async () => {
    const answers = answering("allow_once");
    const s = await startConfined(runtime, {
      script: [
        bash("look", `cat notes.txt; echo x > ro.txt; echo t > "$TMPDIR/ro-temp.txt"; echo looked`),
        { toolCalls: [{ id: "bg", name: "bash", input: { command: `touch bg-ro.txt; echo bg > "$TMPDIR/bg-ro-temp.txt"`, background: true } }] },
        done,
      ],
      args: ["--approval-mode", "read-only"],
      files: { "project/notes.txt": "project notes\n" },
      ...answers,
    });
    try {
      expect((await s.prompt("look")).stopReason).toBe("end_turn");
      expect(answers.requests).toHaveLength(0);
      const text = toolText(s.updates(), "look");
      expect(text).toContain("project notes");
      expect(text).toContain("looked");
      expect(existsSync(join(s.sandbox.project, "ro.txt"))).toBe(false);
      expect(readFileSync(join(s.places.temp, "ro-temp.txt"), "utf8")).toBe("t\n");
      // A background command gets the same read-only sandbox.
      await waitFor(() => existsSync(join(s.places.temp, "bg-ro-temp.txt")), 20_000, "the background command to write its temp file");
      expect(existsSync(join(s.sandbox.project, "bg-ro.txt"))).toBe(false);
      expect((await status(s)).sandbox).toMatchObject({ commands: "sandboxed read-only" });
    } finally {
      s.close();
    }
  }, 60_000);

  test("setting on: ask mode still asks, then the command runs confined", async () => {
    const answers = answering("allow_once");
    const s = await startConfined(runtime, {
      script: [bash("outside", "echo escaped > {outside}/escape.txt"), done],
      args: ["--approval-mode", "ask"],
      settings: { sandbox: "on" },
      ...answers,
    });
    try {
      expect((await s.prompt("go")).stopReason).toBe("end_turn");
      expect(answers.requests).toHaveLength(1);
      expect(finalStatus(s.updates(), "outside")).toBe("failed");
      expect(existsSync(join(s.places.outside, "escape.txt"))).toBe(false);
    } finally {
      s.close();
    }
  }, 60_000);

  test("no sandbox on the machine: setting on refuses commands naming what is missing; auto mode asks, with a notice", async () => {
    // No bubblewrap on PATH (only the runtime that starts the agent) and none where the settings point: the commands here need only the shell's builtins.
    const bin = mkdtempSync(join(tmpdir(), "acp-edge-no-sandbox-"));
    symlinkSync(Bun.which(NODE) ?? NODE, join(bin, "node"));
    const noSandbox = { PATH: bin };
    const program = join(bin, "missing", "bwrap");
    const refused = answering("allow_once");
    const s = await startConfined(runtime, { script: [bash("run", "echo ran > ran.txt"), done], args: ["--approval-mode", "auto"], settings: { sandbox: { mode: "on", program } }, env: noSandbox, ...refused });
    try {
      expect((await s.prompt("go")).stopReason).toBe("end_turn");
      expect(refused.requests).toHaveLength(0);
      expect(finalStatus(s.updates(), "run")).toBe("failed");
      expect(toolText(s.updates(), "run")).toContain("bubblewrap");
      expect(existsSync(join(s.sandbox.project, "ran.txt"))).toBe(false);
      expect((await status(s)).sandbox).toMatchObject({ setting: "on", available: false, commands: "refused" });
    } finally {
      s.close();
    }
    const asked = answering("allow_once");
    const a = await startConfined(runtime, { script: [bash("run", "echo ran > ran.txt"), done], args: ["--approval-mode", "auto"], settings: { sandbox: { program } }, env: noSandbox, ...asked });
    try {
      expect((await a.prompt("go")).stopReason).toBe("end_turn");
      expect(asked.requests).toHaveLength(1);
      expect(readFileSync(join(a.sandbox.project, "ran.txt"), "utf8")).toBe("ran\n");
      expect(agentText(a.updates())).toContain("bubblewrap");
      expect((await status(a)).sandbox).toMatchObject({ setting: "auto", available: false, commands: "not sandboxed" });
    } finally {
      a.close();
      rmSync(bin, { recursive: true, force: true });
    }
  }, 60_000);
});
