import { existsSync } from 'node:fs';
import { join } from 'node:path';

/** The appliance's database, inside its state directory. */
export const STATE_DB_FILE = 'stor.db';

/** Whether a state directory holds an appliance yet; opening one that does not creates and seeds it. */
export function hasAppliance(stateDir: string): boolean {
  return existsSync(join(stateDir, STATE_DB_FILE));
}
