import * as z from 'zod';
import { ejsonDate } from './ejson.js';
import { once, roles } from './method.js';
import { method, service } from './service.js';

/** Alert (`MW/api/v25_10_1/alert.py:19-49`), in its field order; `datetime_` travels as `datetime`. */
export const alertEntry = once(() =>
  z.object({
    uuid: z.string(),
    source: z.string(),
    klass: z.string(),
    args: z.unknown(),
    node: z.string(),
    key: z.string(),
    datetime: ejsonDate(),
    last_occurrence: ejsonDate(),
    dismissed: z.boolean(),
    mail: z.unknown(),
    text: z.string(),
    id: z.string(),
    level: z.string(),
    formatted: z.string().nullable(),
    one_shot: z.boolean(),
  }),
);

export const alertContract = service('alert', {
  // MW/plugins/alert.py:373-393; AlertListArgs/AlertListResult (MW/api/v25_10_1/alert.py:108-114).
  list: method({
    summary: 'The current alerts, active and dismissed, most severe first.',
    access: roles('ALERT_LIST_READ'),
    params: () => [],
    result: () => z.array(alertEntry()),
  }),
});
