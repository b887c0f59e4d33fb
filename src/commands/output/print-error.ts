import type { DescribedError } from './describe-error.js';
import { escapeControls, escapeJson } from './escape.js';
import type { OutputStream } from './io.js';

/**
 * How a command's error reaches stderr, the one format scripts parse: with `--json` one
 * `{"error":{…}}` line; else `stor: MESSAGE`, its details indented, and `hint: …`. Used by `run()`
 * and by the first stage when its agent is lost (SESSION_LOST).
 */
export function writeError(stderr: OutputStream, d: DescribedError, json: boolean): void {
  if (json) {
    stderr.write(`${escapeJson(JSON.stringify({ error: { code: d.errorCode, kind: d.kind, message: d.message, ...(d.hint ? { hint: d.hint } : {}), ...(d.details ? { details: d.details } : {}) } }))}\n`);
    return;
  }
  // Messages carry the appliance's own texts (reasons, names, paths): never raw controls. A line
  // break in one is a break, its later lines indented, so none can pass for a line of stor's own.
  const [first, ...rest] = d.message.split(/\r?\n/);
  stderr.write(`stor: ${escapeControls(first!)}\n`);
  for (const line of rest) stderr.write(`  ${escapeControls(line)}\n`);
  for (const line of d.details ?? []) stderr.write(`  ${escapeControls(line)}\n`);
  if (d.hint) stderr.write(`hint: ${escapeControls(d.hint)}\n`);
}
