import * as z from 'zod';
import { once } from './method.js';

/**
 * A datetime as it travels (facts §1.10, `truenas_api_client/ejson.py`): `{"$date": ms}`; the
 * appliance encodes whole seconds (`timetuple()` drops the microseconds).
 */
export const ejsonDate = once(() => z.object({ $date: z.int() }));
