import type { DescribedError } from './describe-error.js';
import { columnsOf } from './columns.js';
import { escapeControls, escapeJson } from './escape.js';
import type { OutputStream } from './io.js';

/**
 * How a command's error reaches stderr, the one format scripts parse: with `--json` one
 * `{"error":{…}}` line; else `stor: MESSAGE`, its details indented, and `hint: …`. Used by `run()`
 * and by the first stage when its agent is lost (SESSION_LOST).
 */
export function writeError(stderr: OutputStream, d: DescribedError, json: boolean): void {
  if (json) {
    stderr.write(
      `${escapeJson(JSON.stringify({ error: { code: d.errorCode, kind: d.kind, message: d.message, ...(d.hint ? { hint: d.hint } : {}), ...(d.details ? { details: d.details } : {}) } }))}\n`,
    );
    return;
  }
  // Messages carry the appliance's own texts (reasons, names, paths): never raw controls. A line
  // break in one is a break, its later lines indented, so none can pass for a line of stor's own.
  // On a terminal each line wraps at word boundaries to its width, the later lines indented under
  // the text; piped, every line stays whole, as scripts parse it.
  const width =
    stderr.isTTY === true ? (stderr.columns !== undefined && stderr.columns > 0 ? stderr.columns : 80) : Infinity;
  const put = (prefix: string, text: string, indent: string) => {
    for (const line of wrapWords(prefix, escapeControls(text), width, indent)) stderr.write(`${line}\n`);
  };
  const [first, ...rest] = d.message.split(/\r?\n/);
  put('stor: ', first!, '      ');
  for (const line of rest) put('  ', line, '    ');
  for (const line of d.details ?? []) put('  ', line, '    ');
  if (d.hint) put('hint: ', d.hint, '      ');
}

/**
 * `prefix` and `text` as lines of at most `width` columns (`columnsOf`: a wide character is two),
 * broken only at a lone space, which the break replaces: every other space stays, so a name with
 * two spaces in a row reads back as it was given. Each later line starts with `indent`. A word
 * wider than a line keeps its own line, whole: a path or a command must stay one piece to be copied.
 */
export function wrapWords(prefix: string, text: string, width: number, indent: string): string[] {
  if (width === Infinity || columnsOf(prefix + text) <= width) return [prefix + text];
  const lines: string[] = [];
  let line = prefix;
  let used = columnsOf(prefix);
  let bare = true;
  // Only a lone space is a place to break: a run of spaces belongs to the words around it (a name
  // like "reports  2026"), so a broken line always reads back by joining with the one space it took.
  for (const word of text.split(/(?<! ) (?! )/)) {
    const wide = columnsOf(word);
    if (!bare && used + 1 + wide > width) {
      lines.push(line);
      line = indent + word;
      used = columnsOf(indent) + wide;
    } else {
      line += bare ? word : ` ${word}`;
      used += (bare ? 0 : 1) + wide;
    }
    bare = false;
  }
  lines.push(line);
  return lines;
}
