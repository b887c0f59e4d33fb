/*
 * Which of the CLI's large code paths a command took, told to the code cache (code-cache.ts, in
 * start.cjs) from inside the bundle it loaded (stor.cjs): the two are separate bundles, so the
 * news travels as an event on `process`, under a registered symbol both agree on. Nothing listens
 * in the session agent or in tests; the event is then dropped.
 */

import type { EventEmitter } from 'node:events';

/** A target's transport: the code a command loads past the CLI itself (the appliance, ws, fetch). */
export type CodePath = 'embedded' | 'ws' | 'http';

/** The event's name on `process`. */
export const CODE_PATH_EVENT = Symbol.for('stor.code-path');

/** Tells the code cache, if one listens, that this command took `path`. */
export function codePathTaken(path: CodePath): void {
  // @types/node lists process's own events only; `process` is an EventEmitter like any other.
  (process as EventEmitter).emit(CODE_PATH_EVENT, path);
}
