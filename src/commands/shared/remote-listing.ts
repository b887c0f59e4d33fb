import { queryItems } from '../../core/contract/client.js';
import { notAnApplianceAnswer } from '../../core/contract/answer-error.js';
import type { Transport } from '../../core/transport/transport.js';

/** An entry of a remote directory, as listdir gives it. */
export interface RemoteEntry {
  type: string;
  size: number;
  mode: number;
}

/**
 * A remote directory's entries by name: one filesystem.listdir. A name no directory on a Linux
 * appliance can hold (empty, `.`, `..`, a `/` or a NUL in it: MW/plugins/filesystem.py lists
 * readdir's names) or the same name twice is the appliance's fault, refused with the directory's
 * path: used as a local name it would point elsewhere, fail deep in Node, or overwrite its twin.
 */
export async function listDirectory(t: Transport, dir: string): Promise<Map<string, RemoteEntry>> {
  const items = await queryItems(t, 'filesystem.listdir', ['name', 'type', 'size', 'mode'], [], {}, [dir]);
  const entries = new Map<string, RemoteEntry>();
  for (const e of items) {
    const name: unknown = e.name;
    if (typeof name !== 'string' || name === '' || name === '.' || name === '..' || /[/\0]/.test(name)) {
      throw notAnApplianceAnswer(
        'filesystem.listdir',
        `the appliance listed ${dir} with an entry named ${JSON.stringify(name)}, which no directory can hold`,
      );
    }
    if (entries.has(name))
      throw notAnApplianceAnswer(
        'filesystem.listdir',
        `the appliance listed ${dir} with ${JSON.stringify(name)} twice`,
      );
    entries.set(name, { type: e.type, size: e.size, mode: e.mode });
  }
  return entries;
}
