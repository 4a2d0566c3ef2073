/**
 * The process's stdin/stdout as a message stream, with the framing detected
 * from the first bytes the client sends.
 * @module
 */
import { stdioStreams } from "../runtime/stdio.ts";
import { createMessageStream, type MessageStream } from "./message-stream.ts";

export function openStdioMessageStream(): MessageStream {
  const { readable, writable } = stdioStreams();
  return createMessageStream(readable, writable);
}
