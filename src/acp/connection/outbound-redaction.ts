/**
 * The last line of defence for ACP: every message the agent sends (responses,
 * `session/update`, permission requests, errors) has registered secrets
 * replaced in all its strings before it is serialised, whichever transport
 * carries it. The one exception is the content of `fs/write_text_file`: those
 * are bytes of the user's own file, which the editor writes and does not show;
 * hiding a key there would corrupt the file.
 * @module
 */
import { redactValue } from "../../runtime/secrets.ts";
import type { MessageStreamPair } from "./connection-guard.ts";
import { methods } from "../sdk.ts";

type Message = Record<string, unknown>;

/** Wraps the outgoing side of a connection so that no registered secret leaves in a message. */
export function redactOutbound(stream: MessageStreamPair): MessageStreamPair {
  const writer = new WritableStream<Message>({
    async write(message) {
      const out = stream.writable.getWriter();
      try {
        await out.write(redactMessage(message));
      } finally {
        out.releaseLock();
      }
    },
    close: () => stream.writable.close(),
    abort: (reason) => stream.writable.abort(reason),
  });
  return { readable: stream.readable, writable: writer, ...(stream.flushed ? { flushed: stream.flushed } : {}) };
}

/** A copy of one outgoing message with registered secrets hidden (file content written through the editor excepted). */
export function redactMessage(message: Message): Message {
  const writesFile = message.method === methods.client.fs.writeTextFile;
  return redactValue(message, writesFile ? isWrittenContent : undefined);
}

function isWrittenContent(path: readonly (string | number)[]): boolean {
  return path.length === 2 && path[0] === "params" && path[1] === "content";
}
