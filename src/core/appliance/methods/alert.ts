import { alertContract } from '../../contract/alert.js';
import { implement } from '../method.js';

// The handlers of contract/alert.ts. The emulator runs no alert sources (MW/alert/source/), so it
// has no alerts: `alert.list` answers none, and its event (contract/events.ts) never fires.
export const alertMethods = [implement(alertContract['alert.list'], () => [])];
