import { filesystemContract } from '../../contract/filesystem.js';
import { ERRNO, rpcErrors } from '../../errors.js';
import type { Appliance } from '../appliance.js';
import { generateToken } from '../session/login.js';
import { OutputPipe } from './downloads.js';
import { getIntoPipe } from '../files/get.js';
import type { CallContext } from '../method.js';
import { validateParams } from '../params.js';
import type { Session } from '../session/session.js';

/**
 * Methods that write an output pipe (`@job(pipes=["output"])`): each validates its params against
 * its contract and answers what its job does with the pipe.
 */
const OUTPUT_METHODS: Record<
  string,
  (appliance: Appliance, params: readonly unknown[]) => (pipe: OutputPipe) => Promise<unknown>
> = {
  'filesystem.get': (appliance, params) => {
    const [path] = validateParams(filesystemContract['filesystem.get'].params, params);
    return (pipe) => getIntoPipe(appliance, path, pipe);
  },
};

/** `authorize('CALL', method)` of the session's allowlist: a method's roles, or FULL_ADMIN's wildcard. */
function mayCall(appliance: Appliance, session: Session, method: string): boolean {
  const def = appliance.contract.get(method);
  return def?.access.kind === 'roles' ? session.holdsAny(def.access.roles) : session.isFullAdmin;
}

/** `get_method`'s refusal of a name it does not know (as the upload endpoint words it). */
function methodNotKnown(appliance: Appliance, method: string) {
  const dot = method.lastIndexOf('.');
  const service = method.slice(0, Math.max(dot, 0));
  const serviceKnown = dot > 0 && [...appliance.contract.keys()].some((m) => m.startsWith(`${service}.`));
  return rpcErrors.call(
    ERRNO.ENOMETHOD,
    serviceKnown
      ? `Method '${method.slice(dot + 1)}' not found in '${service}'`
      : `Service '${service || method}' not found`,
  );
}

/**
 * `core.download` (MW/service/core_service.py:497-530): authorizes `method` for the caller,
 * validates `args`, starts the job with an output pipe, and answers its id and the URL to GET the
 * bytes from, with a single-use token (ttl 300 s, bound to the caller's address, attrs naming the
 * job and file name). The pipe waits for that GET (MW/apps/file_app.py).
 */
export function startDownload(
  ctx: CallContext,
  method: string,
  args: unknown[],
  filename: string,
  buffered: boolean,
): [number, string] {
  const { appliance, session } = ctx;
  if (!mayCall(appliance, session, method)) throw rpcErrors.call(ERRNO.EACCES, 'Not authorized');
  const def = appliance.contract.get(method);
  if (!def) throw methodNotKnown(appliance, method);
  const work = OUTPUT_METHODS[method];
  // Only a job with an output pipe can be downloaded; no other method of the emulator has one.
  if (!work)
    throw rpcErrors.call(
      ERRNO.EINVAL,
      `${method} writes no output to download; only ${Object.keys(OUTPUT_METHODS).join(', ')} can be`,
    );
  const writeInto = work(appliance, args);
  const pipe = new OutputPipe(buffered);
  // No message id: `_download` starts the job through call_with_audit, which passes none
  // (MW/service/core_service.py:509-512, MW/job.py:300), so the job's `message_ids` is empty. Were
  // it the core.download call's id, the official client, taking a core.get_jobs event that names
  // its call for a job's start, would answer that call with the job id instead of [id, url]
  // (truenas_api_client/__init__.py:502-510).
  const job = appliance.jobs.start(
    session,
    method,
    [...args],
    null,
    async () => {
      try {
        return await writeInto(pipe);
      } finally {
        pipe.writerClosed();
      }
    },
    { output: true },
  );
  let token: string;
  try {
    token = generateToken(ctx, 300, { filename, job: job.id }, true, true);
  } catch (err) {
    // Refused (the session's token bound, or a file name too long for attrs): nobody will ever
    // read this pipe, so close it now and the job ends with a broken pipe instead of waiting.
    void pipe.close();
    throw err;
  }
  appliance.downloads.register(job.id, pipe);
  return [job.id, `/_download/${job.id}?auth_token=${token}`];
}
