// The acp-edge console: a small ACP client in the browser. Plain JS, no
// framework: the page is a handful of views built with DOM calls, and every
// string from the server is set as text (never as HTML).

const SUBPROTOCOL = "agent-client-protocol.v1";
const TOKEN_KEY = "acp-edge.token";
const main = document.getElementById("main");
const statusLine = document.getElementById("status");
const signOutButton = document.getElementById("sign-out");

// ---------- DOM helpers ----------

/** Builds an element: attributes (on* become listeners), then children (strings become text). */
function h(tag, attrs = {}, ...children) {
  const el = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs)) {
    if (value === undefined || value === null || value === false) continue;
    if (key.startsWith("on")) el.addEventListener(key.slice(2), value);
    else if (key === "text") el.textContent = value;
    else if (key === "class") el.className = value;
    else el.setAttribute(key, value === true ? "" : String(value));
  }
  for (const child of children.flat()) if (child !== undefined && child !== null && child !== false) el.append(child);
  return el;
}

function setStatus(text) {
  statusLine.textContent = text;
}

// ---------- Token and HTTP ----------

/** Takes `#token=…` once, stores it for this tab and removes it from the address bar. */
function takeTokenFromFragment() {
  const match = /^#token=([^&]+)/.exec(location.hash);
  if (!match) return;
  sessionStorage.setItem(TOKEN_KEY, decodeURIComponent(match[1]));
  history.replaceState(history.state, "", location.pathname + location.search);
}

const token = () => sessionStorage.getItem(TOKEN_KEY);

class AuthError extends Error {}
class HttpError extends Error {
  constructor(status, code, message) {
    super(message);
    this.status = status;
    this.code = code;
  }
}

/** Calls the REST API with the token; a 401 signs out with a clear message. */
async function api(path, init = {}) {
  const response = await fetch(new URL(path, document.baseURI), {
    ...init,
    headers: { Authorization: `Bearer ${token()}`, ...(init.body ? { "Content-Type": "application/json" } : {}) },
  });
  if (response.status === 401) throw new AuthError("The server did not accept this token.");
  if (response.status === 204) return undefined;
  const body = await response.json().catch(() => ({}));
  if (!response.ok) throw new HttpError(response.status, body.error?.code ?? "error", body.error?.message ?? `HTTP ${response.status}`);
  return body;
}

function signOut(message) {
  sessionStorage.removeItem(TOKEN_KEY);
  current?.dispose();
  current = undefined;
  renderSignIn(message);
}

// ---------- JSON-RPC over WebSocket ----------

/** One ACP connection: requests with ids, notifications, and requests from the agent. */
class Rpc {
  constructor(path, handlers) {
    const url = new URL(path, document.baseURI);
    url.protocol = url.protocol === "https:" ? "wss:" : "ws:";
    this.handlers = handlers;
    this.pending = new Map();
    this.nextId = 1;
    this.ws = new WebSocket(url, [SUBPROTOCOL, `acp.bearer.${token()}`]);
    this.opened = new Promise((resolve, reject) => {
      this.ws.addEventListener("open", resolve, { once: true });
      this.ws.addEventListener("close", () => reject(new Error("the connection was refused")), { once: true });
    });
    this.ws.addEventListener("message", (event) => this.#receive(event.data));
    this.ws.addEventListener("close", (event) => {
      for (const { reject } of this.pending.values()) reject(new Error("the connection closed"));
      this.pending.clear();
      this.handlers.close?.(event);
    });
  }

  /** Sends a request; the promise carries its `id` (to cancel it with `$/cancel_request`). */
  request(method, params) {
    const id = this.nextId++;
    this.ws.send(JSON.stringify({ jsonrpc: "2.0", id, method, params }));
    const answer = new Promise((resolve, reject) => this.pending.set(id, { resolve, reject }));
    answer.id = id;
    return answer;
  }

  notify(method, params) {
    if (this.ws.readyState === WebSocket.OPEN) this.ws.send(JSON.stringify({ jsonrpc: "2.0", method, params }));
  }

  respond(id, result) {
    if (this.ws.readyState === WebSocket.OPEN) this.ws.send(JSON.stringify({ jsonrpc: "2.0", id, result }));
  }

  close() {
    this.handlers = {};
    this.ws.close(1000);
  }

  #receive(data) {
    let message;
    try {
      message = JSON.parse(data);
    } catch {
      return;
    }
    if (message.method && message.id !== undefined) return this.handlers.request?.(message);
    if (message.method) return this.handlers.notification?.(message);
    const waiter = this.pending.get(message.id);
    if (!waiter) return;
    this.pending.delete(message.id);
    if (message.error) {
      const error = new Error(message.error.message);
      error.code = message.error.code;
      error.data = message.error.data;
      waiter.reject(error);
    } else waiter.resolve(message.result);
  }
}

/** Opens `/apc` for a session, initializes and binds it; `load` replays the history. */
async function attach(session, handlers, how = "session/load") {
  const rpc = new Rpc(`v1/session/${encodeURIComponent(session.id)}/apc?generation=${session.generation}`, handlers);
  await rpc.opened;
  // Forms: the agent's `ask` tool puts its questions to the console as elicitation forms.
  await rpc.request("initialize", { protocolVersion: 1, clientCapabilities: { elicitation: { form: {} } }, clientInfo: { name: "acp-edge-console", version: "1" } });
  const bound = await rpc.request(how, { sessionId: session.id, cwd: session.cwd, mcpServers: [] });
  return { rpc, bound };
}

