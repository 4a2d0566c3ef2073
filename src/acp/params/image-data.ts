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

/** Standard base64, padded; no white space. */
const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;

/** Throws invalid params unless `data` is non-empty base64 of an image type providers accept. */
export function checkImage(data: string, mimeType: string, what: string): void {
  if (!IMAGE_TYPES.includes(mimeType)) {
    throw invalidParams(`${what} has mimeType "${mimeType.slice(0, 100)}", expected one of ${IMAGE_TYPES.join(", ")}`);
  }
  if (!data) throw invalidParams(`${what} has no data`);
  if (!BASE64.test(data)) throw invalidParams(`${what}'s data is not base64`);
}
