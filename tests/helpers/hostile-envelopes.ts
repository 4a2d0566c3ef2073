/**
 * Messages a hostile or broken client sends inside good framing, each with
 * what the agent must do about it, and a driver that follows every one with
 * a good request that must still be answered — over any transport.
 */
import { expect } from "bun:test";

/** What the agent answers to a malformed message before the good request that follows it. */
export type Expected =
  /** One `-32600` error with `id: null`. */
  | "invalid"
  /** Nothing at all (responses and notifications are never answered). */
  | "nothing"
  /** One answer carrying this id (a well-formed request, however odd). */
  | { answeredAs: string | number | null };

export interface Malformed {
  name: string;
  text: string;
  expected: Expected;
}

const initializeParams = '"params":{"protocolVersion":1}';

/** Every envelope shape the agent must survive, the worst ones as `initialize` (it gates what follows). */
export const MALFORMED: Malformed[] = [
  { name: "initialize without jsonrpc", text: `{"id":2,"method":"initialize",${initializeParams}}`, expected: "invalid" },
  { name: "initialize with jsonrpc 1.0", text: `{"jsonrpc":"1.0","id":2,"method":"initialize",${initializeParams}}`, expected: "invalid" },
  { name: "initialize with a numeric jsonrpc", text: `{"jsonrpc":2,"id":2,"method":"initialize",${initializeParams}}`, expected: "invalid" },
  { name: "initialize with an object id", text: `{"jsonrpc":"2.0","id":{"n":2},"method":"initialize",${initializeParams}}`, expected: "invalid" },
  { name: "initialize with an array id", text: `{"jsonrpc":"2.0","id":[2],"method":"initialize",${initializeParams}}`, expected: "invalid" },
  { name: "initialize with a boolean id", text: `{"jsonrpc":"2.0","id":true,"method":"initialize",${initializeParams}}`, expected: "invalid" },
  { name: "initialize with an infinite id", text: `{"jsonrpc":"2.0","id":1e400,"method":"initialize",${initializeParams}}`, expected: "invalid" },
  { name: "session/list without jsonrpc", text: '{"id":3,"method":"session/list","params":{}}', expected: "invalid" },
  { name: "a numeric method", text: '{"jsonrpc":"2.0","id":3,"method":5}', expected: "invalid" },
  { name: "a null method without id", text: '{"jsonrpc":"2.0","method":null}', expected: "invalid" },
  { name: "an empty object", text: "{}", expected: "invalid" },
  { name: "a batch", text: '[{"jsonrpc":"2.0","id":4,"method":"session/list","params":{}}]', expected: "invalid" },
  { name: "an empty batch", text: "[]", expected: "invalid" },
  { name: "a number", text: "42", expected: "invalid" },
  { name: "a string", text: '"hello"', expected: "invalid" },
  { name: "null", text: "null", expected: "invalid" },
  { name: "a result for a request never sent", text: '{"jsonrpc":"2.0","id":99,"result":{}}', expected: "nothing" },
  { name: "an error for a request never sent", text: '{"jsonrpc":"2.0","id":98,"error":{"code":1,"message":"no"}}', expected: "nothing" },
  { name: "a response without jsonrpc", text: '{"id":97,"result":null}', expected: "nothing" },
  { name: "a result without id", text: '{"jsonrpc":"2.0","result":1}', expected: "nothing" },
  { name: "an unknown notification", text: '{"jsonrpc":"2.0","method":"no/such"}', expected: "nothing" },
  { name: "a cancel for an unknown request", text: '{"jsonrpc":"2.0","method":"$/cancel_request","params":{"requestId":"nope"}}', expected: "nothing" },
  { name: "initialize with a null id", text: `{"jsonrpc":"2.0","id":null,"method":"initialize",${initializeParams}}`, expected: { answeredAs: null } },
  { name: "an unknown method", text: '{"jsonrpc":"2.0","id":"odd","method":"no/such"}', expected: { answeredAs: "odd" } },
];

/** One JSON-RPC connection as text messages in, parsed messages out. */
export interface TextChannel {
  send(texts: string[]): Promise<void>;
  /** The next message from the agent, in order. */
  next(): Promise<any>;
}

const goodRequest = (id: number) => JSON.stringify({ jsonrpc: "2.0", id, method: "session/list", params: {} });

/** Reads messages up to the answer to `id`; returns the ones before it. */
async function before(channel: TextChannel, id: number): Promise<any[]> {
  const seen: any[] = [];
  for (;;) {
    const message = await channel.next();
    if (message.id === id && !("method" in message)) {
      expect(message.result?.sessions).toBeArray();
      return seen;
    }
    seen.push(message);
  }
}

/**
 * After a good `initialize`: each malformed message, then a good request that
 * must be answered; then two requests sharing one id, both answered.
 */
export async function driveMalformed(channel: TextChannel): Promise<void> {
  await channel.send([JSON.stringify({ jsonrpc: "2.0", id: 0, method: "initialize", params: { protocolVersion: 1 } })]);
  expect((await channel.next()).result.protocolVersion).toBe(1);
  let id = 100;
  for (const bad of MALFORMED) {
    id++;
    await channel.send([bad.text, goodRequest(id)]);
    const expected = bad.expected;
    if (expected === "nothing") expect({ message: bad.name, answers: await before(channel, id) }).toEqual({ message: bad.name, answers: [] });
    else if (expected === "invalid") {
      // Rejected before the next message is read, so its answer comes first.
      const answers = await before(channel, id);
      expect({ message: bad.name, answers }).toMatchObject({ message: bad.name, answers: [{ jsonrpc: "2.0", id: null, error: { code: -32600 } }] });
    } else {
      // Two requests served concurrently: both answers, in either order.
      const answers = [await channel.next(), await channel.next()];
      expect({ message: bad.name, ids: answers.map((m) => m.id).sort() }).toEqual({ message: bad.name, ids: [expected.answeredAs, id].sort() });
    }
  }
  // Two requests open under one id and a third after them: all three answered (in any order: the agent
  // serves requests concurrently), and nothing else.
  const last = ++id;
  await channel.send([goodRequest(7), goodRequest(7), goodRequest(last)]);
  const ids: unknown[] = [];
  while (ids.length < 3) ids.push((await channel.next()).id);
  expect(ids.sort()).toEqual([7, 7, last].sort());
}
