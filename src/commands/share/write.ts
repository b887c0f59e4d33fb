import { validateParams } from '../../core/appliance/params.js';
import { call, queryItems } from '../../core/contract/client.js';
import type { ResultOf } from '../../core/contract/index.js';
import { sharingNfsContract } from '../../core/contract/sharing-nfs.js';
import { sharingSmbContract } from '../../core/contract/sharing-smb.js';
import { E } from '../../core/error-catalogue.js';
import { ERRNO, isRoleDenial, RpcError, StorError } from '../../core/errors.js';
import { ipNetwork } from '../../core/net/ip-network.js';
import { HOST_SPACE_OR_QUOTE, shareRefusal, shareRefusalText, type ShareSchema } from '../../core/refusals/sharing.js';
import type { Transport } from '../../core/transport/transport.js';
import type { CommandContext } from '../framework/context.js';
import { recordResult, toned, type CommandResult } from '../output/render.js';
import { predictedDenial } from '../shared/predict-access.js';
import {
  casefold,
  changeLine,
  changesOf,
  listShares,
  nameOf,
  refOf,
  rereadShare,
  type Share,
  type ShareChange,
  type ShareKind,
} from './model.js';
import { CREATE_DEFAULTS, fieldsOf, namedBy, type ShareSettings } from './options.js';

/** `stor share nfs create|smb create|update|enable|disable --json` */
export interface ShareWritten {
  /** `nfs:3`: how to name it to the other verbs. */
  ref: string | null;
  kind: ShareKind;
  /** The SMB share's name, the NFS share's path. */
  name: string;
  action: 'create' | 'update' | 'enable' | 'disable';
  dry_run: boolean;
  /** False when the share already was as asked: nothing was sent. */
  changed: boolean;
  /** `{field, old, new}` in the appliance's field names; a create's `old` is null. */
  changes: ShareChange[];
  /** The share as read back after the change (as it is, when nothing changed); null for a dry run's create. */
  share: Share | null;
}

export function writtenResult(data: ShareWritten): CommandResult<ShareWritten> {
  return recordResult(data, {
    fields: [
      ['share', data.ref ?? `${data.kind} (new)`],
      [data.kind === 'smb' ? 'name' : 'path', data.name],
      ['dry run', toned(data.dry_run, data.dry_run ? 'warning' : undefined)],
      [data.dry_run ? 'would change' : 'changed', data.changed],
      ['changes', data.changes.map(changeLine)],
    ],
  });
}

const accessOf = (kind: ShareKind, verb: 'create' | 'update' | 'delete') =>
  kind === 'nfs' ? sharingNfsContract[`sharing.nfs.${verb}`].access : sharingSmbContract[`sharing.smb.${verb}`].access;

/** The pools' mountpoints and the datasets', or null when this identity may not read them (then no guess is made). */
async function mountpoints(t: Pick<Transport, 'call'>): Promise<string[] | null> {
  try {
    const found = await queryItems(t, 'pool.dataset.query', ['id'], [], { select: ['id', 'mountpoint'] });
    return found.flatMap((d) => (d.mountpoint ? [d.mountpoint] : []));
  } catch {
    return null;
  }
}

/**
 * For a dry run: what the appliance would refuse `fields` with, judged from reads, in its order.
 * The role first, then the model (the dispatcher); for NFS, sanitize's checks of networks and
 * hosts, which stop the call before anything else is looked at (MW/plugins/nfs.py:555-572), then
 * the path (MW/plugins/nfs.py:574-577); for SMB, the name taken by another share, in any case, and
 * the path, reported together (MW/plugins/smb.py:1253-1256). An update is judged as the share would
 * become (`current` with `fields`), as both kinds validate the whole new record (MW/plugins/nfs.py
 * do_update, MW/plugins/smb.py do_update): a path gone since, with its dataset, fails it. What only
 * the appliance can tell (accounts, DNS) is left to the call.
 */
