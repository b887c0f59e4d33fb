import * as z from 'zod';

/**
 * A datetime as it travels (facts §1.10, `truenas_api_client/ejson.py`): `{"$date": ms}`; the
 * appliance encodes whole seconds (`timetuple()` drops the microseconds).
 */
export const ejsonDate = z.object({ $date: z.int() });
