import * as z from 'zod';
import { once } from './method.js';

/**
 * A datetime as it travels (`truenas_api_client/ejson.py:48-52`): `{"$date": ms}`; the
 * appliance encodes whole seconds (`timetuple()` drops the microseconds).
 */
export const ejsonDate = once(() => z.object({ $date: z.int() }));
