/**
 * What `rewound` entries take out of a journal. A rewind never rewrites the
 * file (it is append-only): it appends `{type: "rewound", from}`, and from
 * then on the `from`-th message entry and every entry after it, up to the
 * rewind, are read as if they were never written — by the restore (what the
 * model sees), by the replay (what `session/load` shows) and by the list of
 * points a later rewind may go back to.
 * @module
 */
import type { StoredEntry } from "../../store/types.ts";

/** Positions (indexes into `stored`) of the entries a later `rewound` entry took out of the conversation. */
export function rewoundPositions(stored: readonly StoredEntry[]): Set<number> {
  return positionsBefore(stored, "rewound");
}

/**
 * Positions of the entries between a user message and a later `type` entry
 * naming it (`from`, the message's place among the `message` entries).
 */
export function positionsBefore(stored: readonly StoredEntry[], type: "rewound" | "files_rewound"): Set<number> {
  const removed = new Set<number>();
  // Position of each `message` entry, damaged ones included: `from` counts them as the recorder does.
  const messages: number[] = [];
  stored.forEach((entry, position) => {
    if (entry.type === "message") messages.push(position);
    if (entry.type !== type || !Number.isSafeInteger(entry.from) || (entry.from as number) < 0) return;
    const start = messages[entry.from as number];
    if (start === undefined) return;
    for (let at = start; at < position; at++) removed.add(at);
  });
  return removed;
}