export async function predictedShareRefusal(
  t: Transport,
  kind: ShareKind,
  verb: 'create' | 'update',
  fields: Record<string, unknown>,
  others: readonly Share[],
  current?: Share,
): Promise<RpcError | null> {
  const denied = await predictedDenial(t, accessOf(kind, verb));
  if (denied) return denied;
  // The model's checks (an SMB name of more than 80 characters, a security flavor that is none),
  // which the dispatcher runs before the method (core/appliance/params.ts, as `dataset update --dry-run`).
  const method = kind === 'nfs' ? sharingNfsContract[`sharing.nfs.${verb}`] : sharingSmbContract[`sharing.smb.${verb}`];
  try {
    validateParams(method.params, verb === 'create' ? [fields] : [0, fields]);
  } catch (err) {
    if (err instanceof RpcError) return err;
    throw err;
  }
  const schema = `sharing${kind}_${verb}` as ShareSchema;
  const found: [string, string][] = [];
  if (kind === 'nfs') {
    const badNetworks = ((fields.networks as string[] | undefined) ?? []).filter((n) => ipNetwork(n, false) === null);
    if (badNetworks.length > 0) found.push(['networks', shareRefusalText.badNetworks(badNetworks)]);
    const badHosts = ((fields.hosts as string[] | undefined) ?? []).filter((h) => HOST_SPACE_OR_QUOTE.test(h));
    if (badHosts.length > 0) found.push(['hosts', shareRefusalText.badHosts(badHosts)]);
    if (found.length > 0) return shareRefusal(schema, found);
  } else {
    const name = fields.name as string | undefined;
    if (name !== undefined && others.some((s) => s.kind === 'smb' && casefold(s.name) === casefold(name)))
      found.push(['name', shareRefusalText.smbNameTaken]);
  }
  const path = (fields.path ?? current?.path) as string | undefined;
  if (path !== undefined && path !== 'EXTERNAL') {
    const [mounts, stat] = await Promise.all([mountpoints(t), statOf(t, path)]);
    // Under /mnt/ and, links followed, in a pool (MW/validators.py:183-193): a link out of the
    // pools is a realpath elsewhere on the appliance, a stat the emulator refuses (EXDEV).
    const leaves = stat?.error?.errno === ERRNO.EXDEV;
    const under = (p: string) => mounts?.some((m) => p === m || p.startsWith(`${m}/`));
    const inPool = !leaves && path.startsWith('/mnt/') && under(path) && under(stat?.answer?.realpath ?? path);
    if (kind === 'smb') {
      // SMB's filesystem.stat of the path is unguarded: its error ends the call before any
      // validation error is raised (MW/plugins/smb.py:1266).
      if (stat?.error) return stat.error;
      if (mounts !== null && !inPool) found.push(['path', shareRefusalText.outsidePool]);
      // MW/plugins/smb.py:1173-1176 (validate_mount_info)
      if (stat?.answer?.type === 'SYMLINK') found.push(['path', shareRefusalText.smbSymlink(path)]);
      const purpose = (fields.purpose ?? (current?.kind === 'smb' ? current.purpose : undefined)) as string | undefined;
      if (purpose === 'TIMEMACHINE_SHARE' || purpose === 'FCP_SHARE') {
        if ((await appleExtensions(t)) === false) found.push(['purpose', shareRefusalText.appleExtensionsNeeded]);
      }
      return found.length > 0 ? shareRefusal(schema, found) : null;
    }
    // NFS: the path's place is checked before the other checks' verrors.check() (MW/plugins/nfs.py:574-593).
    if (mounts !== null && !inPool) return shareRefusal(schema, [['path', shareRefusalText.outsidePool]]);
    // validate_hosts_and_networks stats the path unguarded (MW/plugins/nfs.py:803).
    if (stat?.error) return stat.error;
    // validate_share_path (MW/plugins/nfs.py:908-915)
    if (stat?.answer?.type === 'SYMLINK') found.push(['path', shareRefusalText.nfsSymlink(path)]);
  }
  return found.length > 0 ? shareRefusal(schema, found) : null;
}

/**
 * For a dry run: `filesystem.stat(path)`'s answer, or the error it ends with (a path not there,
 * ENOENT; on the emulator, one leading out of the pools or holding `..`), which both kinds' own
 * stat ends the call with; null when this identity may not stat (then no guess is made).
 */
async function statOf(
  t: Transport,
  path: string,
): Promise<{ answer?: ResultOf<'filesystem.stat'>; error?: RpcError } | null> {
  try {
    return { answer: await call(t, 'filesystem.stat', [path]) };
  } catch (err) {
    if (!(err instanceof RpcError)) throw err;
    // The method's own stat is the middleware's, never refused a role: only that refusal is ours.
    return isRoleDenial(err) ? null : { error: err };
  }
}

