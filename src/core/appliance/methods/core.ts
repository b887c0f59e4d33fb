import { randomUUID } from 'node:crypto';
import { coreContract } from '../../contract/core.js';
import { CONTRACT_EVENTS } from '../../contract/events.js';
import { ERRNO, rpcErrors } from '../../errors.js';
import { allowlistAuthorizes } from '../session/allowlist.js';
import { startDownload } from '../jobs/core-download.js';
import { implement } from '../method.js';
import { methodMetadata } from '../method-metadata.js';
import { query } from '../query/index.js';
import type { Session } from '../session/session.js';

// The handlers of contract/core.ts, as `MW/service/core_service.py` answers them.

/**
 * `can_subscribe` (MW/main.py:926-941): an event registered `no_authz_required` (job events,
 * MW/job.py:99-102) needs only a login; any other name, known or not, what the session's
 * allowlist grants for SUBSCRIBE: the events its roles are registered for (session/compose.ts),
 * everything for a full administrator. Dynamic sources are named `name:{args}`; the part before
 * the colon is what is authorized.
 */
function maySubscribe(session: Session, event: string): boolean {
  const short = event.split(':')[0]!;
  return (
    CONTRACT_EVENTS.get(short)?.noAuthzRequired === true ||
    allowlistAuthorizes(session.privilege?.allowlist ?? [], 'SUBSCRIBE', short)
  );
}

export const coreMethods = [
  implement(coreContract['core.ping'], () => 'pong' as const),
  implement(coreContract['core.set_options'], ({ session }, options) => {
    session.options = { ...session.options, ...options };
    const { legacy_jobs, private_methods, py_exceptions } = session.options;
    return { legacy_jobs, private_methods, py_exceptions };
  }),
  implement(coreContract['core.get_jobs'], ({ appliance, session }, filters, options) =>
    query(appliance.jobs.visible(session), filters, options),
  ),
  implement(coreContract['core.job_wait'], ({ appliance, session }, id) => appliance.jobs.wait(session, id)),
  implement(coreContract['core.job_abort'], ({ appliance, session }, id) => {
    appliance.jobs.abort(session, id);
    return null;
  }),
  implement(coreContract['core.subscribe'], ({ appliance, session }, event) => {
    if (!maySubscribe(session, event)) throw rpcErrors.notAuthorized();
    // Events need a channel back: a WebSocket. An HTTP request ends with its answer.
    if (!session.notify)
      throw rpcErrors.call(ERRNO.EINVAL, 'Subscriptions need a WebSocket connection to /api/current');
    const id = randomUUID();
    appliance.events.subscribe(session, id, event);
    return id;
  }),
  // An unknown id is no error (RpcWebSocketApp.unsubscribe, MW/api/base/server/ws_handler/rpc.py:149-153).
  implement(coreContract['core.unsubscribe'], ({ session }, id) => {
    session.subscriptions.delete(id);
    return null;
  }),
  implement(coreContract['core.download'], (ctx, method, args, filename, buffered) =>
    startDownload(ctx, method, args, filename, buffered),
  ),
  implement(coreContract['core.get_methods'], ({ appliance, session }, service, target) =>
    methodMetadata(appliance.contract, appliance.catalogue, session, service, target, appliance.release),
  ),
];
