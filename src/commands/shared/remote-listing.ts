import { queryItems } from '../../core/contract/client.js';
import type { Transport } from '../../core/transport/transport.js';

/** An entry of a remote directory, as listdir gives it. */
export interface RemoteEntry {
  type: string;
  size: number;
  mode: number;
}

/** A remote directory's entries by name: one filesystem.listdir. */
export async function listDirectory(t: Transport, dir: string): Promise<Map<string, RemoteEntry>> {
  const items = await queryItems(t, 'filesystem.listdir', ['name', 'type', 'size', 'mode'], [], {}, [dir]);
  return new Map(items.map((e) => [e.name, { type: e.type, size: e.size, mode: e.mode }]));
}
