import { isAbsolute } from 'node:path';

type Env = Readonly<Record<string, string | undefined>>;

/**
 * Environment variables that Node, or the OpenSSL inside it, reads for the whole process, at its
 * start or from `process.env`, never from a command's IO.env: a command run inside the session
 * agent would take them from the agent. So the agent is started with the starting command's values
 * (agentProcessEnv) and declines a command whose values are not its own (processEnvDifference),
 * which then runs in its own process.
 * - TZ: local time (`api-key create --expires 2030-06-30T18:00`, the embedded appliance's snapshot
 *   names and times).
 * - NODE_EXTRA_CA_CERTS, SSL_CERT_FILE, SSL_CERT_DIR: which certificate authorities TLS trusts,
 *   read once as the process starts; NODE_TLS_REJECT_UNAUTHORIZED: whether it checks at all.
 * - NODE_OPTIONS: the process's options (`--use-openssl-ca`, `--tls-min-v1.3`, …). Never given to
 *   the agent, which outlives the command (`--inspect`, `--require` would stay with it): a command
 *   that sets it always runs in its own process.
 */
const PROCESS_WIDE = [
  'TZ',
  'NODE_EXTRA_CA_CERTS',
  'SSL_CERT_FILE',
  'SSL_CERT_DIR',
  'NODE_TLS_REJECT_UNAUTHORIZED',
  'NODE_OPTIONS',
] as const;

/** Files read relative to the process's working directory, which for the agent is `/`: carried only when absolute. */
const PATHS: ReadonlySet<string> = new Set(['NODE_EXTRA_CA_CERTS', 'SSL_CERT_FILE', 'SSL_CERT_DIR']);

/** What the agent is started with of PROCESS_WIDE, from the environment of the command starting it. */
export function agentProcessEnv(env: Env): Record<string, string> {
  const carried: Record<string, string> = {};
  for (const name of PROCESS_WIDE) {
    const value = env[name];
    if (value === undefined || name === 'NODE_OPTIONS' || (PATHS.has(name) && !isAbsolute(value))) continue;
    carried[name] = value;
  }
  return carried;
}

/** The first of PROCESS_WIDE whose value (or absence) in a command's environment is not the agent's, if any. */
export function processEnvDifference(command: Env, agent: Env): string | undefined {
  return PROCESS_WIDE.find((name) => command[name] !== agent[name]);
}
