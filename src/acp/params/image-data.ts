/**
 * Image data a client sends, checked at the door: a provider refuses an
 * image whose data is not base64 or whose type it does not know, and a turn
 * refused for it would fail again at every later prompt. Such content is
 * refused here instead, with the reason.
 * @module
 */
import { invalidParams } from "../errors.ts";

/** The image types every provider the agent speaks to accepts. */
export const IMAGE_TYPES: readonly string[] = ["image/png", "image/jpeg", "image/gif", "image/webp"];

/** Throws invalid params unless `data` is non-empty base64 of an image type providers accept. */
export function checkImage(data: string, mimeType: string, what: string): void {
  if (!IMAGE_TYPES.includes(mimeType)) {
    throw invalidParams(`${what} has mimeType "${mimeType.slice(0, 100)}", expected one of ${IMAGE_TYPES.join(", ")}`);
  }
  if (!data) throw invalidParams(`${what} has no data`);
  if (!isBase64(data)) throw invalidParams(`${what}'s data is not base64`);
}

/**
 * Whether `data` is standard base64, padded, with no white space: a length that is a multiple of 4,
 * the standard alphabet, and `=` only as the last one or two characters. One pass over the character
 * codes, in constant stack: a regular expression over megabytes overflows the stack on some runtimes
 * and gives up on others.
 */
export function isBase64(data: string): boolean {
  const length = data.length;
  if (length % 4 !== 0) return false;
  let end = length;
  if (length > 0 && data.charCodeAt(length - 1) === EQUALS) end = data.charCodeAt(length - 2) === EQUALS ? length - 2 : length - 1;
  for (let i = 0; i < end; i++) if (!inAlphabet(data.charCodeAt(i))) return false;
  return true;
}

const EQUALS = 0x3d;

/** A-Z, a-z, 0-9, `+` and `/`. */
function inAlphabet(code: number): boolean {
  return (code >= 0x41 && code <= 0x5a) || (code >= 0x61 && code <= 0x7a) || (code >= 0x30 && code <= 0x39) || code === 0x2b || code === 0x2f;
}
