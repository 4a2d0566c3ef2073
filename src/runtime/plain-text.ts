/**
 * Text from a model or a client as another client shows it: no control
 * characters that could move a terminal's cursor, recolour it or hide what
 * follows (C0 and C1 controls, DEL, bidirectional overrides), no separators
 * that split a line where a client does not expect it.
 * @module
 */

/** Control characters (C0, DEL, C1), line or paragraph separators and bidirectional controls. */
const CONTROL = /[\u0000-\u001f\u007f-\u009f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g;
/** The same, except tab and line feed. */
const CONTROL_BUT_LINES = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g;

/** One plain line: every control character becomes a space. */
export function plainLine(text: string): string {
  return text.replace(CONTROL, " ");
}

/** Plain lines: line feeds and tabs kept (a carriage return ends a line too), every other control becomes a space. */
export function plainLines(text: string): string {
  return text.replace(/\r\n?/g, "\n").replace(CONTROL_BUT_LINES, " ");
}
