import { callForFields } from '../../core/contract/client.js';
import { E } from '../../core/error-catalogue.js';
import type { EmulationInfo } from '../../core/contract/system.js';
import { RPC_CODE, RpcError, StorError } from '../../core/errors.js';
import type { Transport } from '../../core/transport/transport.js';

/**
 * How the target emulates 25.10.1 when it is stor's emulator (`stor.emulation`), or null for a
 * real appliance, which has no such method (-32601). Commands that explain an appliance's
 * behaviour ask this instead of assuming one model.
 */
export async function targetEmulation(t: Transport): Promise<EmulationInfo | null> {
  try {
    return await callForFields(t, 'stor.emulation');
  } catch (err) {
    if (err instanceof RpcError && err.code === RPC_CODE.METHOD_NOT_FOUND) return null;
    // Something else answering under that name is not stor's emulator.
    if (err instanceof StorError && err.code === E.MALFORMED_ANSWER.code) return null;
    throw err;
  }
}