/** Renames a session with the `/name` command over a short-lived `/apc` connection. */
async function renameSession(session, title) {
  const { rpc } = await attach(session, {}, "session/resume");
  try {
    await rpc.request("session/prompt", { sessionId: session.id, prompt: [{ type: "text", text: `/name ${title}` }] });
  } finally {
    rpc.close();
  }
}

// ---------- Markdown (to DOM nodes, never to HTML) ----------

/** Appends inline Markdown (code, bold, emphasis, links) as text and elements. */
function inline(parent, text) {
  const pattern = /(`+)([^`]|[^`][\s\S]*?[^`])\1(?!`)|\*\*([^*]+)\*\*|\*([^*\s][^*]*)\*|\[([^\]]+)\]\(([^)\s]+)\)/g;
  let last = 0;
  for (const m of text.matchAll(pattern)) {
    parent.append(text.slice(last, m.index));
    if (m[1]) parent.append(h("code", { text: m[2] }));
    else if (m[3]) parent.append(h("strong", { text: m[3] }));
    else if (m[4]) parent.append(h("em", { text: m[4] }));
    else if (/^https?:\/\//i.test(m[6])) parent.append(h("a", { href: m[6], rel: "noopener noreferrer", target: "_blank", text: m[5] }));
    else parent.append(m[0]);
    last = m.index + m[0].length;
  }
  parent.append(text.slice(last));
}

/** Renders Markdown blocks: fenced code, headings, lists, quotes, paragraphs. */
function markdown(text) {
  const root = h("div", { class: "md" });
  const lines = text.split("\n");
  let i = 0;
  while (i < lines.length) {
    const line = lines[i];
    const fence = /^\s*(```+|~~~+)\s*([\w+.-]*)/.exec(line);
    if (fence) {
      const body = [];
      i += 1;
      while (i < lines.length && !lines[i].trim().startsWith(fence[1])) body.push(lines[i++]);
      i += 1;
      root.append(h("pre", { class: "code" }, h("code", { "data-lang": fence[2] || undefined, text: body.join("\n") })));
      continue;
    }
    const heading = /^(#{1,6})\s+(.*)$/.exec(line);
    if (heading) {
      const el = h(`h${Math.min(heading[1].length + 2, 6)}`);
      inline(el, heading[2]);
      root.append(el);
      i += 1;
      continue;
    }
    const item = /^\s*([-*+]|\d+[.)])\s+/;
    if (item.test(line)) {
      const ordered = /\d/.test(item.exec(line)[1]);
      const list = h(ordered ? "ol" : "ul");
      while (i < lines.length && item.test(lines[i])) {
        const li = h("li");
        inline(li, lines[i].replace(item, ""));
        list.append(li);
        i += 1;
      }
      root.append(list);
      continue;
    }
    if (/^>\s?/.test(line)) {
      const quote = h("blockquote");
      const body = [];
      while (i < lines.length && /^>\s?/.test(lines[i])) body.push(lines[i++].replace(/^>\s?/, ""));
      inline(quote, body.join("\n"));
      root.append(quote);
      continue;
    }
    if (!line.trim()) {
      i += 1;
      continue;
    }
    const body = [];
    while (i < lines.length && lines[i].trim() && !/^\s*(```|~~~|#{1,6}\s|>|[-*+]\s|\d+[.)]\s)/.test(lines[i])) body.push(lines[i++]);
    if (!body.length) body.push(lines[i++]);
    const p = h("p");
    inline(p, body.join("\n"));
    root.append(p);
  }
  return root;
}

// ---------- Diffs ----------

/** A unified line diff (LCS); very large inputs fall back to old-then-new. */
function diffLines(oldText, newText) {
  const a = (oldText ?? "").split("\n");
  const b = (newText ?? "").split("\n");
  if (oldText === null || oldText === undefined) return b.map((t) => ["+", t]);
  if (a.length * b.length > 4_000_000) return [...a.map((t) => ["-", t]), ...b.map((t) => ["+", t])];
  const table = Array.from({ length: a.length + 1 }, () => new Uint32Array(b.length + 1));
  for (let x = a.length - 1; x >= 0; x--) for (let y = b.length - 1; y >= 0; y--) table[x][y] = a[x] === b[y] ? table[x + 1][y + 1] + 1 : Math.max(table[x + 1][y], table[x][y + 1]);
  const out = [];
  let x = 0;
  let y = 0;
  while (x < a.length || y < b.length) {
    if (x < a.length && y < b.length && a[x] === b[y]) out.push([" ", a[x++]]), y++;
    else if (y < b.length && (x >= a.length || table[x][y + 1] >= table[x + 1][y])) out.push(["+", b[y++]]);
    else out.push(["-", a[x++]]);
  }
  // Keep three lines of context around changes.
  const keep = out.map((_, n) => out.slice(Math.max(0, n - 3), n + 4).some(([s]) => s !== " "));
  const shown = [];
  out.forEach((line, n) => {
    if (keep[n]) shown.push(line);
    else if (keep[n - 1]) shown.push(["…", ""]);
  });
  return shown;
}

function renderDiff(item) {
  const lines = diffLines(item.oldText, item.newText);
  return h(
    "figure",
    { class: "diff" },
    h("figcaption", { text: item.path }),
    h("pre", {}, lines.map(([sign, text]) => h("span", { class: sign === "+" ? "add" : sign === "-" ? "del" : "ctx", text: `${sign} ${text}\n` }))),
  );
}

// ---------- Sign in ----------

function renderSignIn(message) {
  signOutButton.hidden = true;
  setStatus("");
  const input = h("input", { id: "token", type: "password", autocomplete: "current-password", required: true, spellcheck: "false" });
  const form = h(
    "form",
    {
      class: "card sign-in",
      onsubmit: (event) => {
        event.preventDefault();
        sessionStorage.setItem(TOKEN_KEY, input.value.trim());
        route();
      },
    },
    h("h1", { text: "Sign in" }),
    h("p", { text: "Paste the bearer token of this agent serve (its token file, or ACP_EDGE_TOKEN)." }),
    message ? h("p", { class: "error", role: "alert", text: message }) : null,
    h("label", { for: "token", text: "Token" }),
    input,
    h("button", { type: "submit", text: "Sign in" }),
  );
  main.replaceChildren(form);
  input.focus();
}

// ---------- Sessions list ----------

function when(iso) {
  const date = new Date(iso);
  return Number.isNaN(date.getTime()) ? String(iso) : date.toLocaleString();
}

function go(search) {
  history.pushState(null, "", search || location.pathname);
  route();
}

function renderList() {
  document.title = "Sessions · acp-edge";
  setStatus("");
  const state = { cwd: new URLSearchParams(location.search).get("cwd") ?? "", cursor: undefined, activity: {} };
  const rows = h("ul", { class: "sessions", "aria-label": "Sessions" });
  const more = h("button", { type: "button", hidden: true, text: "Load more", onclick: () => load(false) });
  const notice = h("p", { class: "notice", role: "status" });
  const filter = h("input", { id: "filter", type: "search", placeholder: "/path/to/project", value: state.cwd, spellcheck: "false" });
  const newCwd = h("input", { id: "new-cwd", required: true, placeholder: "/path/to/project", value: state.cwd, spellcheck: "false" });
  const newTitle = h("input", { id: "new-title", placeholder: "optional", maxlength: 200 });

  const row = (s) => {
    const live = state.activity[s.id];
    const title = s.title ?? "untitled";
    return h(
      "li",
      { class: "session", "data-id": s.id },
      h("a", { class: "title", href: `?session=${encodeURIComponent(s.id)}`, onclick: (e) => (e.preventDefault(), go(`?session=${encodeURIComponent(s.id)}`)), text: title }),
      h("span", { class: "cwd", text: s.cwd }),
      h("span", { class: "meta" }, h("time", { datetime: s.updatedAt, text: when(s.updatedAt) }), " · ", h("span", { class: live?.running ? "badge running" : "badge", text: live?.running ? "running" : "idle" }), ` · ${live?.clients ?? 0} attached`),
      h(
        "span",
        { class: "actions" },
        h("button", {
          type: "button",
          text: "Rename",
          "aria-label": `Rename ${title}`,
          onclick: async () => {
            const next = prompt("New title", s.title ?? "");
            if (!next?.trim()) return;
            await act(() => renameSession(s, next.trim()), "Renamed.");
          },
        }),
        h("button", {
          type: "button",
          class: "danger",
          text: "Delete",
          "aria-label": `Delete ${title}`,
          onclick: async () => {
            if (!confirm(`Delete the session "${title}" in ${s.cwd}? This cannot be undone.`)) return;
            await act(() => api(`v1/sessions/${encodeURIComponent(s.id)}`, { method: "DELETE" }), "Deleted.");
          },
        }),
      ),
    );
  };

  async function act(fn, done) {
    try {
      await fn();
      await load(true);
      notice.textContent = done;
    } catch (error) {
      fail(error);
    }
  }

  function fail(error) {
    if (error instanceof AuthError) return signOut(error.message);
    notice.textContent = error.message;
  }

  async function load(fresh) {
    try {
      if (fresh) state.cursor = undefined;
      const query = new URLSearchParams();
      if (state.cwd) query.set("cwd", state.cwd);
      if (state.cursor) query.set("cursor", state.cursor);
      const [page, activity] = await Promise.all([api(`v1/sessions?${query}`), api("console/activity")]);
      state.activity = activity.sessions;
      if (fresh) rows.replaceChildren();
      rows.append(...page.sessions.map(row));
      if (fresh && !page.sessions.length) rows.append(h("li", { class: "empty", text: state.cwd ? "No sessions in this directory." : "No sessions yet." }));
      state.cursor = page.nextCursor;
      more.hidden = !page.nextCursor;
      signOutButton.hidden = false;
    } catch (error) {
      fail(error);
    }
  }

  main.replaceChildren(
    h("h1", { text: "Sessions" }),
    h(
      "div",
      { class: "forms" },
      h(
        "form",
        {
          class: "card",
          role: "search",
          onsubmit: (e) => {
            e.preventDefault();
            state.cwd = filter.value.trim();
            history.replaceState(null, "", state.cwd ? `?cwd=${encodeURIComponent(state.cwd)}` : location.pathname);
            load(true);
          },
        },
        h("label", { for: "filter", text: "Filter by directory" }),
        h("span", { class: "inline" }, filter, h("button", { type: "submit", text: "Filter" })),
      ),
      h(
        "form",
        {
          class: "card",
          onsubmit: async (e) => {
            e.preventDefault();
            try {
              const title = newTitle.value.trim();
              const created = await api("v1/sessions", { method: "POST", body: JSON.stringify({ cwd: newCwd.value.trim(), ...(title ? { title } : {}) }) });
              go(`?session=${encodeURIComponent(created.id)}`);
            } catch (error) {
              fail(error);
            }
          },
        },
        h("label", { for: "new-cwd", text: "New session in directory" }),
        newCwd,
        h("label", { for: "new-title", text: "Title" }),
        h("span", { class: "inline" }, newTitle, h("button", { type: "submit", text: "Create" })),
      ),
    ),
    notice,
    rows,
    more,
  );
  load(true);
  return { dispose() {} };
}

// ---------- Session view ----------

const KIND_LABEL = { read: "read", edit: "edit", delete: "delete", move: "move", search: "search", execute: "run", think: "think", fetch: "fetch", switch_mode: "mode", other: "tool" };

function renderSession(ref) {
  const view = {
    session: undefined,
    rpc: undefined,
    disposed: false,
    commands: [],
    tools: new Map(),
    run: undefined, // the text entry that chunks of the same kind append to
    retries: 0,
    running: false,
    // This tab's prompts not answered yet ({ text, started, item }), and steering messages not landed yet ({ text, item }).
    mine: [],
    steering: [],
  };
  const title = h("h1", { class: "session-title", text: "Session" });
  const cwd = h("p", { class: "cwd" });
  const usage = h("p", { class: "usage", "aria-label": "Usage" });
  const plan = h("ol", { class: "plan" });
  const planBox = h("section", { class: "plan-box", hidden: true, "aria-label": "Plan" }, h("h2", { text: "Plan" }), plan);
  const log = h("div", { class: "transcript", role: "log", "aria-live": "polite", "aria-label": "Conversation" });
  const selectors = h("div", { class: "selectors" });
  const input = h("textarea", { id: "prompt", rows: 3, placeholder: "Message — Enter sends (queues while a turn runs), Alt+Enter steers, Shift+Enter for a new line, Escape cancels", "aria-label": "Prompt", disabled: true });
  const completion = h("ul", { class: "completion", role: "listbox", id: "commands", hidden: true, "aria-label": "Commands" });
  input.setAttribute("aria-controls", "commands");
  const send = h("button", { type: "submit", text: "Send", disabled: true });
  const steer = h("button", { type: "button", text: "Steer", hidden: true, title: "Add this to the running turn before its next step (Alt+Enter)", onclick: () => steerTurn(input.value) });
  const queue = h("ul", { class: "queue", "aria-label": "Waiting messages", hidden: true });
  const cancel = h("button", { type: "button", class: "danger", text: "Cancel", disabled: true, onclick: () => cancelTurn() });
  const rename = h("button", {
    type: "button",
    text: "Rename",
    onclick: () => {
      const next = prompt("New title", view.session?.title ?? "");
      if (next?.trim()) sendPrompt(`/name ${next.trim()}`);
    },
  });
  // Going back: the files the agent changed and the conversation, as `/undo` and `/rewind N` do in any editor.
  const undo = h("button", {
    type: "button",
    text: "Undo",
    title: "Take the last prompt out of the conversation and put back the files the agent changed for it",
    onclick: () => {
      if (confirm("Undo the last prompt? Its answer leaves the conversation and the files the agent changed for it are put back (files you changed since are left as they are).")) goBack("/undo");
    },
  });
  const rewindButton = h("button", {
    type: "button",
    text: "Rewind",
    title: "Go back to before an earlier prompt: files and conversation",
    onclick: async () => {
      await sendPrompt("/rewind");
      const n = prompt("Go back to before which prompt? (its number in the list above)");
      if (n?.trim()) goBack(`/rewind ${n.trim()}`);
    },
  });
  const back = h("a", { href: "./", onclick: (e) => (e.preventDefault(), go("")), text: "← Sessions" });
  const form = h(
    "form",
    {
      class: "composer",
      onsubmit: (e) => {
        e.preventDefault();
        sendPrompt(input.value);
      },
    },
    selectors,
    queue,
    completion,
    input,
    h("span", { class: "inline buttons" }, send, steer, cancel),
  );
  main.replaceChildren(
    h("nav", { class: "crumbs" }, back, rename, undo, rewindButton),
    title,
    cwd,
    usage,
    h("div", { class: "session-body" }, log, planBox),
    form,
  );

  const scrollDown = () => {
    if (log.scrollHeight - log.scrollTop - log.clientHeight < 160) log.scrollTop = log.scrollHeight;
  };

  function note(text, kind = "note") {
    view.run = undefined;
    log.append(h("p", { class: kind, role: kind === "error" ? "alert" : undefined, text }));
    scrollDown();
  }

  function setRunning(running) {
    view.running = running;
    cancel.disabled = !view.rpc;
    form.classList.toggle("running", running);
    // While this tab's turn runs, Enter queues the next prompt; Steer adds to the running turn.
    send.textContent = running ? "Queue" : "Send";
    steer.hidden = !running;
    steer.disabled = !view.rpc;
  }

  /** Shows a waiting message under the transcript; `drop`, when given, offers to take it back. */
  function waiting(text, label, drop) {
    const item = h(
      "li",
      { class: "waiting" },
      h("span", { class: "badge", text: label }),
      h("span", { class: "waiting-text", text }),
      drop ? h("button", { type: "button", class: "danger", text: "Drop", "aria-label": `Drop: ${text}`, onclick: drop }) : null,
    );
    queue.append(item);
    queue.hidden = false;
    return item;
  }

  function unlist(item) {
    item?.remove();
    queue.hidden = queue.children.length === 0;
  }

  /** A user message shown by the server: this tab's steered or queued one starting now (then it moves here), or someone else's. */
  function userChunk(text, messageId) {
    const steered = view.steering.findIndex((s) => s.text === text);
    const queued = steered < 0 ? view.mine.find((m) => !m.started && m.text === text) : undefined;
    // One of this tab's prompts that waited behind another client's turn: it moves to where its turn starts.
    const moved = steered < 0 && !queued ? view.mine.find((m) => m.entry && m.text === text && !m.echoed) : undefined;
    if (steered >= 0) unlist(view.steering.splice(steered, 1)[0].item);
    if (queued) {
      queued.started = true;
      unlist(queued.item);
    }
    if (moved) {
      moved.echoed = true;
      view.run = undefined;
      log.append(moved.entry);
      return scrollDown();
    }
    chunk("user", text, messageId, steered >= 0 || queued ? "You" : undefined);
    if (queued) view.run = undefined;
  }

  /** Appends a chunk to the open entry of that kind, or starts a new one. */
  function chunk(kind, text, messageId, who) {
    if (!view.run || view.run.kind !== kind || (messageId && view.run.messageId && view.run.messageId !== messageId)) {
      const body = h("div", { class: "body" });
      let el;
      if (kind === "thought") el = h("details", { class: "entry thought" }, h("summary", { text: "Thinking" }), body);
      else el = h("article", { class: `entry ${kind}` }, h("h2", { class: "who", text: who ?? (kind === "user" ? "User" : "Agent") }), body);
      log.append(el);
      view.run = { kind, messageId, text: "", body, el };
    }
    view.run.text += text;
    view.run.messageId ??= messageId;
    if (kind === "agent") view.run.body.replaceChildren(markdown(view.run.text));
    else view.run.body.textContent = view.run.text;
    scrollDown();
  }

  function toolCard(id) {
    let tool = view.tools.get(id);
    if (!tool) {
      const el = h("article", { class: "entry tool", "data-tool-call": id });
      tool = { el, data: { toolCallId: id }, output: "" };
      view.tools.set(id, tool);
      log.append(el);
      view.run = undefined;
    }
    return tool;
  }

  function renderTool(tool) {
    const d = tool.data;
    const parts = [
      h("header", {}, h("span", { class: "kind", text: KIND_LABEL[d.kind] ?? "tool" }), h("span", { class: "tool-title", text: d.title ?? d.toolCallId }), h("span", { class: `badge ${d.status ?? "pending"}`, text: (d.status ?? "pending").replace("_", " ") })),
    ];
    if (d.locations?.length) parts.push(h("ul", { class: "locations" }, d.locations.map((l) => h("li", { text: l.line ? `${l.path}:${l.line}` : l.path }))));
    if (d.kind === "execute" && typeof d.rawInput?.command === "string") parts.push(h("pre", { class: "command", text: `$ ${d.rawInput.command}` }));
    for (const item of d.content ?? []) {
      if (item.type === "diff") parts.push(renderDiff(item));
      else if (item.type === "content" && item.content?.type === "text") parts.push(h("pre", { class: "output", text: item.content.text }));
    }
    if (tool.output) parts.push(h("pre", { class: "output live", text: tool.output }));
    if (tool.exit) parts.push(h("p", { class: "exit", text: tool.exit.signal ? `ended by ${tool.exit.signal}` : `exit code ${tool.exit.exit_code}` }));
    tool.el.replaceChildren(...parts);
    scrollDown();
  }

  function onUpdate(update) {
    switch (update.sessionUpdate) {
      case "user_message_chunk":
        if (update.content?.type === "text") userChunk(update.content.text, update.messageId);
        break;
      case "agent_message_chunk":
        if (update.content?.type === "text") chunk("agent", update.content.text, update.messageId);
        break;
      case "agent_thought_chunk":
        if (update.content?.type === "text") chunk("thought", update.content.text, update.messageId);
        break;
      case "tool_call":
      case "tool_call_update": {
        const tool = toolCard(update.toolCallId);
        const { sessionUpdate, _meta, ...fields } = update;
        for (const [key, value] of Object.entries(fields)) if (value !== undefined && value !== null) tool.data[key] = value;
        if (_meta?.terminal_output) tool.output = (tool.output + _meta.terminal_output.data).slice(-20_000);
        if (_meta?.terminal_exit) tool.exit = _meta.terminal_exit;
        renderTool(tool);
        break;
      }
      case "plan":
        planBox.hidden = !update.entries.length;
        plan.replaceChildren(...update.entries.map((e) => h("li", { class: `plan-${e.status}`, text: `${e.status === "completed" ? "✓" : e.status === "in_progress" ? "▸" : "○"} ${e.content}` })));
        break;
      case "usage_update": {
        const k = (n) => (n >= 10_000 ? `${Math.round(n / 1000)}k` : String(n));
        usage.textContent = `${k(update.used)} of ${k(update.size)} tokens${update.cost ? ` · ${update.cost.currency === "USD" ? "$" : ""}${update.cost.amount.toFixed(4)}${update.cost.currency === "USD" ? "" : ` ${update.cost.currency}`}` : ""}`;
        break;
      }
      case "available_commands_update":
        view.commands = update.availableCommands ?? [];
        break;
      case "config_option_update":
        renderSelectors(update.configOptions);
        break;
      case "current_mode_update": {
        const select = selectors.querySelector('select[data-category="mode"]');
        if (select) select.value = update.currentModeId;
        break;
      }
      case "session_info_update":
        if (update.title !== undefined) setTitle(update.title);
        break;
      default:
        break;
    }
  }

  function setTitle(text) {
    if (view.session) view.session.title = text;
    title.textContent = text || "untitled";
    document.title = `${text || "untitled"} · acp-edge`;
  }

  function renderSelectors(options = []) {
    selectors.replaceChildren(
      ...options
        .filter((o) => o.type === "select")
        .map((o) => {
          const id = `config-${o.id}`;
          const flat = (o.options ?? []).flatMap((x) => (x.options ? x.options : [x]));
          const select = h(
            "select",
            {
              id,
              "data-category": o.category,
              onchange: async () => {
                try {
                  const result = await view.rpc.request("session/set_config_option", { sessionId: view.session.id, configId: o.id, value: select.value });
                  renderSelectors(result.configOptions);
                } catch (error) {
                  note(`Could not change ${o.name}: ${error.message}`, "error");
                }
              },
            },
            flat.map((x) => h("option", { value: x.value, text: x.name })),
          );
          select.value = o.currentValue;
          // The mode's description says whether commands run in the sandbox now.
          const note = o.category === "mode" && o.description ? h("small", { class: "option-note", "data-role": "sandbox", text: o.description }) : null;
          return h("label", { for: id, title: o.description ?? "" }, h("span", { text: o.name }), select, note);
        }),
    );
  }

  // ----- permissions -----
  const dialogs = new Map();

  function onPermission(message) {
    const { toolCall, options, _meta } = message.params;
    const tool = view.tools.get(toolCall.toolCallId)?.data ?? {};
    const merged = { ...tool, ...toolCall };
    const timer = h("p", { class: "remaining", "aria-live": "off" });
    const dialog = h(
      "dialog",
      { class: "permission", "aria-labelledby": `perm-${message.id}` },
      h("h2", { id: `perm-${message.id}`, text: `Allow: ${merged.title ?? "a tool call"}?` }),
      merged.kind === "execute" && typeof merged.rawInput?.command === "string" ? h("pre", { class: "command", text: `$ ${merged.rawInput.command}` }) : null,
      (merged.content ?? []).filter((c) => c.type === "diff").map(renderDiff),
      // A command that asks to leave the sandbox: the model's reason.
      (merged.content ?? []).filter((c) => c.type === "content" && c.content?.type === "text").map((c) => h("p", { class: "reason", text: c.content.text })),
      merged.locations?.length ? h("ul", { class: "locations" }, merged.locations.map((l) => h("li", { text: l.path }))) : null,
      timer,
      h(
        "div",
        { class: "options" },
        options.map((o) => h("button", { type: "button", class: o.kind.startsWith("reject") ? "danger" : "", "data-option": o.optionId, text: o.name, onclick: () => answer({ outcome: "selected", optionId: o.optionId }) })),
      ),
    );
    const expires = Date.parse(_meta?.["acp-edge/expiresAt"] ?? "");
    const tick = () => {
      if (Number.isNaN(expires)) return;
      const left = Math.max(0, Math.round((expires - Date.now()) / 1000));
      timer.textContent = `${Math.floor(left / 60)}:${String(left % 60).padStart(2, "0")} left to answer`;
    };
    tick();
    const interval = setInterval(tick, 1000);
    const close = () => {
      clearInterval(interval);
      dialogs.delete(message.id);
      dialog.close();
      dialog.remove();
    };
    const answer = (outcome) => {
      view.rpc?.respond(message.id, { outcome });
      close();
    };
    dialog.addEventListener("cancel", (e) => (e.preventDefault(), answer({ outcome: "cancelled" })));
    dialogs.set(message.id, close);
    document.body.append(dialog);
    dialog.showModal();
  }

  // ----- questions (elicitation forms) -----

  /** One field of a form: choices as radio buttons or check boxes, text, a number, a yes/no box. */
  function formField(name, schema, required, n) {
    const id = `q-${n}-${name}`;
    const label = schema.title ?? name;
    const about = schema.description ? h("p", { class: "note", text: schema.description }) : null;
    const options = (list) => (list ?? []).map((o) => (typeof o === "string" ? { value: o, text: o } : { value: o.const, text: o.title ?? o.const }));
    if (schema.type === "string" && (schema.enum || schema.oneOf)) {
      const choices = options(schema.enum ?? schema.oneOf);
      return {
        el: h("fieldset", {}, h("legend", { text: label }), about, choices.map((c, i) => h("label", { class: "choice" }, h("input", { type: "radio", name: id, value: c.value, required: required && i === 0, checked: schema.default === c.value }), c.text))),
        read: (form) => form.querySelector(`input[name="${id}"]:checked`)?.value,
      };
    }
    if (schema.type === "array") {
      const choices = options(schema.items?.enum ?? schema.items?.anyOf);
      return {
        el: h("fieldset", {}, h("legend", { text: label }), about, choices.map((c) => h("label", { class: "choice" }, h("input", { type: "checkbox", name: id, value: c.value, checked: schema.default?.includes(c.value) }), c.text))),
        read: (form) => [...form.querySelectorAll(`input[name="${id}"]:checked`)].map((box) => box.value),
      };
    }
    if (schema.type === "boolean") {
      const box = h("input", { id, type: "checkbox", checked: schema.default === true });
      return { el: h("label", { class: "choice", for: id }, box, label), read: () => box.checked };
    }
    if (schema.type === "number" || schema.type === "integer") {
      const input = h("input", { id, type: "number", step: schema.type === "integer" ? 1 : "any", min: schema.minimum, max: schema.maximum, required, value: schema.default });
      return { el: h("label", { for: id }, h("span", { text: label }), about, input), read: () => (input.value === "" ? undefined : Number(input.value)) };
    }
    const text = h("textarea", { id, rows: 3, required, minlength: schema.minLength, maxlength: schema.maxLength, text: schema.default ?? "" });
    return { el: h("label", { for: id }, h("span", { text: label }), about, text), read: () => text.value };
  }

  /** An `elicitation/create` in form mode as a modal form: Send accepts, Decline declines, Escape dismisses. */
  function onElicitation(message) {
    const { mode, message: question, requestedSchema } = message.params ?? {};
    if (mode !== "form") {
      view.rpc?.ws.send(JSON.stringify({ jsonrpc: "2.0", id: message.id, error: { code: -32602, message: "the console answers form elicitations only" } }));
      return;
    }
    const required = new Set(requestedSchema?.required ?? []);
    const fields = Object.entries(requestedSchema?.properties ?? {}).map(([name, schema], n) => ({ name, ...formField(name, schema ?? {}, required.has(name), n) }));
    const answer = (result) => {
      view.rpc?.respond(message.id, result);
      close();
    };
    const form = h(
      "form",
      {
        onsubmit: (event) => {
          event.preventDefault();
          const content = {};
          for (const field of fields) {
            const value = field.read(form);
            if (value !== undefined) content[field.name] = value;
          }
          answer({ action: "accept", content });
        },
      },
      fields.map((f) => f.el),
      h("div", { class: "options" }, h("button", { type: "submit", text: "Send" }), h("button", { type: "button", class: "danger", text: "Decline", onclick: () => answer({ action: "decline" }) })),
    );
    const dialog = h("dialog", { class: "permission question", "aria-labelledby": `ask-${message.id}` }, h("h2", { id: `ask-${message.id}`, text: question ?? "A question" }), form);
    const close = () => {
      dialogs.delete(message.id);
      dialog.close();
      dialog.remove();
    };
    dialog.addEventListener("cancel", (e) => (e.preventDefault(), answer({ action: "cancel" })));
    dialogs.set(message.id, close);
    document.body.append(dialog);
    dialog.showModal();
  }

  function closeDialogs() {
    for (const close of [...dialogs.values()]) close();
  }

  // ----- prompt, cancel, completion -----
  async function sendPrompt(text) {
    if (!text.trim() || !view.rpc) return;
    input.value = "";
    hideCompletion();
    // Behind this tab's own turn it waits in the queue (shown below, with Drop) until the server shows it starting.
    const mine = { text, started: !view.running };
    if (mine.started) {
      chunk("user", text, undefined, "You");
      mine.entry = view.run.el;
      view.run = undefined;
    } else mine.item = waiting(text, "queued", () => view.rpc?.notify("$/cancel_request", { requestId: mine.id }));
    view.mine.push(mine);
    setRunning(true);
    try {
      const answer = view.rpc.request("session/prompt", { sessionId: view.session.id, prompt: [{ type: "text", text }] });
      mine.id = answer.id;
      const result = await answer;
      if (result.stopReason === "cancelled" && !mine.started) note(`Dropped before it started: ${text}`);
      else if (result.stopReason !== "end_turn") note(`Turn ended: ${result.stopReason.replace("_", " ")}.`);
    } catch (error) {
      if (error.data?.code === "queue_full") {
        mine.entry?.classList.add("not-sent");
        input.value = text;
        note(`Not sent: ${error.message}`, "busy");
      } else if (view.rpc) note(`The prompt failed: ${error.message}`, "error");
    } finally {
      unlist(mine.item);
      view.mine.splice(view.mine.indexOf(mine), 1);
      view.run = undefined;
      setRunning(view.mine.length > 0);
    }
  }

  /** Adds `text` to the running turn; when no turn can take it any more, sends it as a prompt instead. */
  async function steerTurn(text) {
    if (!text.trim() || !view.rpc) return;
    input.value = "";
    hideCompletion();
    const pending = { text, item: waiting(text, "steering") };
    view.steering.push(pending);
    const forget = () => {
      const at = view.steering.indexOf(pending);
      if (at >= 0) view.steering.splice(at, 1);
      unlist(pending.item);
    };
    try {
      const params = { sessionId: view.session.id, prompt: [{ type: "text", text }], _meta: { steering: { idleBehavior: "promptRequired" } } };
      const answer = await view.rpc.request("_session/steering", params);
      // Injected: it stays listed until the server shows it joining the conversation.
      if (answer.outcome === "promptRequired") {
        forget();
        sendPrompt(text);
      }
    } catch (error) {
      forget();
      input.value = text;
      note(`Not steered: ${error.message}`, error.data?.code === "queue_full" ? "busy" : "error");
    }
  }

  /** Runs `/undo` or `/rewind N`, then shows the conversation again as the agent now has it, with the command's answer. */
  async function goBack(command) {
    if (!view.rpc) return;
    await sendPrompt(command);
    const answer = [...log.querySelectorAll(".entry.agent .body")].at(-1)?.textContent ?? "";
    if (!view.rpc || !/^(Undone|Rewound)/.test(answer)) return;
    view.reloadNote = answer;
    const rpc = view.rpc;
    view.rpc = undefined;
    rpc.close();
    connect();
  }

  function cancelTurn() {
    if (view.rpc && view.session) view.rpc.notify("session/cancel", { sessionId: view.session.id });
  }

  function matches() {
    const m = /^\/(\S*)$/.exec(input.value);
    return m ? view.commands.filter((c) => c.name.startsWith(m[1])) : [];
  }

  function showCompletion() {
    const found = matches();
    completion.hidden = !found.length;
    completion.replaceChildren(
      ...found.map((c, n) =>
        h("li", { role: "option", id: `cmd-${n}`, "aria-selected": n === 0 ? "true" : "false", onmousedown: (e) => (e.preventDefault(), accept(c)) }, h("strong", { text: `/${c.name}` }), ` ${c.description ?? ""}`),
      ),
    );
    input.setAttribute("aria-expanded", String(!completion.hidden));
  }

  function hideCompletion() {
    completion.hidden = true;
    input.setAttribute("aria-expanded", "false");
  }

  function accept(command) {
    input.value = `/${command.name} `;
    hideCompletion();
    input.focus();
  }

  function moveSelection(step) {
    const items = [...completion.children];
    const at = items.findIndex((li) => li.getAttribute("aria-selected") === "true");
    const next = (at + step + items.length) % items.length;
    items.forEach((li, n) => li.setAttribute("aria-selected", String(n === next)));
    input.setAttribute("aria-activedescendant", items[next].id);
  }

  input.addEventListener("input", showCompletion);
  input.addEventListener("keydown", (e) => {
    const open = !completion.hidden;
    if (open && (e.key === "ArrowDown" || e.key === "ArrowUp")) {
      e.preventDefault();
      moveSelection(e.key === "ArrowDown" ? 1 : -1);
    } else if (open && (e.key === "Tab" || (e.key === "Enter" && !e.shiftKey))) {
      e.preventDefault();
      const at = [...completion.children].findIndex((li) => li.getAttribute("aria-selected") === "true");
      accept(matches()[Math.max(0, at)]);
    } else if (e.key === "Enter" && e.altKey && !e.isComposing) {
      e.preventDefault();
      if (view.running) steerTurn(input.value);
      else sendPrompt(input.value);
    } else if (e.key === "Enter" && !e.shiftKey && !e.isComposing) {
      e.preventDefault();
      sendPrompt(input.value);
    } else if (e.key === "Escape") {
      e.preventDefault();
      if (open) hideCompletion();
      else cancelTurn();
    }
  });

  // ----- connection -----
  async function connect() {
    setStatus("connecting…");
    try {
      view.session = await api(`v1/sessions/${encodeURIComponent(ref)}`);
    } catch (error) {
      if (error instanceof AuthError) return signOut(error.message);
      if (error instanceof HttpError && error.status === 404) {
        setStatus("");
        return note(error.message, "error");
      }
      return retry();
    }
    if (view.disposed) return;
    signOutButton.hidden = false;
    setTitle(view.session.title);
    cwd.textContent = view.session.cwd;
    // A fresh view for every (re)connection: the replay brings the whole history back once.
    log.replaceChildren();
    view.tools.clear();
    view.run = undefined;
    try {
      const handlers = {
        notification: (m) => {
          if (m.method === "session/update") onUpdate(m.params.update);
          else if (m.method === "$/cancel_request") dialogs.get(m.params.requestId)?.();
        },
        request: (m) => {
          if (m.method === "session/request_permission") onPermission(m);
          else if (m.method === "elicitation/create") onElicitation(m);
          else view.rpc?.ws.send(JSON.stringify({ jsonrpc: "2.0", id: m.id, error: { code: -32601, message: `${m.method} is not supported by the console` } }));
        },
        close: (event) => {
          view.rpc = undefined;
          closeDialogs();
          input.disabled = send.disabled = cancel.disabled = steer.disabled = true;
          // Waiting messages went with the connection: a prompt queued by a client that left is dropped.
          for (const pending of view.steering.splice(0)) unlist(pending.item);
          if (!view.disposed) {
            note(event.reason ? `Disconnected: ${event.reason}` : "Disconnected.", "note");
            retry();
          }
        },
      };
      const { rpc, bound } = await attach(view.session, handlers);
      if (view.disposed) return rpc.close();
      view.rpc = rpc;
      view.run = undefined;
      view.retries = 0;
      renderSelectors(bound?.configOptions);
      input.disabled = send.disabled = false;
      setRunning(false);
      setStatus("connected");
      if (view.reloadNote) note(view.reloadNote);
      view.reloadNote = undefined;
      input.focus();
    } catch (error) {
      setStatus("");
      if (error.code === -32603 || error.code === -32602) note(error.message, "error");
    }
  }

  function retry() {
    const delay = Math.min(30, 2 ** view.retries++);
    setStatus(`reconnecting in ${delay} s…`);
    view.timer = setTimeout(connect, delay * 1000);
  }

  connect();
  return {
    dispose() {
      view.disposed = true;
      clearTimeout(view.timer);
      closeDialogs();
      view.rpc?.close();
    },
  };
}

// ---------- Routing ----------

let current;

function route() {
  takeTokenFromFragment();
  current?.dispose();
  current = undefined;
  if (!token()) return renderSignIn();
  const ref = new URLSearchParams(location.search).get("session");
  current = ref ? renderSession(ref) : renderList();
}

signOutButton.addEventListener("click", () => signOut());
window.addEventListener("popstate", route);
route();
