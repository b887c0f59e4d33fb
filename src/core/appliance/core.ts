import { z } from 'zod';
import { PUBLIC, PUBLIC_UNLIMITED, defineMethod } from './method.js';

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
    params: [{ name: 'options', schema: z.looseObject({ legacy_jobs: z.boolean().optional(), private_methods: z.boolean().optional(), py_exceptions: z.boolean().optional() }) }],
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
];
