/**
 * A question of the `ask` tool as an `elicitation/create` form, and the
 * client's answer read back. The form has one field, `answer`: a string from
 * `enum` (one choice), an array of strings from `items.enum` (several), or a
 * bounded free-text string. Whatever the client sends back is checked against
 * that form before anything of it reaches the model: a wrong type, a value
 * outside the choices, a repeated choice or an over-long text is refused (the
 * model is told the answer did not fit, never shown it), and fields besides
 * `answer` are dropped.
 * @module
 */
import { MAX_ANSWER_LENGTH, type UserAnswer, type UserQuestion } from "../../tools/ask.ts";

/** The form's one field. */
export const ANSWER_FIELD = "answer";

/** The `requestedSchema` of a question's form. */
export function questionForm(question: UserQuestion) {
  const { choices } = question;
  const field = !choices
    ? { type: "string" as const, title: "Your answer", minLength: 1, maxLength: MAX_ANSWER_LENGTH }
    : question.multiple
      ? { type: "array" as const, title: "Choose any", items: { type: "string" as const, enum: choices }, maxItems: choices.length }
      : { type: "string" as const, title: "Choose one", enum: choices };
  return { type: "object" as const, properties: { [ANSWER_FIELD]: field }, required: [ANSWER_FIELD] };
}

const failed = (reason: string): UserAnswer => ({ outcome: "failed", reason });

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** The value of the answer field, checked against the question's form; a failure says how it did not fit. */
function checkedValue(question: UserQuestion, value: unknown): UserAnswer {
  const { choices } = question;
  if (!choices) {
    if (typeof value !== "string") return failed("the client's answer was not text");
    if (value.trim() === "") return failed("the client's answer was empty");
    if (value.length > MAX_ANSWER_LENGTH) return failed(`the client's answer was over ${MAX_ANSWER_LENGTH} characters`);
    return { outcome: "answered", answer: value };
  }
  if (!question.multiple) {
    if (typeof value !== "string" || !choices.includes(value)) return failed("the client's answer was not one of the choices");
    return { outcome: "answered", answer: value };
  }
  if (!Array.isArray(value) || value.length > choices.length) return failed("the client's answer was not a list of the choices");
  if (!value.every((item) => typeof item === "string" && choices.includes(item))) return failed("the client's answer named something that was not a choice");
  if (new Set(value).size !== value.length) return failed("the client's answer named a choice twice");
  return { outcome: "answered", answer: value as string[] };
}

/** What the client's `elicitation/create` response means for the question; anything malformed is a failure. */
export function readFormAnswer(question: UserQuestion, response: unknown): UserAnswer {
  if (!isRecord(response)) return failed("the client's response was not an object");
  switch (response.action) {
    case "decline":
      return { outcome: "declined" };
    case "cancel":
      return { outcome: "dismissed" };
    case "accept":
      break;
    default:
      return failed("the client's response had an action other than accept, decline or cancel");
  }
  const content = response.content;
  if (!isRecord(content) || !Object.hasOwn(content, ANSWER_FIELD)) return failed("the client accepted the question without an answer");
  return checkedValue(question, content[ANSWER_FIELD]);
}
