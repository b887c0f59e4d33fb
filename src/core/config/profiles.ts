import { chmodSync, existsSync, mkdirSync, statSync } from 'node:fs';
import { ownerOnly, ownerOnlyFile } from './owner-only.js';
import { join } from 'node:path';
import { configDirFrom, othersInHome, type Env } from './paths.js';
import { StorError } from '../errors.js';
import { E } from '../error-catalogue.js';

/** One remote appliance and how to reach it. The key is stored here, in a file only its owner reads. */
export interface Profile {
  url: string;
  apiKey: string;
  insecure?: boolean;
  /** Absolute path of a PEM CA bundle. */
  ca?: string;
  rpc?: 'ws' | 'http';
  /** The key's user: SCRAM key login (TrueNAS 26) names it (docs/REMOTE.md "SCRAM login (TrueNAS 26)"). */
  username?: string;
  /** Labels that `--targets @tag` selects by, sorted. */
  tags?: string[];
  /** The key `stor login --username` created on the appliance (name and id), which `stor logout` may revoke. */
  createdKey?: { name: string; id: number };
  /**
   * The appliance offered SCRAM key login when `stor login` saved this profile (TrueNAS 26): from
   * then on the key is never sent itself to it, whatever a later connection's server offers
   * (docs/REMOTE.md "SCRAM login (TrueNAS 26)").
   */
  scram?: true;
}

export interface ProfilesDocument {
  current?: string;
  profiles: Record<string, Profile>;
}

const FILE_MODE = 0o600;

/**
 * The name that selects the embedded appliance (`stor profile use embedded`, `--profile embedded`),
 * reserved: no profile is saved under it (docs/REMOTE.md "Remote appliances", Profile names).
 */
export const EMBEDDED_PROFILE = 'embedded';

/**
 * A profile saved as `embedded` before the name was reserved: naming it is refused rather than
 * guessed, since one guess runs changes on the real appliance meant for the rehearsal one, the
 * other reports a runbook done that never reached the appliance.
 */
export function embeddedNameClash(url: string): StorError {
  return new StorError(
    E.AMBIGUOUS_NAME,
    `"${EMBEDDED_PROFILE}" names both the embedded appliance and a profile saved for ${url}`,
    {
      hint: `reach that appliance with \`--url ${url}\` (its saved key is used), save it under another name (\`stor login --url ${url} --profile NAME\`), then \`stor profile remove ${EMBEDDED_PROFILE}\``,
    },
  );
}

/**
 * The profiles as saved, in a map without a prototype: names come from the command line, and in
 * a plain object `valueOf`, `constructor` or `toString` would look saved (and `__proto__` would
 * not be saved at all).
 */
function documentOf(store: Partial<ProfilesDocument>): ProfilesDocument {
  const profiles: Record<string, Profile> = Object.create(null);
  for (const [name, profile] of Object.entries(store.profiles ?? {})) profiles[name] = profile;
  return { profiles, ...(typeof store.current === 'string' ? { current: store.current } : {}) };
}

/** The profile saved under `name`, if one is: an own entry, never something every object has. */
export function profileNamed(doc: ProfilesDocument, name: string): Profile | undefined {
  return Object.hasOwn(doc.profiles, name) ? doc.profiles[name] : undefined;
}

/**
 * Profiles in `<config dir>/config.json` (conf: atomic writes, schema-free JSON). The file is
 * created 0600 and tightened back to it on every read and write, in case an older, restored or
 * hand-made copy was looser (one of another user's is left as it is: theirs to secure). `env`,
 * when given, is the command's: a write into another user's home is then refused
 * (`writable()`); without it (tests of the store itself) nothing is checked.
 */
export class ProfileStore {
  readonly path: string;

  constructor(
    readonly dir: string,
    private readonly env?: Env,
  ) {
    this.path = join(dir, 'config.json');
  }

  /** The profiles of the command of environment `env` (STOR_CONFIG_DIR, else the XDG config directory). */
  static of(env: Env): ProfileStore {
    return new ProfileStore(configDirFrom(env), env);
  }

  /**
   * Refuses, before anything is changed anywhere, a profiles directory in another user's home:
   * root run with that user's HOME (`sudo -E`) would make `~/.config/stor` root's there, or
   * replace their `config.json` (conf writes a new file and renames it) by one of root's, which
   * their own stor could then not change. Login and logout call it first, so that a refusal
   * leaves no new key on the appliance and revokes none (docs/ENVIRONMENT.md "Where state lives").
   */
  writable(): void {
    if (this.env === undefined) return;
    const owner = othersInHome(this.dir, this.env);
    if (owner === undefined) return;
    throw new StorError(
      E.CONFIG_UNWRITABLE,
      `the profiles directory ${this.dir} is in a home owned by uid ${owner}, not by this user (uid ${process.getuid?.()}): stor changes nothing there`,
      {
        hint: 'run stor as that user, or with your own HOME (`sudo -H`, not `sudo -E`), or point STOR_CONFIG_DIR (or XDG_CONFIG_HOME) at a directory of your own',
      },
    );
  }

