import type { Readable } from 'node:stream';
import { filesystemContract } from '../../contract/filesystem.js';
import type { Appliance } from '../appliance.js';
import { RpcError } from '../../errors.js';
import { validateParams } from '../params.js';
import { putFile } from '../files/put-file.js';
import type { Session } from '../session/session.js';

/** An upload the endpoint refuses before a job exists: the HTTP status and body (MW/apps/file_app.py:118-240). */
export class UploadRefused extends Error {
  constructor(
    readonly status: number,
    readonly body: string,
  ) {
    super(body || `HTTP ${status}`);
  }
}

/**
 * What aiohttp answers when the handler raises something it does not turn into a response
 * (`RequestHandler.handle_error`: `f"{status} {phrase}\n\n{description}"`, text/plain): 25.10.1's
 * upload handler lets a few errors through (MW/apps/file_app.py:118-247).
 */
export const AIOHTTP_500 = '500 Internal Server Error\n\nServer got itself in trouble';
export const unhandledInHandler = () => new UploadRefused(500, AIOHTTP_500);

/** The `data` part: which method gets the uploaded bytes, and its params. */
export interface UploadCall {
  method: string;
  params: unknown[];
}

/**
 * Who may upload (docs/RELEASES.md "Emulator behaviours", `uploadGate`). `full-admin` is 25.10.1: the
 * endpoint authorizes a call of `filesystem.put`, whose only role is FULL_ADMIN
 * (MW/apps/file_app.py:190-200). `sys-admin` is the gate the reports describe: the SYS_ADMIN
 * attribute, whatever the roles. `role` is the declared intent: FILESYSTEM_DATA_WRITE suffices.
 */
export function mayUpload(appliance: Appliance, session: Session): boolean {
  switch (appliance.settings.uploadGate) {
    case 'role':
      return session.holdsAny(['FILESYSTEM_DATA_WRITE']);
    case 'full-admin':
      return session.isFullAdmin;
    case 'sys-admin':
      return session.accountAttributes.includes('SYS_ADMIN');
  }
}

/**
 * Whether `session` may call `method` as the upload endpoint asks a token's parent
 * (`authorize("CALL", method)`, MW/plugins/auth.py:458-490): `filesystem.put` through this
 * appliance's gate; any other method by its roles; a method with no roles, or none at all, only
 * through FULL_ADMIN's wildcard allowlist.
 */
export function mayCallForUpload(appliance: Appliance, session: Session, method: string): boolean {
  if (method === 'filesystem.put') return mayUpload(appliance, session);
  const def = appliance.contract.get(method);
  return def?.access.kind === 'roles' ? session.holdsAny(def.access.roles) : session.isFullAdmin;
}

/**
 * Everything between the `data` part (with the credentials) and the bytes: method lookup and the
 * gate, refused with the endpoint's statuses. It returns the function that starts the
 * `filesystem.put` job; params are validated inside the job, as on the appliance, so bad params
 * still get a job id and the job fails with a validation error.
 */
export function authorizeUpload(appliance: Appliance, session: Session, call: UploadCall): UploadStarter {
  const dot = call.method.lastIndexOf('.');
  if (dot <= 0) throw new UploadRefused(412, '[EBADMSG] Invalid method name');
  const service = call.method.slice(0, dot);
  const def = appliance.contract.get(call.method);
  if (!def) {
    const serviceKnown = [...appliance.contract.keys()].some((m) => m.startsWith(`${service}.`));
    throw new UploadRefused(
      422,
      serviceKnown
        ? `[ENOMETHOD] Method '${call.method.slice(dot + 1)}' not found in '${service}'`
        : `[ENOMETHOD] Service '${service}' not found`,
    );
  }
  if (call.method !== 'filesystem.put') {
    if (def.access.kind === 'roles' && !session.holdsAny(def.access.roles))
      throw new UploadRefused(403, '403: Forbidden');
    if (def.job !== true) {
      // 25.10.1 calls it (a validation error is a CallError: 412 and its text, file_app.py:230-236),
      // then reads `.id` of its answer outside the try: AttributeError, aiohttp's 500 (:242-247).
      // The emulator does not run the method (docs/RELEASES.md "Deviations left").
      try {
        validateParams(def.params, call.params, appliance.release);
      } catch (err) {
        if (err instanceof RpcError) throw new UploadRefused(412, err.reason);
        throw err;
      }
      throw unhandledInHandler();
    }
    throw new UploadRefused(412, `[EINVAL] ${call.method} does not take uploaded data; only filesystem.put does`);
  }
  if (!mayUpload(appliance, session)) throw new UploadRefused(403, '403: Forbidden');
  return (source, commit) => startPut(appliance, session, call, source, commit);
}

/** Starts the job once the bytes are at hand; `commit` settles when the request ended (well or not). */
export type UploadStarter = (source: Readable, commit: Promise<void>) => { jobId: number; done: Promise<unknown> };

function startPut(appliance: Appliance, session: Session, call: UploadCall, source: Readable, commit: Promise<void>) {
  const job = appliance.jobs.start(session, call.method, call.params, undefined, async () => {
    let path: string;
    let options: { append: boolean; mode: number | null };
    try {
      [path, options] = validateParams(filesystemContract['filesystem.put'].params, call.params);
    } catch (err) {
      source.resume();
      throw err;
    }
    return putFile(appliance, session, path, options, source, commit);
  });
  return { jobId: job.id, done: job.done };
}
