import * as z from 'zod';
import { modeledAs } from './json-schema.js';
import { once } from './method.js';

/**
 * Marks a schema as a datetime of 25.10.1's models: it travels as an EJSON object (below), but
 * pydantic's schema of a `datetime` field, which `core.get_methods` describes, is a string
 * (MW/api/base/jsonschema.py:10-15).
 */
export const datetime = <S extends z.ZodType>(schema: S): S =>
  modeledAs(schema, { type: 'string', format: 'date-time' });

/**
 * A datetime as it travels (`truenas_api_client/ejson.py:48-52`): `{"$date": ms}`; the
 * appliance encodes whole seconds (`timetuple()` drops the microseconds).
 */
export const ejsonDate = once(() => datetime(z.object({ $date: z.int() })));
