/**
 * The directory name sessions of one cwd are kept under. It is only for
 * people browsing the folder: the header's `cwd` is authoritative, so two
 * cwds sharing a slug is harmless (file names are unique session ids).
 * @module
 */

/** Whole slug length cap, well under every file system's 255-byte name limit. */
const MAX_SLUG_LENGTH = 120;
const HASH_LENGTH = 12;

/**
 * `/home/u/my proj` → `--home-u-my_proj--`: path separators and `:` become
 * `-`, whitespace and anything outside `[A-Za-z0-9._-]` becomes `_`. A slug
 * that would be longer than 120 characters is cut and ends with a hash of
 * the full cwd, so two long cwds with a common start still differ.
 */
export function cwdSlug(cwd: string): string {
  const body = cwd
    .replace(/^[/\\]+/, "")
    .replace(/[/\\:]/g, "-")
    .replace(/\s/g, "_")
    .replace(/[^A-Za-z0-9._-]/g, "_");
  const slug = `--${body}--`;
  if (slug.length <= MAX_SLUG_LENGTH) return slug;
  const keep = MAX_SLUG_LENGTH - 4 - 1 - HASH_LENGTH;
  return `--${body.slice(0, keep)}-${fnv1a64(cwd).slice(0, HASH_LENGTH)}--`;
}

/** FNV-1a, 64 bits, over the UTF-8 bytes, as 16 hex digits: synchronous and the same on every runtime. */
function fnv1a64(text: string): string {
  let hash = 0xcbf29ce484222325n;
  for (const byte of new TextEncoder().encode(text)) {
    hash ^= BigInt(byte);
    hash = (hash * 0x100000001b3n) & 0xffffffffffffffffn;
  }
  return hash.toString(16).padStart(16, "0");
}
