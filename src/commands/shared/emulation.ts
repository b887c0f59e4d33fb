import type { EmulationInfo } from '../../core/contract/system.js';
import { RPC_CODE, RpcError } from '../../core/errors.js';
import type { Transport } from '../../core/transport/transport.js';

/**
 * How the target emulates 25.10.1 when it is stor's emulator (`stor.emulation`), or null for a
 * real appliance, which has no such method (-32601). Commands that explain an appliance's
 * behaviour ask this instead of assuming one model.
 */
export async function targetEmulation(t: Transport): Promise<EmulationInfo | null> {
  let answer: unknown;
  try {
    answer = await t.call('stor.emulation');
  } catch (err) {
    if (err instanceof RpcError && err.code === RPC_CODE.METHOD_NOT_FOUND) return null;
    throw err;
  }
  const info = answer as Partial<EmulationInfo> | null;
  return info?.emulator === 'stor' && typeof info.settings === 'object' && info.settings !== null ? (info as EmulationInfo) : null;
}
