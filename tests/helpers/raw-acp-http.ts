/**
 * ACP over Streamable HTTP by hand, with `fetch`: what the SDK's client does
 * (initialize, POSTs, event streams) but under the test's control, so a test
 * can behave like a client that crashed or walked away — open no stream,
 * close one mid-turn, never send DELETE.
 */
import { bearer } from "./serve-process.ts";
import { waitFor } from "./expect-error.ts";

/** One event stream (`GET /acp`), its messages collected as they arrive. */
export interface RawEventStream {
  messages: any[];
  /** Resolves with the first message (already received or still to come) that `match` accepts. */
  next(match: (message: any) => boolean, timeoutMs?: number): Promise<any>;
  /** Closes the stream from the client's side (the server sees the request go away). */
  close(): void;
  /** Settles once the stream has ended, whoever ended it. */
  ended: Promise<void>;
}

/** A Streamable HTTP connection driven by hand. */
export interface RawAcpConnection {
  id: string;
  /** POSTs one JSON-RPC message (with `Acp-Session-Id` when given); resolves with the HTTP status. */
  post(message: unknown, sessionId?: string): Promise<number>;
  /** Opens the connection's event stream, or a session's; resolves with it once the server answered 200. */
  stream(sessionId?: string): Promise<RawEventStream>;
  /** The status a GET for an event stream gets now (200 opens one, which is closed again at once). */
  probe(): Promise<number>;
  /** DELETE, as a client that leaves properly. */
  remove(): Promise<number>;
}

const headers = (token: string, extra: Record<string, string> = {}) => ({ ...bearer(token), "content-type": "application/json", ...extra });

/** Sends `initialize` without a connection id; the answer's `Acp-Connection-Id` names the new connection. */
export async function openRawConnection(url: string, token: string): Promise<RawAcpConnection> {
  const response = await fetch(`${url}/acp`, {
    method: "POST",
    headers: headers(token),
    body: JSON.stringify({ jsonrpc: "2.0", id: 0, method: "initialize", params: { protocolVersion: 1, clientCapabilities: {} } }),
  });
  const id = response.headers.get("acp-connection-id");
  await response.text();
  if (response.status !== 200 || !id) throw new Error(`initialize answered ${response.status}`);
  return rawConnection(url, token, id);
}

/** A connection known by its id. */
export function rawConnection(url: string, token: string, id: string): RawAcpConnection {
  const scoped = (sessionId?: string) => headers(token, { "acp-connection-id": id, ...(sessionId ? { "acp-session-id": sessionId } : {}) });
  return {
    id,
    async post(message, sessionId) {
      const response = await fetch(`${url}/acp`, { method: "POST", headers: scoped(sessionId), body: JSON.stringify(message) });
      await response.text();
      return response.status;
    },
    async stream(sessionId) {
      const abort = new AbortController();
      const response = await fetch(`${url}/acp`, { headers: { ...scoped(sessionId), accept: "text/event-stream" }, signal: abort.signal });
      if (response.status !== 200 || !response.body) throw new Error(`the event stream answered ${response.status}`);
      return eventStream(response.body, abort);
    },
    async probe() {
      const abort = new AbortController();
      const response = await fetch(`${url}/acp`, { headers: { ...scoped(), accept: "text/event-stream" }, signal: abort.signal });
      abort.abort();
      await response.body?.cancel().catch(() => undefined);
      return response.status;
    },
    async remove() {
      const response = await fetch(`${url}/acp`, { method: "DELETE", headers: scoped() });
      await response.text();
      return response.status;
    },
  };
}

function eventStream(body: ReadableStream<Uint8Array>, abort: AbortController): RawEventStream {
  const messages: any[] = [];
  const decoder = new TextDecoder();
  const ended = (async () => {
    let buffer = "";
    try {
      for await (const chunk of body) {
        buffer += decoder.decode(chunk, { stream: true });
        for (let end = buffer.indexOf("\n\n"); end >= 0; end = buffer.indexOf("\n\n")) {
          const event = buffer.slice(0, end);
          buffer = buffer.slice(end + 2);
          const data = event
            .split("\n")
            .filter((line) => line.startsWith("data:"))
            .map((line) => line.slice(5).trimStart())
            .join("\n");
          if (data) messages.push(JSON.parse(data));
        }
      }
    } catch {
      // closed by either side
    }
  })();
  return {
    messages,
    ended,
    async next(match, timeoutMs = 20_000) {
      await waitFor(() => messages.some(match), timeoutMs, "a message on the event stream");
      return messages.find(match);
    },
    close: () => abort.abort(),
  };
}
