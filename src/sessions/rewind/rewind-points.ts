/**
 * The points a conversation can be rewound to: its user messages as the
 * journal holds them now (taken-back and rewound ones left out), oldest
 * first, and how a client's point (`beforeMessage` of the AIR extension
 * `_session/rewind`) is found among them. The id is tried first and the
 * fingerprint must then agree; an id the session does not know (a client
 * that restored its history under ids of its own) is found by fingerprint
 * and occurrence. Anything else is refused: a rewind never guesses.
 * @module
 */
import type { ModelMessage } from "../../models/types.ts";
import type { StoredEntry } from "../../store/types.ts";
import { entryProblem } from "../journal/session-entry-schemas.ts";
import { restoreState } from "../journal/session-restore.ts";
import { SessionError } from "../session-error.ts";
import { contentId } from "../checkpoints/object-store.ts";

/** One user message of the conversation a rewind can go back to before. */
export interface RewindPoint {
  messageId: string;
  /** Its place among the journal's `message` entries (what a `rewound` entry names). */
  from: number;
  /** Its text parts, joined. */
  text: string;
  /** `sha256:<hex>` of its text, as the extension spells a fingerprint (joined without and with line breaks). */
  fingerprints: string[];
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

function textParts(message: ModelMessage): string[] {
  return message.role === "user" ? message.content.flatMap((part) => (part.type === "text" ? [part.text] : [])) : [];
}

/** The user messages of the conversation a journal holds now, oldest first. */
export async function rewindPoints(stored: readonly StoredEntry[]): Promise<RewindPoint[]> {
  const gone = new Set(restoreState(stored).retracted);
  const points: RewindPoint[] = [];
  let from = -1;
  for (const entry of stored) {
    if (entry.type !== "message") continue;
    from += 1;
    if (gone.has(from) || entryProblem(entry) !== undefined) continue;
    const message = entry.message as ModelMessage;
    if (message.role !== "user") continue;
    const parts = textParts(message);
    const forms = [...new Set([parts.join(""), parts.join("\n")])];
    points.push({ messageId: entry.messageId as string, from, text: parts.join("\n"), fingerprints: await Promise.all(forms.map(fingerprintOf)) });
  }
  return points;
}

function refused(message: string, data: Record<string, unknown> = {}): SessionError {
  return new SessionError("invalid_params", `${message}; nothing was rewound (reload the session to see its messages)`, data);
}

/** The point `request` names among `points` (a rewind of the files uses the same rule); refused (`invalid_params`) when it names none, or one whose text differs. */
export function findPoint(points: readonly RewindPoint[], request: PointRequest): RewindPoint {
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
