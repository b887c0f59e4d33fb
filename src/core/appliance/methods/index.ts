import type { MethodDefinition } from '../method.js';

/**
 * The handler table: every method the emulated appliance answers, its contract and its handler,
 * one file per contract file. Only the dispatcher (rpc/dispatcher.ts) reads it; whatever else
 * needs a method's name, params or roles (core.get_methods, the allowlist a login composes,
 * core.download, /_upload/) reads the contract (`Appliance.contract`).
 *
 * A file is loaded when a method of its namespace is first called, not at load: a command calls a
 * few methods of two or three namespaces, and loading every handler file and the rooms they import
 * cost an embedded `stor whoami` milliseconds at every start (bench/HISTORY.md).
 */
interface HandlerFile {
  /** 25.10.1's handlers. */
  readonly methods: readonly MethodDefinition[];
  /**
   * Handlers written from a later release's own entry rather than 25.10.1's (26.0's SCRAM login:
   * contract/v26_0_0/auth.ts, api-key.ts; its sharing.nfs entries, sharing-nfs.ts). The dispatcher
   * serves an entry of the release's contract with the handler implemented from that very entry,
   * here or among `methods`; an entry no handler was implemented from gets 25.10.1's handler,
   * adapted (dispatcher.ts `releaseMethod`).
   */
  readonly release?: readonly MethodDefinition[];
}

/** The handler files, in the order the table was always read: what `allHandlers` lists. */
const FILES = {
  core: () => import('./core.js').then((m) => ({ methods: m.coreMethods })),
  auth: () => import('./auth.js').then((m) => ({ methods: m.authMethods, release: m.authMethods26 })),
  privilege: () => import('./privilege.js').then((m) => ({ methods: m.privilegeMethods })),
  user: () => import('./user.js').then((m) => ({ methods: m.userMethods })),
  group: () => import('./group.js').then((m) => ({ methods: m.groupMethods })),
  'api-key': () => import('./api-key.js').then((m) => ({ methods: m.apiKeyMethods, release: m.apiKeyMethods26 })),
  filesystem: () => import('./filesystem.js').then((m) => ({ methods: m.filesystemMethods })),
  pool: () => import('./pool.js').then((m) => ({ methods: m.poolMethods })),
  'pool-dataset': () => import('./pool-dataset.js').then((m) => ({ methods: m.poolDatasetMethods })),
  'pool-snapshot': () =>
    import('./pool-snapshot.js').then((m) => ({ methods: m.poolSnapshotMethods, release: m.poolSnapshotMethods26 })),
  'pool-snapshottask': () =>
    import('./pool-snapshottask.js').then((m) => ({
      methods: m.poolSnapshotTaskMethods,
      release: m.poolSnapshotTaskMethods26,
    })),
  replication: () =>
    import('./replication.js').then((m) => ({ methods: m.replicationMethods, release: m.replicationMethods26 })),
  system: () => import('./system.js').then((m) => ({ methods: m.systemMethods })),
  alert: () => import('./alert.js').then((m) => ({ methods: m.alertMethods })),
  'sharing-nfs': () =>
    import('./sharing-nfs.js').then((m) => ({ methods: m.sharingNfsMethods, release: m.sharingNfsMethods26 })),
  nfs: () => import('./nfs.js').then((m) => ({ methods: m.nfsMethods })),
  'sharing-smb': () =>
    import('./sharing-smb.js').then((m) => ({ methods: m.sharingSmbMethods, release: m.sharingSmbMethods26 })),
  smb: () => import('./smb.js').then((m) => ({ methods: m.smbMethods, release: m.smbMethods26 })),
  'service-namespace': () => import('./service-namespace.js').then((m) => ({ methods: m.serviceNamespaceMethods })),
  keychain: () => import('./keychain.js').then((m) => ({ methods: m.keychainMethods })),
} satisfies Record<string, () => Promise<HandlerFile>>;

export type HandlerFileName = keyof typeof FILES;

/**
 * The file that holds a namespace's handlers (a method's name up to its last dot). A method whose
 * namespace is not here, or not in its file, is looked for in every file (`handlersOf`); a test
 * holds every handler in the file its namespace names (test/core/appliance/methods/index.test.ts).
 */