  /** Cheap check used on every command: most invocations never need to load conf. */
  exists(): boolean {
    return existsSync(this.path);
  }

  private async conf() {
    const { default: Conf } = await import('conf');
    return new Conf<ProfilesDocument>({
      cwd: this.dir,
      configName: 'config',
      configFileMode: FILE_MODE,
      // No `defaults`: conf writes them into a file that lacks them as it opens it, so that a mere
      // read would rewrite the file (as root's, in another user's home). documentOf fills them in.
      clearInvalidConfig: false,
    });
  }

  async read(): Promise<ProfilesDocument> {
    if (!this.exists()) return { profiles: {} };
    try {
      ownerOnly(this.dir);
      ownerOnlyFile(this.path);
      // conf reads the file whole and blocking: a FIFO put in its place would hang every command.
      if (!statSync(this.path).isFile()) throw new Error('not a regular file');
      return documentOf((await this.conf()).store);
    } catch (err) {
      throw new StorError(
        E.CONFIG_UNREADABLE,
        `cannot read the profiles file ${this.path}: ${(err as Error).message}`,
        {
          hint: 'fix or remove the file, then `stor login` again',
        },
      );
    }
  }

  private async write(change: (doc: ProfilesDocument) => void): Promise<void> {
    this.writable();
    mkdirSync(this.dir, { recursive: true, mode: 0o700 });
    ownerOnly(this.dir);
    ownerOnlyFile(this.path);
    const conf = await this.conf();
    const doc = documentOf(conf.store);
    change(doc);
    conf.store = doc;
    chmodSync(this.path, FILE_MODE);
  }

  async save(name: string, profile: Profile, makeCurrent: boolean): Promise<void> {
    await this.write((doc) => {
      put(doc, name, profile);
      if (makeCurrent) doc.current = name;
    });
  }

  /** Saves several profiles in one write: all of them or, when the write fails, none. */
  async saveAll(profiles: Record<string, Profile>): Promise<void> {
    await this.write((doc) => {
      for (const [name, profile] of Object.entries(profiles)) put(doc, name, profile);
    });
  }

  /**
   * Makes `name` current. `embedded` is kept as the current choice, not as no profile: commands
   * use the embedded appliance either way, but a change there is then chosen, not fallen back on
   * (implicitTargetCheck, src/commands/framework/target.ts).
   */
  async use(name: string): Promise<void> {
    await this.write((doc) => {
      const saved = profileNamed(doc, name);
      if (name === EMBEDDED_PROFILE) {
        if (saved) throw embeddedNameClash(saved.url);
        doc.current = EMBEDDED_PROFILE;
        return;
      }
      if (!saved) throw unknownProfile(name, Object.keys(doc.profiles));
      doc.current = name;
    });
  }

  /** Adds and removes tags of a profile; returns its tags after the change, sorted. */
  async tag(name: string, add: readonly string[], remove: readonly string[]): Promise<string[]> {
    let tags: string[] = [];
    await this.write((doc) => {
      const profile = profileNamed(doc, name);
      if (!profile) throw unknownProfile(name, Object.keys(doc.profiles));
      tags = [...new Set([...(profile.tags ?? []), ...add])].filter((t) => !remove.includes(t)).sort();
      if (tags.length > 0) profile.tags = tags;
      else delete profile.tags;
    });
    return tags;
  }

  /** Removes a profile; returns whether it was the current one. */
  async remove(name: string): Promise<boolean> {
    let wasCurrent = false;
    await this.write((doc) => {
      if (!profileNamed(doc, name)) throw unknownProfile(name, Object.keys(doc.profiles));
      delete doc.profiles[name];
      if (doc.current === name) {
        wasCurrent = true;
        delete doc.current;
      }
    });
    return wasCurrent;
  }
}

/** Saving a profile again (a second login) keeps the tags it was given, unless new ones come with it. */
function put(doc: ProfilesDocument, name: string, profile: Profile): void {
  const tags = profile.tags ?? profileNamed(doc, name)?.tags;
  doc.profiles[name] = { ...profile, ...(tags ? { tags } : {}) };
}

export function unknownProfile(name: string, known: string[]): StorError {
  return new StorError(E.NOT_FOUND, `no profile named ${JSON.stringify(name)}`, {
    hint: known.length
      ? `known profiles: ${known.join(', ')}`
      : 'create one with `stor login --url <url> --profile <name>`',
  });
}
