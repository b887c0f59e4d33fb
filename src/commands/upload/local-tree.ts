import { closeSync, openSync, readdirSync, realpathSync, statSync, type Stats } from 'node:fs';
import { basename, join } from 'node:path';
import { StorError } from '../../core/errors.js';
import { E } from '../../core/error-catalogue.js';

/** A local file and where it goes on the appliance. */
export interface PlannedFile {
  /** As the user named it (or as found under a named directory): what the report shows. */
  source: string;
  /** Absolute local path. */
  path: string;
  size: number;
  target: string;
}

/** What `upload -r` will do: the directories to have on the appliance (parents first) and the files. */
export interface TreePlan {
  directories: string[];
  files: PlannedFile[];
}

const errnoOf = (err: unknown) => (err as NodeJS.ErrnoException).code ?? (err as Error).message;

/** Opened now, not when its turn comes: an unreadable file must stop the command before any upload. */
export function assertReadable(path: string, shown: string): void {
  try {
    closeSync(openSync(path, 'r'));
  } catch (err) {
    throw new StorError(E.LOCAL_FILE_UNREADABLE, `cannot read the local file ${shown}: ${errnoOf(err)}`);
  }
}

/**
 * Walks the local directory `path` (shown as `shown`) into `plan`, mirroring it below `remote`.
 * Symbolic links are skipped (and said so through `note`) unless `follow`; then a link back to a
 * directory already on the way down is skipped too, as find -L does, instead of looping.
 */
export function walkTree(
  plan: TreePlan,
  path: string,
  shown: string,
  remote: string,
  follow: boolean,
  note: (line: string) => void,
): void {
  const walk = (dir: string, shownDir: string, remoteDir: string, ancestors: Set<string>) => {
    plan.directories.push(remoteDir);
    let entries;
    try {
      entries = readdirSync(dir, { withFileTypes: true }).sort((a, b) =>
        a.name < b.name ? -1 : a.name > b.name ? 1 : 0,
      );
    } catch (err) {
      throw new StorError(E.LOCAL_FILE_UNREADABLE, `cannot read the local directory ${shownDir}: ${errnoOf(err)}`);
    }
    for (const entry of entries) {
      const local = join(dir, entry.name);
      const shownEntry = join(shownDir, entry.name);
      let st: Stats | undefined;
      if (entry.isSymbolicLink()) {
        if (!follow) {
          note(`stor: skipped the symbolic link ${shownEntry} (--follow uploads what it points to)`);
          continue;
        }
        try {
          st = statSync(local);
        } catch {
          note(`stor: skipped the broken symbolic link ${shownEntry}`);
          continue;
        }
      }
      const isDir = st ? st.isDirectory() : entry.isDirectory();
      const isFile = st ? st.isFile() : entry.isFile();
      if (isDir) {
        const real = realpathSync(local);
        if (ancestors.has(real)) {
          note(`stor: skipped ${shownEntry}: a link back to a directory above it`);
          continue;
        }
        walk(local, shownEntry, `${remoteDir}/${entry.name}`, new Set([...ancestors, real]));
      } else if (isFile) {
        assertReadable(local, shownEntry);
        plan.files.push({
          source: shownEntry,
          path: local,
          size: (st ?? statSync(local)).size,
          target: `${remoteDir}/${entry.name}`,
        });
      } else {
        note(`stor: skipped ${shownEntry}: not a regular file or directory`);
      }
    }
  };
  walk(path, shown, `${remote}/${basename(path)}`, new Set([realpathSync(path)]));
}
