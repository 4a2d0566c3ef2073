/**
 * Identifiers the engine mints: message ids for streamed chunks and ids for
 * tool calls a model left without one.
 * @module
 */
import { nanoid } from "nanoid";

export function newMessageId(): string {
  return `msg_${nanoid(16)}`;
}
