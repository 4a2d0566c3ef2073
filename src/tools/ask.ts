/**
 * The `ask` tool: the model asks the user a question and waits for the
 * answer — one choice, several choices, or free text. It is offered only for
 * a turn whose client can show a form (see `AskUser`); the answer, a refusal
 * or a dismissal comes back to the model as the tool's result.
 * @module
 */
import { plainLine, plainLines } from "../runtime/plain-text.ts";
import * as v from "valibot";
import type { ToolDefinition } from "./types.ts";

/** Longest question the model may ask, in characters. */
export const MAX_QUESTION_LENGTH = 2000;
/** Longest choice, in characters. */
export const MAX_CHOICE_LENGTH = 200;
/** Most choices one question may offer. */
export const MAX_CHOICES = 20;
/** Longest free-text answer accepted, in characters. */
export const MAX_ANSWER_LENGTH = 8000;

/** What the user is asked: free text without choices; one choice, or (with `multiple`) any of them. */
export interface UserQuestion {
  question: string;
  choices?: string[];
  multiple?: boolean;
  /** The tool call asking, so the client can show the form beside it. */
  toolCallId?: string;
}

/** How asking ended: an answer that fits the question, a refusal, a dismissal, or a failure to ask. */
export type UserAnswer =
  | { outcome: "answered"; answer: string | string[] }
  | { outcome: "declined" }
  | { outcome: "dismissed" }
  | { outcome: "failed"; reason: string };

/** Asks the user through the client; rejects only when `signal` aborts (the turn was cancelled). */
export type AskUser = (question: UserQuestion, signal: AbortSignal) => Promise<UserAnswer>;

const distinct = (items: string[]) => new Set(items).size === items.length;

export const AskInput = v.pipe(
  v.object({
    question: v.pipe(v.string(), v.trim(), v.minLength(1), v.maxLength(MAX_QUESTION_LENGTH), v.description("The question, written for the user")),
    choices: v.optional(
      v.pipe(
        v.array(v.pipe(v.string(), v.trim(), v.minLength(1), v.maxLength(MAX_CHOICE_LENGTH))),
        v.minLength(2),
        v.maxLength(MAX_CHOICES),
        v.check(distinct, "choices must differ from each other"),
        v.description("Answers to choose from (2 to 20); leave out for a free-text answer"),
      ),
    ),
    multiple: v.optional(v.pipe(v.boolean(), v.description("With choices: the user may pick any number of them (default: exactly one)"))),
  }),
  v.check((input) => !input.multiple || input.choices !== undefined, "multiple needs choices"),
);

/** How an ended question reads to the model. */
function answerText(question: UserQuestion, answer: UserAnswer): { text: string; isError?: boolean } {
  switch (answer.outcome) {
    case "answered": {
      const { answer: value } = answer;
      if (Array.isArray(value)) {
        return { text: value.length === 0 ? "The user chose none of the choices." : `The user chose: ${value.map((c) => JSON.stringify(c)).join(", ")}` };
      }
      return { text: question.choices ? `The user chose: ${JSON.stringify(value)}` : `The user answered:\n${value}` };
    }
    case "declined":
      return { text: "The user declined to answer the question." };
    case "dismissed":
      return { text: "The user dismissed the question without answering." };
    case "failed":
      return { text: `The question got no usable answer: ${answer.reason}`, isError: true };
  }
}

/** The `ask` tool for one turn, asking through `askUser`. */
export function askTool(askUser: AskUser): ToolDefinition<typeof AskInput> {
  return {
    name: "ask",
    description:
      "Ask the user a question and wait for the answer, when you need a decision or a fact only they can give. " +
      "Offer choices (2 to 20; set multiple to allow several) when the answers are known, or leave them out for a free-text answer. " +
      "The result says what the user answered, or that they declined or dismissed the question.",
    promptSnippet: "Ask the user a question (choices or free text) and wait for the answer",
    promptGuidelines: ["Ask with the ask tool only when you cannot go on without the user's decision; do not ask what you can find out yourself."],
    schema: AskInput,
    kind: "other",

    describe(input) {
      const line = plainLine(input.question.split("\n", 1)[0] ?? "");
      return { title: `Ask: ${line.length > 80 ? `${line.slice(0, 79)}…` : line}`, locations: [] };
    },

    async execute(input, { signal, toolCallId }) {
      // Shown by a client as it comes: a question cannot move the cursor, recolour a terminal or hide text.
      const question: UserQuestion = {
        question: plainLines(input.question),
        ...(input.choices ? { choices: input.choices.map(plainLine) } : {}),
        ...(input.multiple ? { multiple: true } : {}),
        ...(toolCallId ? { toolCallId } : {}),
      };
      const answer = await askUser(question, signal);
      const { text, isError } = answerText(question, answer);
      return { content: [{ type: "text", text }], ...(isError ? { isError } : {}), details: { outcome: answer.outcome } };
    },
  };
}
