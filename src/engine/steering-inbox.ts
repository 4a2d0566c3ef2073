/**
 * Steering: messages sent to a turn while it runs. They wait here until the
 * turn's next boundary between two model calls — after the current step's
 * tool results, never between a tool call and its result — and join the
 * conversation there as user messages, in arrival order, each exactly once.
 * @module
 */
import type { ImagePart, ModelMessage, TextPart, UserMessage } from "../models/types.ts";
import type { EventSink } from "./events.ts";
import { newMessageId } from "./ids.ts";

/** Messages waiting for the running turn's next boundary. */
export class SteeringInbox {
  #waiting: UserMessage[] = [];
  #chars = 0;

  /** How many messages wait. */
  get size(): number {
    return this.#waiting.length;
  }

  /** Characters of text and image data waiting. */
  get chars(): number {
    return this.#chars;
  }

  /** Adds a message after those already waiting. */
  push(content: Array<TextPart | ImagePart>): void {
    this.#waiting.push({ role: "user", content: [...content] });
    this.#chars += contentChars(content);
  }

  /**
   * Moves every waiting message into `history`, in arrival order, and reports
   * each as a steered `message` event. The inbox is emptied before the first
   * await, so a message lands once however the reports go; one arriving
   * meanwhile waits for the next boundary.
   */
  async land(history: ModelMessage[], emit: EventSink): Promise<void> {
    const arrived = this.#waiting.splice(0);
    this.#chars = 0;
    const landed = arrived.map((message) => ({ message, messageId: newMessageId() }));
    history.push(...arrived);
    for (const { message, messageId } of landed) await emit({ type: "message", message, messageId, steered: true });
  }
}

/** Characters of a user message's text and image data. */
export function contentChars(content: readonly (TextPart | ImagePart)[]): number {
  let chars = 0;
  for (const part of content) chars += part.type === "text" ? part.text.length : part.data.length;
  return chars;
}
