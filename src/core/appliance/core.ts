import { randomUUID } from 'node:crypto';
import { z } from 'zod';
import { ERRNO, rpcErrors } from '../errors.js';
import { mayRead, type JobEvent } from './jobs.js';
import { AUTHENTICATED, PUBLIC, PUBLIC_UNLIMITED, defineMethod } from './method.js';
import { query } from './query.js';
import { QUERY_PARAMS } from './query-params.js';

/** Events a session may subscribe to; job events need only a login (facts §1.6). */
const SUBSCRIBABLE = new Set(['core.get_jobs', '*']);

export const coreMethods = [
  defineMethod({
    name: 'core.ping',
    summary: 'Answers "pong"; needs no login.',
    access: PUBLIC,
    params: [],
    handler: () => 'pong',
  }),
  defineMethod({
    name: 'core.set_options',
    summary: 'Set connection options {legacy_jobs, private_methods, py_exceptions}; returns them all.',
    access: PUBLIC_UNLIMITED,
    // Unknown keys are ignored, as on the appliance.
    params: [
      {
        name: 'options',
        schema: z.looseObject({ legacy_jobs: z.boolean().optional(), private_methods: z.boolean().optional(), py_exceptions: z.boolean().optional() }),
      },
    ],
    handler: ({ session }, options) => {
      const { legacy_jobs, private_methods, py_exceptions } = options;
      session.options = {
        legacy_jobs: legacy_jobs ?? session.options.legacy_jobs,
        private_methods: private_methods ?? session.options.private_methods,
        py_exceptions: py_exceptions ?? session.options.py_exceptions,
      };
      return { ...session.options };
    },
  }),
  defineMethod({
    name: 'core.get_jobs',
    summary: 'Jobs this session may see (its own; all for full administrators).',
    access: AUTHENTICATED,
    params: QUERY_PARAMS,
    handler: ({ appliance, session }, filters, options) => query(appliance.jobs.visible(session), filters, options),
  }),
  defineMethod({
    name: 'core.job_wait',
    summary: 'A job that waits for job N and ends with its result.',
    access: AUTHENTICATED,
    job: true,
    params: [{ name: 'id', schema: z.int() }],
    handler: ({ appliance, session }, id) => appliance.jobs.wait(session, id),
  }),
  defineMethod({
    name: 'core.subscribe',
    summary: 'Subscribe to an event ("core.get_jobs"); returns the subscription id.',
    access: AUTHENTICATED,
    params: [{ name: 'event', schema: z.string().min(1).max(1024) }],
    handler: ({ appliance, session }, event) => {
      if (!SUBSCRIBABLE.has(event)) throw rpcErrors.call(ERRNO.ENOENT, `Event ${JSON.stringify(event)} does not exist`);
      // Events need a channel back: a WebSocket. An HTTP request ends with its answer.
      if (!session.notify) throw rpcErrors.call(ERRNO.EINVAL, 'Subscriptions need a WebSocket connection to /api/current');
      const id = randomUUID();
      const listener = (e: JobEvent, owner: string | null) => {
        if (mayRead(session, owner)) session.notify?.('collection_update', e);
      };
      appliance.jobs.on('event', listener);
      session.subscriptions.set(id, () => appliance.jobs.off('event', listener));
      return id;
    },
  }),
  defineMethod({
    name: 'core.unsubscribe',
    summary: 'End a subscription.',
    access: AUTHENTICATED,
    params: [{ name: 'id_', schema: z.string().max(1024) }],
    handler: ({ session }, id) => {
      session.subscriptions.get(id)?.();
      session.subscriptions.delete(id);
      return null;
    },
  }),
];
