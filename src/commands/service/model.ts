import { call, queryItems } from '../../core/contract/client.js';
import { serviceNamespaceContract } from '../../core/contract/service-namespace.js';
import { E } from '../../core/error-catalogue.js';
import { StorError, type RpcError } from '../../core/errors.js';
import { mayChangeService, serviceRefusal } from '../../core/refusals/service.js';
import type { Transport } from '../../core/transport/transport.js';
import type { CommandContext } from '../framework/context.js';
import { arg, flag } from '../framework/declare.js';
import { runJob } from '../shared/job.js';
import { predictedDenial } from '../shared/predict-access.js';
import { targetRelease } from '../shared/target-release.js';
import { recordResult, toned, type CommandResult } from '../output/render.js';

/** The NAME every changing verb takes, completed from the target's service names. */
export const serviceArgs = {
  name: arg.required('the service, as `stor service list` names it: cifs (SMB), nfs, ssh, …', 'service'),
};

/** `--dry-run` of a changing verb: `does` is what it would do ("start"). */
export const dryRunFlag = (does: string) =>
  flag(`say whether it would ${does}, and whether the appliance would refuse; change nothing`);

/** One row of `stor service list --json`: a service record as service.query gives it. */
export interface ServiceSummary {
  id: number;
  /** The appliance's name for it: `cifs` is SMB, `nfs` NFS, `iscsitarget` iSCSI. */
  service: string;
  /** RUNNING or STOPPED (UNKNOWN when the appliance could not tell). */
  state: string;
  /** Started at boot. */
  enable: boolean;
}

/** What `stor service start|stop|enable|disable` does. */
export type ServiceChangeAction = 'start' | 'stop' | 'enable' | 'disable';

/** `stor service start|stop|enable|disable --json` */
export interface ServiceChanged {
  service: string;
  action: ServiceChangeAction;
  dry_run: boolean;
  /** False when the service already was as asked (nothing was sent), or for a dry run that would change nothing. */
  changed: boolean;
  /** After the change (for a dry run, what it would be). */
  state: string;
  enable: boolean;
}

const FIELDS = ['id', 'service', 'state', 'enable'] as const;
const summary = (s: ServiceSummary): ServiceSummary => ({
  id: s.id,
  service: s.service,
  state: s.state,
  enable: s.enable,
});

/** Every service record, by name. */
export async function listServices(t: Pick<Transport, 'call'>): Promise<ServiceSummary[]> {
  return (await queryItems(t, 'service.query', FIELDS, [], { order_by: ['service'] })).map(summary);
}

/** The record named `name`; none is NOT_FOUND (exit 1), naming the services there are. */
export async function findService(t: Pick<Transport, 'call'>, name: string): Promise<ServiceSummary> {
  const [found] = await queryItems(t, 'service.query', FIELDS, [['service', '=', name]]);
  if (found) return summary(found);
  const names = (await listServices(t).catch(() => [])).map((s) => s.service);
  throw new StorError(E.NOT_FOUND, `no service ${JSON.stringify(name)}`, {
    hint:
      names.length > 0
        ? `the services are ${names.join(', ')} (\`stor service list\`)`
        : '`stor service list` shows them',
  });
}

/** What each action wants of the record, and how to say it already is so. */
const WANTED: Record<ServiceChangeAction, { state?: string; enable?: boolean; already: string }> = {
  start: { state: 'RUNNING', already: 'already running' },
  stop: { state: 'STOPPED', already: 'already stopped' },
  enable: { enable: true, already: 'already started at boot' },
  disable: { enable: false, already: 'already not started at boot' },
};

const isAsWanted = (s: ServiceSummary, action: ServiceChangeAction): boolean => {
  const w = WANTED[action];
  return (w.state === undefined || s.state === w.state) && (w.enable === undefined || s.enable === w.enable);
};