const NAMESPACE_FILES: Readonly<Record<string, HandlerFileName>> = {
  core: 'core',
  auth: 'auth',
  'auth.twofactor': 'auth',
  privilege: 'privilege',
  user: 'user',
  group: 'group',
  api_key: 'api-key',
  filesystem: 'filesystem',
  pool: 'pool',
  'pool.dataset': 'pool-dataset',
  'pool.snapshot': 'pool-snapshot',
  'pool.snapshottask': 'pool-snapshottask',
  replication: 'replication',
  'replication.config': 'replication',
  system: 'system',
  stor: 'system',
  alert: 'alert',
  'sharing.nfs': 'sharing-nfs',
  nfs: 'nfs',
  'sharing.smb': 'sharing-smb',
  smb: 'smb',
  service: 'service-namespace',
  keychaincredential: 'keychain',
};

/** The file a method's namespace names, undefined when none does. */
export function namespaceFileOf(method: string): HandlerFileName | undefined {
  const namespace = method.slice(0, Math.max(0, method.lastIndexOf('.')));
  return Object.hasOwn(NAMESPACE_FILES, namespace) ? NAMESPACE_FILES[namespace] : undefined;
}

/** What the dispatcher chooses a method's handler from. */
export interface Handlers {
  /** 25.10.1's handler; undefined when the emulator has none. */
  readonly base: MethodDefinition | undefined;
  /** Handlers implemented from a later release's own entries of this method. */
  readonly release: readonly MethodDefinition[];
}

/** A loaded file's handlers by name. */
interface LoadedFile {
  readonly base: ReadonlyMap<string, MethodDefinition>;
  readonly release: ReadonlyMap<string, readonly MethodDefinition[]>;
}

const loaded = new Map<HandlerFileName, LoadedFile>();
const loading = new Map<HandlerFileName, Promise<LoadedFile>>();

function load(name: HandlerFileName): Promise<LoadedFile> {
  let pending = loading.get(name);
  if (pending === undefined) {
    pending = FILES[name]().then((file: HandlerFile) => {
      const release = new Map<string, MethodDefinition[]>();
      for (const m of file.release ?? []) release.set(m.name, [...(release.get(m.name) ?? []), m]);
      const table: LoadedFile = { base: new Map(file.methods.map((m) => [m.name, m])), release };
      loaded.set(name, table);
      return table;
    });
    loading.set(name, pending);
  }
  return pending;
}

const NONE: readonly MethodDefinition[] = [];
const inFile = (file: LoadedFile, method: string): Handlers | undefined => {
  const base = file.base.get(method);
  const release = file.release.get(method);
  return base === undefined && release === undefined ? undefined : { base, release: release ?? NONE };
};
const NO_HANDLERS: Handlers = { base: undefined, release: NONE };
let everyFileLoaded = false;

/**
 * A method's handlers if the file that holds them is loaded already (undefined when not): the
 * dispatcher then calls at once, as before any file was loaded lazily.
 */
export function loadedHandlersOf(method: string): Handlers | undefined {
  const fileName = namespaceFileOf(method);
  const file = fileName === undefined ? undefined : loaded.get(fileName);
  const found = file && inFile(file, method);
  if (found) return found;
  if (!everyFileLoaded) return undefined;
  for (const f of loaded.values()) {
    const h = inFile(f, method);
    if (h) return h;
  }
  return NO_HANDLERS;
}

/** A method's handlers, loading the file its namespace names (every file, when that one has none). */
export async function handlersOf(method: string): Promise<Handlers> {
  const fileName = namespaceFileOf(method);
  if (fileName !== undefined) {
    const found = inFile(await load(fileName), method);
    if (found) return found;
  }
  await allHandlers();
  return loadedHandlersOf(method) ?? NO_HANDLERS;
}

/** Every file loaded: 25.10.1's handlers by name, and the later releases' own (tests read the whole table). */
export async function allHandlers(): Promise<{
  methods: ReadonlyMap<string, MethodDefinition>;
  release: ReadonlyMap<string, readonly MethodDefinition[]>;
}> {
  const files = await Promise.all((Object.keys(FILES) as HandlerFileName[]).map(load));
  everyFileLoaded = true;
  const methods = new Map<string, MethodDefinition>();
  const release = new Map<string, readonly MethodDefinition[]>();
  for (const f of files) {
    for (const [name, m] of f.base) methods.set(name, m);
    for (const [name, list] of f.release) release.set(name, [...(release.get(name) ?? []), ...list]);
  }
  return { methods, release };
}

/** The handler files loaded so far, in the order they were: what a test of the laziness reads. */
export function loadedHandlerFiles(): HandlerFileName[] {
  return [...loaded.keys()];
}
