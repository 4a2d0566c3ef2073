/**
 * `@path` in a command file (`Review @src/app.ts`), as Claude Code reads it:
 * the file is embedded in the prompt like a `resource_link` the editor sends.
 * The command file comes with the repository, so the file is opened on the
 * agent's own: with `readConfinedBytes`, inside the session's roots only —
 * `@~/.ssh/id_rsa`, `@/etc/passwd` or a link out of the project become a note
 * saying why they were not read. A name that leads to nothing (`@types/node`,
 * `@team`) is left as text. At most 20 files, and no more than what is left of
 * the message's budget (see prompt-budget.ts): a file past it is not read and
 * a note says so.
 * @module
 */
import type { TextPart } from "../../models/types.ts";
import { describeSkip, readConfinedBytes } from "../../runtime/files/confined-file.ts";
import { pathToFileUrl } from "../../runtime/files/path.ts";
import { redact } from "../../runtime/secrets.ts";
import { toAbsolute } from "../../tools/paths.ts";
import { formatBytes } from "../turns/prompt-budget.ts";
import { decodeLinkedText, LINK_NOT_TEXT, LINK_TOO_LARGE, LINKED_FILE_LIMIT, linkNote, resourceText } from "./linked-resource.ts";

const MAX_REFERENCES = 20;
/** `@` at the start or after white space, then a path; an e-mail address (`a@b.c`) is not one. */
const REFERENCE = /(?:^|(?<=[\s(]))@([^\s`'"<>()]+)/g;
/** Punctuation that ends a sentence rather than a path. */
const TRAILING = /[.,;:!?\]}]+$/;

/** The distinct `@path` references in `text`, in order. */
export function fileReferences(text: string): string[] {
  const found: string[] = [];
  for (const match of text.matchAll(REFERENCE)) {
    const path = match[1]!.replace(TRAILING, "");
    if (path !== "" && !found.includes(path)) found.push(path);
  }
  return found;
}

/**
 * The files `text` references, embedded as the model reads linked resources
 * (or notes for those refused); `cwd` resolves relative paths, `roots` (the
 * session's resolved roots) bound where they may lead, `maxBytes` what they
 * may bring in all.
 */
export async function embedReferences(text: string, cwd: string, roots: readonly string[], maxBytes: number): Promise<TextPart[]> {
  const parts: TextPart[] = [];
  let total = 0;
  let looked = 0;
  const references = fileReferences(text);
  for (const reference of references) {
    if (looked === MAX_REFERENCES) {
      parts.push({ type: "text", text: `[${references.length - looked} more @ references were not looked at: a command embeds at most ${MAX_REFERENCES} files]` });
      break;
    }
    looked++;
    const path = toAbsolute(reference, cwd);
    const uri = pathToFileUrl(path).href;
    // Never more than what is left: a file past it is refused before it is read.
    const left = Math.min(LINKED_FILE_LIMIT, maxBytes - total);
    const read = await readConfinedBytes(path, { areas: roots, budget: left });
    if (!read.ok) {
      if (read.reason === "missing") continue;
      const why =
        read.reason !== "too-large"
          ? `${describeSkip(read, "the session's directories", left)}, so it was not read`
          : left < LINKED_FILE_LIMIT
            ? `past what is left of this message's budget of ${formatBytes(maxBytes)}, so it was not embedded; use the read tool`
            : LINK_TOO_LARGE;
      parts.push(linkNote(uri, why));
      continue;
    }
    const content = decodeLinkedText(read.bytes);
    if (content === undefined) {
      parts.push(linkNote(uri, LINK_NOT_TEXT));
      continue;
    }
    total += read.bytes.length;
    // The command file chose this file, not the user: what is read is redacted like anything the agent reads on its own.
    parts.push({ type: "text", text: resourceText(uri, undefined, redact(content)) });
  }
  return parts;
}
