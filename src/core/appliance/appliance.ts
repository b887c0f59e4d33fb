import { randomUUID } from 'node:crypto';
import type { MethodContract } from '../contract/method.js';
import { RELEASES, contractFor, type Release } from '../releases/index.js';
import type { RoleCatalogue } from '../roles/index.js';
import { listDatasets, type DatasetRecord } from '../store/datasets.js';
import { listOwners, listPools, type FileOwner } from '../store/files.js';
import { Store } from '../store/store.js';
import { AccountsSnapshot } from './accounts/accounts.js';
import { Downloads } from './jobs/downloads.js';
import { EventHub } from './events.js';
import { Jobs } from './jobs/jobs.js';
import { KeyCheckLimits } from './session/key-check-limits.js';
import { FairQueue } from './session/fair-queue.js';
import { LiveSessions } from './session/live-sessions.js';
import { MAX_SESSION_AGE_MS, Session, type Origin } from './session/session.js';
import { loadSettings, saveSettings, type ApplianceSettings } from './settings.js';
import { sweepUploadsInFlight } from './jobs/stray-uploads.js';
import { preparePathLocks } from './files/path-lock.js';
import { sweepCopiesInFlight } from './jobs/stray-snapshot-copies.js';
import { Tokens } from './session/tokens.js';
import { defaultHostLookup, type HostLookup } from './shares/nfs-hosts.js';
import { convertOwnKey } from './session/scram-keys.js';

export interface ApplianceOptions {
  stateDir: string;
  /** Settings to store with the state before serving (e.g. from `stor serve` flags). */
  settings?: Partial<ApplianceSettings>;
  /** How NFS share host names are looked up, and their bounds (tests give their own name servers). */
  hostLookup?: Partial<HostLookup>;
}

/**
 * A boot starting now, its id drawn when first asked for (`system.boot_id`): a command that never
 * asks loads no node:crypto for it, some fifty of Node's internal modules.
 */
function bootStartingNow(): { readonly at: number; readonly id: string } {
  let id: string | undefined;
  return {
    at: Date.now(),
    get id() {
      return (id ??= randomUUID());
    },
  };
}

/**
 * The emulated appliance: its state, its release's contract and role catalogue, and settings. It knows
 * nothing of sockets or the CLI; the dispatcher drives it and the transports and server wrap it.
 */
export class Appliance {
  /** The release it answers as (`settings.release`, stored with the state). */
  get release(): Release {
    return RELEASES[this.settings.release];
  }

  /** The release's role catalogue. */
  get catalogue(): RoleCatalogue {
    return this.release.catalogue();
  }

  /**
   * The methods of the release it emulates, by name: params, result and who may call them, with the
   * key login its settings chose (SCRAM's entries in or out, `contractFor`). Their handlers are the
   * dispatcher's alone (methods/index.ts).
   */
  get contract(): ReadonlyMap<string, MethodContract> {
    return contractFor(this.settings.release, this.settings.keyLogin);
  }

  readonly events = new EventHub();
  readonly jobs = new Jobs(this.events);
  /** Logged-in WebSocket and embedded connections, as `auth.sessions` lists them. */
  readonly liveSessions = new LiveSessions(this.events);
  /** `auth.generate_token` tokens: in memory, as on the appliance. */
  readonly tokens = new Tokens();
  /** core.download jobs waiting for their GET of /_download/. */
  readonly downloads = new Downloads();
  /** Failed API-key checks per key id and address, shared by every login path. */
  readonly keyChecks = new KeyCheckLimits();
  /** Key and password hashes of logins, in turns by client address (FairQueue). */
  readonly loginHashes = new FairQueue();
  /**
   * The appliance's clock, in milliseconds since the epoch: what a periodic snapshot task's name
   * and state read (and pool.snapshot.create's naming schema). Tests set it to a time of their own.
   */
  now: () => number = () => Date.now();
  /** AAL1's maximum session age (MW/utils/auth.py:71-72); tests shorten it to see a session end. */
  maxSessionAgeMs = MAX_SESSION_AGE_MS;
  settings: ApplianceSettings;
  /**
   * The emulator's boot: when this process opened the state, and the id `system.boot_id` answers
   * for it, new at every start as `/proc/sys/kernel/random/boot_id` is at every boot
   * (MW/plugins/system/__init__.py:32-42; docs/RELEASES.md "Emulator behaviours").
   */
  readonly boot = bootStartingNow();

  private constructor(
    readonly store: Store,
    settings: ApplianceSettings,
    /** Temporary files of uploads whose process died, removed as the state opened. */
    readonly sweptUploads: readonly string[],
    /** How NFS share host names are looked up (sharing.nfs.create/update), and their bounds. */
    readonly hostLookup: HostLookup,
  ) {
    this.settings = settings;
  }

  static open(options: ApplianceOptions): Appliance {
    const store = Store.open(options.stateDir);
    try {
      if (options.settings) {
        const changes = options.settings;
        store.write(() => saveSettings(store.db, changes));
      }
      // Read once, after any change above: the appliance starts with these.
      const settings = loadSettings(store.db);
      if (settings.keyLogin === 'scram') convertOwnKey(store);
      // Cheap: reads of directories that are empty unless an upload's or a snapshot's process was killed.
      sweepCopiesInFlight(store);
      preparePathLocks(store.stateDir);
      return new Appliance(store, settings, sweepUploadsInFlight(store.stateDir, store.mntDir), {
        ...defaultHostLookup(),
        ...options.hostLookup,
      });
    } catch (err) {
      store.close();
      throw err;
    }
  }

  /** Users, groups, privileges and key ids, reused until the database changes. Read-only. */
  accounts(): AccountsSnapshot {
    return this.store.cached('accounts', () => AccountsSnapshot.load(this.store.db));
  }

  pools(): string[] {
    return this.store.cached('pools', () => listPools(this.store.db));
  }

  datasets(): DatasetRecord[] {
    return this.store.cached('datasets', () => listDatasets(this.store.db));
  }

  /** Recorded owners of files in the tree (see `ownerKey`). */
  owners(): ReadonlyMap<string, FileOwner> {
    return this.store.cached('owners', () => listOwners(this.store.db));
  }

  /** A connection's session; WebSocket and embedded ones are listed by `auth.sessions` while logged in. */
  createSession(origin: Origin): Session {
    return new Session(
      origin,
      origin.transport === 'websocket' || origin.transport === 'embedded' ? this.liveSessions : null,
    );
  }

  close(): void {
    void this.downloads.closeAll();
    this.store.close();
  }
}
