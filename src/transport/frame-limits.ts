/**
 * Size limits for framed transports. They bound memory per connection: no
 * buffer grows past these sizes, whatever a peer sends.
 * @module
 */

/** Largest JSON-RPC message body accepted, in bytes (16 MiB). Larger ones are skipped and answered with -32600. */
export const MAX_MESSAGE_BYTES = 16 * 1024 * 1024;

/** Longest single `Name: value` line of a Content-Length frame header, in bytes (8 KiB). */
export const MAX_HEADER_LINE_BYTES = 8 * 1024;

/** Longest Content-Length frame header block (all lines up to the blank line), in bytes (64 KiB). */
export const MAX_HEADER_BLOCK_BYTES = 64 * 1024;

/** Encoded characters queued for output before writers must wait for a flush (1 Mi characters). */
export const WRITE_HIGH_WATER_CHARS = 1024 * 1024;
