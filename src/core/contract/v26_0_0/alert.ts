import * as z from 'zod';
import { alertContract, alertEntry } from '../alert.js';
import { once } from '../method.js';
import { method, service } from '../service.js';

// What 26.0 changed in alert.list (`git diff TS-25.10.1:MW/api/v25_10_1/alert.py
// stable/26:MW/api/v26_0_0/alert.py`): Alert declares `id` first (stable/26 MW/api/v26_0_0/alert.py:19-34),
// where 25.10.1 has it after `text` (MW/api/v25_10_1/alert.py:19-49); the fields and their types are
// the same. The emulator raises no alerts, so only the model's order shows (core.get_methods' schema).

/** Alert in 26: `id`, then 25.10.1's fields in their order. */
const alertEntry26 = once(() => {
  const { id, ...fields } = alertEntry().shape;
  return z.object({ id, ...fields });
});

const base = alertContract['alert.list'];

export const alertContract26 = service('alert', {
  list: method({
    summary: base.summary,
    access: base.access,
    params: () => [],
    result: () => z.array(alertEntry26()),
  }),
});
