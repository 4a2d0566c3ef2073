/**
 * The browser console at `GET /` in a real headless Chromium against
 * `agent serve`: sign-in, the sessions list, creating a session, a scripted
 * turn with tool calls streaming into the page, permission dialogs answered in
 * the page, two tabs on one session, a prompt queued behind another tab's
 * turn and cancel, queueing, dropping and steering in one tab, reload without
 * duplicates, and markup from the model or a file name shown as text.
 * Screenshots of the main views land in .test-results/console/.
 *
 * Runs on node (`dist/`) by default; ACP_EDGE_CONSOLE_RUNTIMES=node,bun,deno
 * widens it.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import type { Page } from "playwright-core";
import { makeSandbox, ROOT, type RuntimeName, type Sandbox } from "../helpers/agent-process.ts";
import { launchChromium } from "../helpers/browser.ts";
import { waitFor } from "../helpers/expect-error.ts";
import { bearer, startServe, TOKEN, type ServeProcess } from "../helpers/serve-process.ts";

const RUNTIMES = (process.env.ACP_EDGE_CONSOLE_RUNTIMES?.split(",") ?? ["node"]) as RuntimeName[];
const SHOTS = join(ROOT, ".test-results", "console");
const XSS_TEXT = '<img src=x onerror="window.__pwned=1">';
const XSS_FILE = "<img src=x onerror=window.__pwned=2>.txt";

// One script for the whole server: the model calls happen in this order across the tests below.
const SCRIPT = [
  // the write/bash turn
  { thinking: "Let me think about the notes.", text: "I will write **notes.txt** now.", toolCalls: [{ id: "w1", name: "write", input: { path: "notes.txt", content: "hello\nworld\n" } }] },
  { toolCalls: [{ id: "b1", name: "bash", input: { command: "echo live-output-line > out.txt && cat out.txt" } }] },
  { text: "Done:\n\n```\nhello\n```" },
  // two tabs
  { text: "answer to A" },
  // Long enough to be still running when the test cancels it, however loaded the machine.
  { text: "slow ".repeat(4000), delayMs: 25 },
  // queue and steer: a command that waits for the test, then the steered step, then the queued prompt
  { toolCalls: [{ id: "hold", name: "bash", input: { command: "cat ../hold.fifo" } }] },
  { text: "heard the steer" },
  { text: "answer to the queued prompt" },
  // markup as text
  { text: `Look: ${XSS_TEXT} and \`<b>code</b>\``, toolCalls: [{ id: "x1", name: "write", input: { path: XSS_FILE, content: "x" } }] },
  { text: "ok" },
  // questions from the ask tool
  { toolCalls: [{ id: "q1", name: "ask", input: { question: "Which colour?", choices: ["red", "green"] } }] },
  { toolCalls: [{ id: "q2", name: "ask", input: { question: "Which days?", choices: ["mon", "tue", "wed"], multiple: true } }] },
  { toolCalls: [{ id: "q3", name: "ask", input: { question: "Any notes?" } }] },
  { toolCalls: [{ id: "q4", name: "ask", input: { question: "Proceed?", choices: ["yes", "no"] } }] },
  { text: "asked everything" },
];

async function shot(page: Page, name: string) {
  mkdirSync(SHOTS, { recursive: true });
  await page.screenshot({ path: join(SHOTS, `${name}.png`) });
}

describe.each(RUNTIMES)("the console in Chromium against serve on %s", (runtime) => {
  let sandbox: Sandbox;
  let server: ServeProcess;
  let chrome: Awaited<ReturnType<typeof launchChromium>>;
  let a: Page;
  let b: Page;
  let sessionId = "";
  const suffix = runtime === "node" ? "" : `-${runtime}`;

  beforeAll(async () => {
    sandbox = makeSandbox();
    execFileSync("mkfifo", [join(sandbox.root, "hold.fifo")]);
    writeFileSync(join(sandbox.home, "settings.json"), JSON.stringify({}));
    server = await startServe(runtime, sandbox, { script: sandbox.write("script.json", JSON.stringify(SCRIPT)) });
    await fetch(`${server.url}/v1/sessions`, { method: "POST", headers: { ...bearer(TOKEN), "content-type": "application/json" }, body: JSON.stringify({ cwd: sandbox.project, title: "an earlier session" }) });
    chrome = await launchChromium();
    a = await chrome.context.newPage();
  }, 60_000);

  afterAll(async () => {
    await chrome?.close();
    await server?.stop("SIGKILL");
    sandbox?.cleanup();
  });

  test("sign-in: nothing without the token, a wrong token is named, then the list; creating a session opens it", async () => {
    await a.goto(`${server.url}/`);
    const timing = await a.evaluate(() => (performance.getEntriesByType("navigation")[0] as PerformanceNavigationTiming).loadEventEnd);
    console.log(`console (${runtime}): page loaded in ${Math.round(timing)} ms`);
    await a.getByLabel("Token").waitFor();
    expect(await a.locator(".session").count()).toBe(0);
    await shot(a, `sign-in${suffix}`);

    await a.getByLabel("Token").fill("wrong-token-0123456789");
    await a.getByRole("button", { name: "Sign in" }).click();
    await a.getByRole("alert").filter({ hasText: "did not accept this token" }).waitFor();
    expect(await a.locator(".session").count()).toBe(0);

    await a.getByLabel("Token").fill(TOKEN);
    await a.getByRole("button", { name: "Sign in" }).click();
    await a.locator(".session", { hasText: "an earlier session" }).waitFor();
    expect(await a.locator(".session .cwd").first().textContent()).toBe(sandbox.project);
    await shot(a, `sessions${suffix}`);

    await a.getByLabel("New session in directory").fill(sandbox.project);
    await a.getByLabel("Title").fill("console demo");
    await a.getByRole("button", { name: "Create" }).click();
    await a.waitForURL(/\?session=sess_/);
    sessionId = new URL(a.url()).searchParams.get("session") ?? "";
    await a.locator("h1", { hasText: "console demo" }).waitFor();
    await a.locator("#status", { hasText: "connected" }).waitFor();
  }, 60_000);

  test("a turn streams in: thinking collapsed, Markdown, tool calls with a diff and command output; permissions answered in a dialog", async () => {
    const prompt = a.getByRole("textbox", { name: "Prompt" });
    await prompt.fill("please write the notes");
    await prompt.press("Enter");

    const dialog = a.locator("dialog.permission[open]");
    await dialog.waitFor();
    expect(await dialog.locator("figcaption").textContent()).toContain("notes.txt");
    expect(await dialog.locator(".diff .add").allTextContents()).toEqual(["+ hello", "+ world", "+ "].map((l) => `${l}\n`));
    expect(await dialog.locator(".remaining").textContent()).toMatch(/\d+:\d\d left to answer/);
    await shot(a, `permission${suffix}`);
    await dialog.getByRole("button", { name: "Allow once" }).click();

    const second = a.locator("dialog.permission[open]");
    await second.locator("pre.command", { hasText: "$ echo live-output-line > out.txt" }).waitFor();
    await second.getByRole("button", { name: "Allow once" }).click();

    await a.locator(".entry.agent", { hasText: "Done:" }).waitFor();
    expect(readFileSync(join(sandbox.project, "notes.txt"), "utf8")).toBe("hello\nworld\n");
    expect(await a.locator("details.thought").getAttribute("open")).toBeNull();
    expect(await a.locator(".entry.agent strong").first().textContent()).toBe("notes.txt");
    expect(await a.locator(".entry.agent pre.code code").textContent()).toBe("hello");
    const write = a.locator('[data-tool-call="w1"]');
    expect(await write.locator(".badge").textContent()).toBe("completed");
    expect(await write.locator(".locations").textContent()).toContain("notes.txt");
    const bash = a.locator('[data-tool-call="b1"]');
    await bash.locator(".output", { hasText: "live-output-line" }).waitFor();
    expect(await bash.locator(".badge").textContent()).toBe("completed");
    await shot(a, `session${suffix}`);
  }, 60_000);

  test("two tabs on one session see each other's prompts; a prompt behind the other tab's turn waits; Escape there cancels both", async () => {
    b = await chrome.context.newPage();
    await b.goto(`${server.url}/?session=${sessionId}#token=${encodeURIComponent(TOKEN)}`);
    await b.locator("#status", { hasText: "connected" }).waitFor();
    expect(b.url()).not.toContain("token");
    expect(b.url()).toContain(`session=${sessionId}`);

    const promptA = a.getByRole("textbox", { name: "Prompt" });
    await promptA.fill("hello from A");
    await promptA.press("Enter");
    await b.locator(".entry.user", { hasText: "hello from A" }).waitFor();
    await b.locator(".entry.agent", { hasText: "answer to A" }).waitFor();

    await promptA.fill("slow please");
    await promptA.press("Enter");
    await b.locator(".entry.agent", { hasText: "slow slow" }).waitFor();
    const promptB = b.getByRole("textbox", { name: "Prompt" });
    await promptB.fill("me too");
    await promptB.press("Enter");
    // Queued behind A's turn (not refused); B's Escape cancels A's turn and, stop meaning stop, B's waiting prompt.
    await promptB.press("Escape");
    await a.locator(".note", { hasText: "Turn ended: cancelled." }).waitFor();
    await b.locator(".note", { hasText: "Turn ended: cancelled." }).waitFor();
    expect(await a.locator(".entry.user", { hasText: "me too" }).count()).toBe(0);
  }, 60_000);

  test("while a turn runs: Enter queues (shown with Drop), Drop takes one back, Steer joins the turn before its next step", async () => {
    // Under the mode selector: whether the session's commands run in the sandbox in that mode.
    await a.locator('select[data-category="mode"]').selectOption("auto");
    await a.locator('[data-role="sandbox"]', { hasText: "Commands: run in the sandbox" }).waitFor();
    // A command that waits for the test holds the turn; yolo runs it without a dialog.
    await a.locator('select[data-category="mode"]').selectOption("yolo");
    await a.locator('[data-role="sandbox"]', { hasText: "Commands: not sandboxed" }).waitFor();
    const prompt = a.getByRole("textbox", { name: "Prompt" });
    await prompt.fill("wait for the test");
    await prompt.press("Enter");
    await a.locator('[data-tool-call="hold"] .badge', { hasText: "in progress" }).waitFor();
    expect(await a.getByRole("button", { name: "Queue", exact: true }).isVisible()).toBe(true);
    expect(await a.getByRole("button", { name: "Steer" }).isVisible()).toBe(true);

    await prompt.fill("queued and dropped");
    await prompt.press("Enter");
    await prompt.fill("queued and kept");
    await a.getByRole("button", { name: "Queue", exact: true }).click();
    const waitingList = a.getByRole("list", { name: "Waiting messages" });
    await waitingList.locator(".waiting", { hasText: "queued and kept" }).waitFor();
    await waitingList.getByRole("button", { name: "Drop: queued and dropped" }).click();
    await a.locator(".note", { hasText: "Dropped before it started: queued and dropped" }).waitFor();

    await prompt.fill("steer this way");
    await a.getByRole("button", { name: "Steer" }).click();
    await waitingList.locator(".waiting", { hasText: "steering" }).waitFor();
    await shot(a, `queue-steer${suffix}`);
    await writeFile(join(sandbox.root, "hold.fifo"), "released\n");

    await a.locator(".entry.agent", { hasText: "answer to the queued prompt" }).waitFor();
    await waitingList.waitFor({ state: "hidden" });
    const order = await a.locator(".entry.user, .entry.agent").allTextContents();
    const at = (text: string) => order.findIndex((t) => t.includes(text));
    expect(at("wait for the test")).toBeLessThan(at("steer this way"));
    expect(at("steer this way")).toBeLessThan(at("heard the steer"));
    expect(at("heard the steer")).toBeLessThan(at("queued and kept"));
    expect(at("queued and kept")).toBeLessThan(at("answer to the queued prompt"));
    expect(at("queued and dropped")).toBe(-1);
    expect(await a.getByRole("button", { name: "Send" }).isVisible()).toBe(true);
    expect(await a.getByRole("button", { name: "Steer" }).isVisible()).toBe(false);
    await a.locator('select[data-category="mode"]').selectOption("ask");
  }, 60_000);

  test("reload brings the history back once", async () => {
    const count = (page: Page, text: string) => page.locator(".entry.user", { hasText: text }).count();
    const toolsBefore = await a.locator(".entry.tool").count();
    await a.reload();
    await a.locator("#status", { hasText: "connected" }).waitFor();
    await a.locator(".entry.user", { hasText: "slow please" }).waitFor();
    expect(await count(a, "hello from A")).toBe(1);
    expect(await count(a, "please write the notes")).toBe(1);
    expect(await a.locator(".entry.tool").count()).toBe(toolsBefore);
    expect(await a.locator(".entry.agent", { hasText: "answer to A" }).count()).toBe(1);
  }, 60_000);

  test("a dropped connection reconnects and shows the history once", async () => {
    // A fresh tab whose /apc sockets pass through playwright, so the test can drop one.
    const c = await chrome.context.newPage();
    const routed: { close(): Promise<void> }[] = [];
    await c.routeWebSocket(/\/apc/, (ws) => {
      ws.connectToServer();
      routed.push(ws);
    });
    await c.goto(`${server.url}/?session=${sessionId}#token=${encodeURIComponent(TOKEN)}`);
    await c.locator("#status", { hasText: "connected" }).waitFor();
    await c.locator(".entry.user", { hasText: "slow please" }).waitFor();
    const before = await c.locator(".entry").count();
    await routed[0]!.close();
    await waitFor(() => routed.length === 2, 20_000, "the console to reconnect");
    await c.locator("#status", { hasText: "connected" }).waitFor();
    await c.locator(".entry.user", { hasText: "slow please" }).waitFor();
    expect(await c.locator(".entry.user", { hasText: "hello from A" }).count()).toBe(1);
    expect(await c.locator(".entry").count()).toBe(before);
    await c.close();
  }, 60_000);

  test("markup in a model answer and in a file name is shown as text, in the transcript and in the permission dialog", async () => {
    const prompt = a.getByRole("textbox", { name: "Prompt" });
    await prompt.fill("show me markup");
    await prompt.press("Enter");
    const dialog = a.locator("dialog.permission[open]");
    await dialog.waitFor();
    expect(await dialog.textContent()).toContain(XSS_FILE);
    expect(await dialog.locator("img").count()).toBe(0);
    await dialog.getByRole("button", { name: "Reject", exact: true }).click();
    await a.locator(".entry.agent .body", { hasText: /^ok$/ }).waitFor();
    expect(await a.locator(".entry.agent", { hasText: XSS_TEXT }).count()).toBe(1);
    expect(await a.locator('[data-tool-call="x1"]').textContent()).toContain(XSS_FILE);
    expect(await a.locator("img").count()).toBe(0);
    expect(await a.locator("b").count()).toBe(0);
    expect(await a.evaluate(() => (window as unknown as { __pwned?: number }).__pwned)).toBeUndefined();
    expect(existsSync(join(sandbox.project, XSS_FILE))).toBe(false);
  }, 60_000);

  test("phone width: the list and the session view fit 390 px", async () => {
    for (const page of [a, b]) await page.setViewportSize({ width: 390, height: 844 });
    await b.reload();
    await b.locator(".entry.agent", { hasText: "Done:" }).waitFor();
    const overflow = (page: Page) => page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
    expect(await overflow(b)).toBe(0);
    await shot(b, `session-phone${suffix}`);
    await b.getByRole("link", { name: "← Sessions" }).click();
    await b.locator(".session", { hasText: "console demo" }).waitFor();
    expect(await overflow(b)).toBe(0);
    await shot(b, `sessions-phone${suffix}`);
  }, 60_000);

  test("the list: filter by directory, rename, delete with confirmation", async () => {
    await b.setViewportSize({ width: 1280, height: 860 });
    await b.getByLabel("Filter by directory").fill(sandbox.root);
    await b.getByRole("button", { name: "Filter" }).click();
    await b.getByText("No sessions in this directory.").waitFor();
    await b.getByLabel("Filter by directory").fill(sandbox.project);
    await b.getByRole("button", { name: "Filter" }).click();
    await b.locator(".session", { hasText: "an earlier session" }).waitFor();

    b.once("dialog", (dialog) => void dialog.accept("renamed in the console"));
    await b.getByRole("button", { name: "Rename an earlier session" }).click();
    await b.locator(".session", { hasText: "renamed in the console" }).waitFor();
    const listed = (await (await fetch(`${server.url}/v1/sessions`, { headers: bearer(TOKEN) })).json()) as { sessions: { title: string | null }[] };
    expect(listed.sessions.map((s) => s.title).sort()).toEqual(["console demo", "renamed in the console"]);

    b.once("dialog", (dialog) => void dialog.dismiss());
    await b.getByRole("button", { name: "Delete renamed in the console" }).click();
    expect(await b.locator(".session", { hasText: "renamed in the console" }).count()).toBe(1);
    b.once("dialog", (dialog) => void dialog.accept());
    await b.getByRole("button", { name: "Delete renamed in the console" }).click();
    await b.locator(".notice", { hasText: "Deleted." }).waitFor();
    expect(await b.locator(".session", { hasText: "renamed in the console" }).count()).toBe(0);
    expect((await fetch(`${server.url}/v1/sessions/${encodeURIComponent("renamed in the console")}`, { headers: bearer(TOKEN) })).status).toBe(404);
  }, 60_000);

  test("the model's questions open as forms: one choice, several, free text, declined; each answer reaches the model", async () => {
    // The tab the user looks at (a background tab's frames are throttled).
    await a.bringToFront();
    await a.setViewportSize({ width: 1280, height: 860 });
    const prompt = a.getByRole("textbox", { name: "Prompt" });
    await prompt.fill("ask me things");
    await prompt.press("Enter");

    const question = a.locator("dialog.question[open]");
    await question.locator("h2", { hasText: "Which colour?" }).waitFor();
    await shot(a, `question${suffix}`);
    await question.getByLabel("green").check();
    await question.getByRole("button", { name: "Send" }).click();

    await question.locator("h2", { hasText: "Which days?" }).waitFor();
    await question.getByLabel("mon").check();
    await question.getByLabel("wed").check();
    await question.getByRole("button", { name: "Send" }).click();

    await question.locator("h2", { hasText: "Any notes?" }).waitFor();
    await question.getByLabel("Your answer").fill("looks fine");
    await question.getByRole("button", { name: "Send" }).click();

    await question.locator("h2", { hasText: "Proceed?" }).waitFor();
    await question.getByRole("button", { name: "Decline" }).click();

    await a.locator(".entry.agent", { hasText: "asked everything" }).waitFor();
    expect(await a.locator('[data-tool-call="q1"]').textContent()).toContain('The user chose: "green"');
    expect(await a.locator('[data-tool-call="q2"]').textContent()).toContain('The user chose: "mon", "wed"');
    expect(await a.locator('[data-tool-call="q3"]').textContent()).toContain("The user answered:\nlooks fine");
    expect(await a.locator('[data-tool-call="q4"]').textContent()).toContain("The user declined to answer the question.");
    expect(await a.locator("dialog[open]").count()).toBe(0);
  }, 60_000);

  test("Undo asks first, then shows the conversation as the agent now has it: the last prompt and its answer are gone", async () => {
    a.once("dialog", (dialog) => void dialog.accept());
    await a.getByRole("button", { name: "Undo" }).click();
    await a.locator("p.note", { hasText: "Undone:" }).waitFor();
    await a.locator("#status", { hasText: "connected" }).waitFor();
    expect(await a.locator(".entry.agent", { hasText: "asked everything" }).count()).toBe(0);
    expect(await a.locator(".entry.user", { hasText: "ask me things" }).count()).toBe(0);
    await shot(a, `undo${suffix}`);
  }, 60_000);
});

