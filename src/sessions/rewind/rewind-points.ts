/**
 * The points a conversation can be rewound to: its user messages as the
 * journal holds them now (taken-back and rewound ones left out), oldest
 * first, and how a client's point (`beforeMessage` of the AIR extension
 * `_session/rewind`) is found among them. The id is tried first and the
 * fingerprint must then agree; an id the session does not know (a client
 * that restored its history under ids of its own) is found by fingerprint
 * and occurrence. Anything else is refused: a rewind never guesses.
 *
 * `resumeAtMessage` is the extension's guard: the last assistant message
 * with text the client shows before `beforeMessage` (the one the
 * conversation resumes at), named the same way, its occurrence counted
 * among assistant messages. When given it must name exactly that message,
 * else nothing is rewound — the client's view and the session's differ.
 * @module
 */
import type { ModelMessage } from "../../models/types.ts";
import type { StoredEntry } from "../../store/types.ts";
import { entryProblem } from "../journal/session-entry-schemas.ts";
import { restoreState } from "../journal/session-restore.ts";
import { SessionError } from "../session-error.ts";
import { contentId } from "../checkpoints/object-store.ts";
import { addedByHooksOnly, typedParts } from "../../models/typed-parts.ts";

/** One user message of the conversation a rewind can go back to before. */
export interface RewindPoint {
  messageId: string;
  /** Its place among the journal's `message` entries (what a `rewound` entry names). */
  from: number;
  /** Its text parts, joined. */
  text: string;
  /** `sha256:<hex>` of its text, as the extension spells a fingerprint (joined without and with line breaks). */
  fingerprints: string[];
  /** The last assistant message with text before it, if any (what `resumeAtMessage` must name). */
  reply?: ReplyPoint;
}

/** An assistant message a conversation resumes at. */
export interface ReplyPoint {
  messageId: string;
  fingerprints: string[];
  /** For each fingerprint, which of the assistant messages with it this one is (1-based). */
  occurrences: number[];
  /** The ids of every assistant message of the conversation (shared): an id among them names that message only. */
  knownIds: ReadonlySet<string>;
}

/** A point as a client names it (`beforeMessage`). */
export interface PointRequest {
  messageId: string;
  messageFingerprint: string;
  /** 1-based: which of the user messages with this fingerprint. */
  messageOccurrence: number;
}

/** `sha256:` and the lowercase hex digest of `text` (UTF-8). */
export async function fingerprintOf(text: string): Promise<string> {
  return `sha256:${await contentId(new TextEncoder().encode(text))}`;
}

/** A message's text; of a user message only what the user sent (a hook's context is not theirs to name). */
function textParts(message: ModelMessage): string[] {
  if (message.role === "tool") return [];
  const parts = message.role === "user" ? typedParts(message.content) : message.content;
  return parts.flatMap((part) => (part.type === "text" ? [part.text] : []));
}

/** The fingerprints of a message's text: its parts joined without and with line breaks. */
async function fingerprintsOf(parts: readonly string[]): Promise<string[]> {
  return await Promise.all([...new Set([parts.join(""), parts.join("\n")])].map(fingerprintOf));
}

/** The user messages of the conversation a journal holds now, oldest first. */
export async function rewindPoints(stored: readonly StoredEntry[]): Promise<RewindPoint[]> {
  const gone = new Set(restoreState(stored).retracted);
  const points: RewindPoint[] = [];
  const knownIds = new Set<string>();
  const seen = new Map<string, number>();
  let reply: ReplyPoint | undefined;
  let from = -1;
  for (const entry of stored) {
    if (entry.type !== "message") continue;
    from += 1;
    if (gone.has(from) || entryProblem(entry) !== undefined) continue;
    const message = entry.message as ModelMessage;
    const messageId = entry.messageId as string;
    const parts = textParts(message);
    if (message.role === "user") {
      // A Stop hook's reason to go on is the agent's own message: the user typed nothing there.
      if (addedByHooksOnly(message.content)) continue;
      points.push({ messageId, from, text: parts.join("\n"), fingerprints: await fingerprintsOf(parts), ...(reply ? { reply } : {}) });
    } else if (message.role === "assistant") {
      knownIds.add(messageId);
      // A message with no text (only tool calls or thinking) shows nothing a client could name.
      if (parts.join("") === "") continue;
      const fingerprints = await fingerprintsOf(parts);
      const occurrences = fingerprints.map((f) => {
        const n = (seen.get(f) ?? 0) + 1;
        seen.set(f, n);
        return n;
      });
      reply = { messageId, fingerprints, occurrences, knownIds };
    }
  }
  return points;
}

function refused(message: string, data: Record<string, unknown> = {}): SessionError {
  return new SessionError("invalid_params", `${message}; nothing was rewound (reload the session to see its messages)`, data);
}

/**
 * The point `request` names among `points` (a rewind of the files uses the same rule); refused (`invalid_params`)
 * when it names none, or one whose text differs, or when `resumeAt` is given and does not name its reply.
 */
export function findPoint(points: readonly RewindPoint[], request: PointRequest, resumeAt?: PointRequest): RewindPoint {
  const found = userPoint(points, request);
  if (resumeAt !== undefined) checkResumeAt(found, resumeAt);
  return found;
}

function userPoint(points: readonly RewindPoint[], request: PointRequest): RewindPoint {
  const fingerprint = request.messageFingerprint.toLowerCase();
  const byId = points.find((p) => p.messageId === request.messageId);
  if (byId) {
    if (!byId.fingerprints.includes(fingerprint)) throw refused("beforeMessage: the message with this id has different text (messageFingerprint does not match)", { field: "beforeMessage.messageFingerprint" });
    return byId;
  }
  const same = points.filter((p) => p.fingerprints.includes(fingerprint));
  const found = same[request.messageOccurrence - 1];
  if (!found) {
    throw refused(
      same.length === 0
        ? "beforeMessage: no user message of this session has this id or this fingerprint"
        : `beforeMessage: messageOccurrence ${request.messageOccurrence} is past the ${same.length} user message(s) with this fingerprint`,
      { field: "beforeMessage" },
    );
  }
  return found;
}

/** Refuses (`invalid_params`) a `resumeAtMessage` that is not the last assistant message with text before `point`. */
function checkResumeAt(point: RewindPoint, request: PointRequest): void {
  const reply = point.reply;
  const field = { field: "resumeAtMessage" };
  if (!reply) throw refused("resumeAtMessage: no assistant message comes before beforeMessage (leave resumeAtMessage out for the first prompt)", field);
  const fingerprint = request.messageFingerprint.toLowerCase();
  const at = reply.fingerprints.indexOf(fingerprint);
  if (request.messageId === reply.messageId) {
    if (at < 0) throw refused("resumeAtMessage: the message with this id has different text (messageFingerprint does not match)", field);
    return;
  }
  // An id of another assistant message names that one; an unknown id is found by fingerprint and occurrence.
  if (reply.knownIds.has(request.messageId) || at < 0 || reply.occurrences[at] !== request.messageOccurrence) {
    throw refused("resumeAtMessage: it is not the last assistant message before beforeMessage", field);
  }
}
