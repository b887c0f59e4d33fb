/**
 * Control characters from the appliance must never reach the operator's terminal as controls: an
 * escape sequence in a privilege name, a dataset comment, a file name or an error text could
 * retitle the window, repaint lines (a fake "Local Administrator") or worse. Every human sink —
 * tables, TSV, lines, notes, errors, prompts — passes server text through here; JSON output is
 * escaped by JSON itself (plus C1 controls, see `escapeJson`).
 */
// C0 controls but tab, DEL, and C1 controls (0x80-0x9f: CSI and OSC among them).
const CONTROLS = /[\u0000-\u0008\u000a-\u001f\u007f-\u009f]/g;
const CONTROLS_AND_BREAKS = /[\u0000-\u001f\u007f-\u009f]/g;

const visible = (c: string): string => `\\x${c.charCodeAt(0).toString(16).padStart(2, '0')}`;
// Line breaks as they would be written in the text, so a multi-line reason still reads.
const shownBreak = (c: string): string => (c === '\n' ? '\\n' : c === '\r' ? '\\r' : visible(c));

/**
 * Text for one line of prose (a message, a note, a hint): tabs kept, every other control shown,
 * line breaks as `\n` and `\r`. A break in the appliance's text (a reason, a name) must not start
 * a line of its own, which could pass for one of stor's (`stor: nas2: ok`, `4 ok`); a line of
 * stor's own is written as a line of its own by its caller.
 */
export function escapeControls(text: string): string {
  return text.replace(CONTROLS, shownBreak);
}

/** A single cell or field: newlines and tabs too, so a value cannot forge rows or columns. */
export function escapeCell(text: string): string {
  return text.replace(CONTROLS_AND_BREAKS, visible);
}

/** JSON.stringify leaves DEL and C1 controls raw; `\u00XX` them (still the same JSON value). */
export function escapeJson(json: string): string {
  // Text of ASCII only (as many bytes as characters) without DEL holds none: two native passes, not
  // a regular expression's (a fleet's `--json` is one document per target).
  if (Buffer.byteLength(json) === json.length && !json.includes('\x7f')) return json;
  return json.replace(/[\u007f-\u009f]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}
