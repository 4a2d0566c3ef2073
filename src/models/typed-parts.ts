/**
 * The parts of a user message the user sent, without the text hooks added
 * (`addedBy`): what a rewind point's fingerprint covers and what a replay
 * shows as the user's.
 * @module
 */
import type { ImagePart, TextPart } from "./types.ts";

/** `content` without the parts a hook added. */
export function typedParts<Part extends TextPart | ImagePart>(content: readonly Part[]): Part[] {
  return content.filter((part) => part.type !== "text" || part.addedBy === undefined);
}

/** Whether a user message holds only text hooks added (a Stop hook's reason): no message of the user's. */
export function addedByHooksOnly(content: readonly (TextPart | ImagePart)[]): boolean {
  return content.length > 0 && typedParts(content).length === 0;
}
