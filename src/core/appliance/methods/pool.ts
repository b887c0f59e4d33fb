import { poolContract } from '../../contract/pool.js';
import { implement } from '../method.js';
import { poolEntries } from '../pools/entry.js';
import { getInstance, query } from '../query/index.js';

// The handlers of contract/pool.ts; the entries are built in pools/entry.ts.

export const poolMethods = [
  implement(poolContract['pool.query'], async ({ appliance }, filters, options) =>
    query(await poolEntries(appliance, options), filters, options),
  ),
  implement(poolContract['pool.get_instance'], async ({ appliance }, id, options) =>
    getInstance(await poolEntries(appliance, options), id, options, 'Pool'),
  ),
];