/**
 * What the appliance would refuse the change with, judged from reads: the dispatcher's role check
 * of the method (service.control or service.update), then `app_has_write_privilege_for_service`,
 * which holds a sharing role to its own service (MW/plugins/service_/utils.py:13-38), in the
 * words of the target's release (core/refusals/service.ts).
 */
async function predictedRefusal(t: Transport, name: string, action: ServiceChangeAction): Promise<RpcError | null> {
  const asked = action === 'enable' || action === 'disable' ? 'update' : action;
  const method = asked === 'update' ? 'service.update' : 'service.control';
  const denied = await predictedDenial(t, serviceNamespaceContract[method].access);
  if (denied) return denied;
  const held = new Set((await call(t, 'auth.me')).privilege.roles.$set);
  if (mayChangeService((r) => held.has(r), name)) return null;
  const release26 = (await targetRelease(t)).release === '26.0';
  return serviceRefusal.lacksPrivilege(name, asked, release26);
}

/**
 * Starts, stops, enables or disables one service, idempotently: a service already as asked is
 * said so and nothing is sent. A refusal is predicted from reads before anything is asked or sent
 * (docs/COMMANDS.md "Consent comes first"); a stop asks first. start and stop go through
 * service.control, the one way both 25.10.1 and 26.0 offer (26.0 made service.start/stop private),
 * its job waited for, `silent: false` so a failure comes back as the appliance's error; enable and
 * disable through service.update. Each ends with a read that verifies it. `options.ask` is the
 * verb's question, asked after the checks and before anything is sent (stop.ts has one; a verb
 * that asks nothing reaches no prompt, which is what its declaration says).
 */
export async function changeService(
  ctx: CommandContext,
  name: string,
  action: ServiceChangeAction,
  options: { dryRun?: boolean; ask?: () => Promise<unknown> },
): Promise<CommandResult<ServiceChanged>> {
  const t = await ctx.transport();
  const before = await findService(t, name);
  const dryRun = options.dryRun === true;
  const result = (s: ServiceSummary, changed: boolean) =>
    changedResult({ service: s.service, action, dry_run: dryRun, changed, state: s.state, enable: s.enable });
  if (isAsWanted(before, action)) {
    ctx.note(`stor: ${name} is ${WANTED[action].already}; nothing was changed`);
    return result(before, false);
  }
  const refusal = await predictedRefusal(t, name, action);
  if (refusal) throw refusal;
  const wanted = WANTED[action];
  if (dryRun) {
    ctx.note('stor: dry run: nothing was changed');
    return result({ ...before, state: wanted.state ?? before.state, enable: wanted.enable ?? before.enable }, true);
  }
  await options.ask?.();
  if (action === 'start' || action === 'stop')
    await runJob(
      ctx,
      t,
      'service.control',
      [action === 'start' ? 'START' : 'STOP', name, { silent: false }],
      `${action} ${name}`,
    );
  else await call(t, 'service.update', [name, { enable: action === 'enable' }]);
  const after = await findService(t, name);
  if (!isAsWanted(after, action))
    throw new StorError(
      E.VERIFY_FAILED,
      `${name} is ${after.state.toLowerCase()}, ${after.enable ? '' : 'not '}started at boot after ${action}`,
      {
        hint: `\`stor service list\` shows it; \`stor job list --method service.control\` shows the appliance's jobs`,
      },
    );
  return result(after, true);
}

function changedResult(shown: ServiceChanged): CommandResult<ServiceChanged> {
  return recordResult(shown, {
    fields: [
      ['service', shown.service],
      ['state', stateCell(shown.state)],
      ['enabled at boot', shown.enable],
      [shown.dry_run ? 'would change' : 'changed', shown.changed],
    ],
  });
}

/** RUNNING in green, STOPPED plain, anything else (UNKNOWN) as a warning. */
export const stateCell = (state: string) =>
  toned(state, state === 'RUNNING' ? 'ok' : state === 'STOPPED' ? undefined : 'warning');