/** smb.config's `aapl_extensions`, or null when this identity may not read it. */
async function appleExtensions(t: Transport): Promise<boolean | null> {
  try {
    return (await call(t, 'smb.config')).aapl_extensions;
  } catch (err) {
    if (err instanceof RpcError) return null;
    throw err;
  }
}

/**
 * `stor share nfs create|smb create`: with `--exist-ok`, a share of that path (NFS) or name (SMB,
 * in any case) that is as asked is "already there" (exit 0, nothing sent), one that differs is
 * EXISTS_DIFFERENTLY naming the fields. `--dry-run` predicts the refusal and sends nothing.
 * Otherwise one create call; what the appliance refuses reaches the user in its words.
 */
export async function createShare(
  ctx: CommandContext,
  kind: ShareKind,
  settings: ShareSettings,
  o: { existOk: boolean; dryRun: boolean },
): Promise<CommandResult<ShareWritten>> {
  const t = await ctx.transport();
  const given = fieldsOf(kind, settings);
  const wanted = { ...CREATE_DEFAULTS[kind], ...given };
  const shown = (kind === 'smb' ? settings.name : settings.path) ?? '';
  const all = await listShares(t, [kind]);
  const existing = o.existOk ? all.filter((s) => namedBy(kind, s, settings)) : [];
  if (existing.length > 0) {
    const { name: _name, ...compared } = wanted;
    const match = existing.find((s) => changesOf(s, compared).length === 0);
    if (match) {
      ctx.note(
        `stor: ${kind.toUpperCase()} share ${nameOf(match)} (${refOf(match)}) is already there; nothing changed`,
      );
      return writtenResult({
        ref: refOf(match),
        kind,
        name: nameOf(match),
        action: 'create',
        dry_run: o.dryRun,
        changed: false,
        changes: [],
        share: match,
      });
    }
    const first = existing[0]!;
    const differs = changesOf(first, compared);
    throw new StorError(
      E.EXISTS_DIFFERENTLY,
      `${kind.toUpperCase()} share ${nameOf(first)} (${refOf(first)}) exists with other ${differs.map((c) => c.field).join(', ')} than asked: ${differs.map(changeLine).join('; ')}`,
      { hint: `\`stor share update ${refOf(first)}\` changes it; nothing was changed` },
    );
  }
  // What is asked; the rest takes the create model's defaults.
  const changes = Object.entries(given).map(([field, value]) => ({ field, old: null, new: value }));
  const data: ShareWritten = {
    ref: null,
    kind,
    name: shown,
    action: 'create',
    dry_run: o.dryRun,
    changed: true,
    changes,
    share: null,
  };
  if (o.dryRun) {
    const refusal = await predictedShareRefusal(t, kind, 'create', given, all);
    if (refusal) throw refusal;
    ctx.note('stor: dry run: nothing was created');
    return writtenResult(data);
  }
  const created: Share =
    kind === 'nfs'
      ? { kind, ...(await call(t, 'sharing.nfs.create', [given as { path: string }])) }
      : { kind, ...(await call(t, 'sharing.smb.create', [given as { name: string; path: string }])) };
  return writtenResult({ ...data, ref: refOf(created), name: nameOf(created), share: created });
}

/**
 * Sends `changes` to the share with one update call, then reads it back: a field that does not read
 * as sent is VERIFY_FAILED.
 */
export async function applyChanges(t: Transport, share: Share, changes: readonly ShareChange[]): Promise<Share> {
  const params = Object.fromEntries(changes.map((c) => [c.field, c.new]));
  if (share.kind === 'nfs') await call(t, 'sharing.nfs.update', [share.id, params]);
  else await call(t, 'sharing.smb.update', [share.id, params]);
  const after = await rereadShare(t, share);
  const off = after ? changesOf(after, params) : changes;
  if (!after || off.length > 0)
    throw new StorError(
      E.VERIFY_FAILED,
      after
        ? `${refOf(share)} reads back otherwise than sent: ${off.map(changeLine).join('; ')}`
        : `${refOf(share)} is gone after its update`,
      { hint: `\`stor share show ${refOf(share)}\` shows it now` },
    );
  return after;
}
