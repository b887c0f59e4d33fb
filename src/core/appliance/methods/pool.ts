import { poolContract } from '../../contract/pool.js';
import { rpcErrors } from '../../errors.js';
import { implement } from '../method.js';
import { poolEntries } from '../pools/entry.js';
import { asInstance, query } from '../query/index.js';

// The handlers of contract/pool.ts; the entries are built in pools/entry.ts.

export const poolMethods = [
  implement(poolContract['pool.query'], async ({ appliance }, filters, options) => query(await poolEntries(appliance, options), filters, options)),
  implement(poolContract['pool.get_instance'], async ({ appliance }, id, options) => {
    const found = query(await poolEntries(appliance, options), [['id', '=', id]], options);
    if (!Array.isArray(found) || found.length === 0) throw rpcErrors.instanceNotFound('Pool', id);
    return asInstance(found[0]!);
  }),
];
