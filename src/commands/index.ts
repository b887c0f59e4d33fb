import { Command, InvalidArgumentError, Option } from 'commander';
import { CommandContext, type GlobalOptions } from './shared/context.js';
import type { IO } from './shared/io.js';
import type { CommandResult } from './shared/render.js';

export interface ProgramHooks {
  version: string;
  /** Called with the context of the command that runs, before it runs. */
  onContext(ctx: CommandContext): void;
  /** Called with the command's result, which `run()` renders. */
  onResult(result: CommandResult): void;
  /**
   * The methods of the target for `stor call --help`, asked for only when that help is: null when
   * the target could not tell.
   */
  methodHelp?: (ctx: CommandContext) => Promise<string | null>;
}

const examples = (...lines: string[]) => `\nExamples:\n${lines.map((l) => `  $ ${l}`).join('\n')}\n`;

/** Parses a positive number of seconds for the option `flag`. */
function seconds(flag: string): (value: string) => number {
  return (value) => {
    const n = Number(value);
    if (!Number.isFinite(n) || n <= 0) throw new InvalidArgumentError(`${flag} takes a positive number of seconds, not ${JSON.stringify(value)}`);
    return n;
  };
}

/** The whole command tree. Actions load their command module on first use, keeping start-up light. */
export function buildProgram(io: IO, hooks: ProgramHooks): Command {
  const program = new Command('stor');
  program
    .description('Administer TrueNAS-style storage appliances, or the embedded emulated one.')
    .version(hooks.version, '-V, --version', 'print the version')
    .helpOption('-h, --help', 'show help')
    .addOption(new Option('--json', 'print machine-readable JSON on stdout').default(false))
    .addOption(new Option('-q, --quiet', 'print nothing but results and errors').default(false))
    .addOption(new Option('-v, --verbose', 'print more about what stor is doing').default(false))
    .addOption(new Option('--timeout <seconds>', 'give up on the target after this long (default 30)').argParser(seconds('--timeout')))
    .addOption(new Option('--url <url>', 'the appliance to use, e.g. wss://nas.example.com (env STOR_URL)'))
    .addOption(new Option('--profile <name>', 'use a saved profile (env STOR_PROFILE)'))
    .addOption(new Option('--insecure', 'do not verify the appliance TLS certificate'))
    .addOption(new Option('--ca <file>', 'trust the CA certificate(s) in this PEM file'))
    .addOption(new Option('--rpc <transport>', 'JSON-RPC over a WebSocket (ws) or HTTP POST (http)').choices(['ws', 'http']))
    .showSuggestionAfterError(true)
    .exitOverride()
    .configureOutput({
      writeOut: (s) => io.stdout.write(s),
      writeErr: (s) => io.stderr.write(s),
      outputError: (s, write) => write(s.startsWith('error:') ? `stor: ${s}` : s),
    })
    .addHelpText(
      'after',
      examples('stor whoami', 'stor whoami --json', 'stor call privilege.query \'[["builtin_name","=",null]]\'') +
        '\nWith no profile selected, commands use the embedded appliance in $STOR_HOME (default ~/.local/share/stor).\n',
    );

  const context = (cmd: Command): CommandContext => {
    const opts = cmd.optsWithGlobals() as GlobalOptions;
    const defined = <K extends keyof GlobalOptions>(k: K) => (opts[k] !== undefined ? { [k]: opts[k] } : {});
    const ctx = new CommandContext(io, {
      json: opts.json === true,
      quiet: opts.quiet === true,
      verbose: opts.verbose === true,
      ...defined('timeout'),
      ...defined('url'),
      ...defined('profile'),
      ...defined('insecure'),
      ...defined('ca'),
      ...defined('rpc'),
    });
    hooks.onContext(ctx);
    return ctx;
  };

  program
    .command('whoami')
    .description('show the identity the target logs in as: user, account attributes, effective roles')
    .addHelpText('after', examples('stor whoami', 'stor whoami --json | jq .role_count'))
    .action(async (_opts: unknown, cmd: Command) => {
      const { whoami } = await import('./whoami/whoami.js');
      hooks.onResult(await whoami(context(cmd)));
    });

  // Filled in before `call` shows its help, once the global options (the target) are parsed.
  let methodList: string | null = null;
  program.hook('preSubcommand', async (_program, sub) => {
    if (sub.name() === 'call' && hooks.methodHelp) methodList = await hooks.methodHelp(context(program));
  });

  program
    .command('call')
    .description('call any appliance method; each ARG is one positional parameter (JSON if it parses, else a string)')
    .argument('<method>', 'method name, e.g. privilege.query')
    .argument('[args...]', 'positional parameters')
    .addHelpText(
      'after',
      () =>
        examples('stor call core.ping', 'stor call privilege.query \'[["name","=","ops"]]\' \'{"get":true}\'', 'stor call user.query \'[]\' \'{"count":true}\'') +
        (methodList ? `\n${methodList}\n` : ''),
    )
    .action(async (method: string, args: string[], _opts: unknown, cmd: Command) => {
      const { call } = await import('./call/call.js');
      hooks.onResult(await call(context(cmd), method, args));
    });

  program
    .command('upload')
    .description('upload local files to the appliance (streamed), wait for the job, and check the size')
    .argument('<files...>', 'local file(s), then the target: a file path, or a directory (existing, or ending in /)')
    .option('--mode <bits>', 'permission bits: decimal (420) or octal (0644, 0o644)')
    .option('--append', 'append to the target instead of replacing it')
    .addHelpText(
      'after',
      examples(
        'stor upload ./report.pdf /mnt/tank/docs/ --mode 0644',
        'stor upload ./a.log ./b.log /mnt/tank/logs/',
        'stor upload ./part2 /mnt/tank/big.bin --append',
      ) + '\nOn 25.10.1 only FULL_ADMIN holders may upload (the reports say SYS_ADMIN accounts); see the README.\n',
    )
    .action(async (files: string[], opts: { mode?: string; append?: boolean }, cmd: Command) => {
      const { upload } = await import('./upload/upload.js');
      hooks.onResult(await upload(context(cmd), files, opts));
    });

  program
    .command('ls')
    .description('list a directory on the appliance')
    .argument('<path>', 'an absolute path, e.g. /mnt/tank/docs')
    .addHelpText('after', examples('stor ls /mnt/tank', 'stor ls /mnt/tank/docs --json'))
    .action(async (path: string, _opts: unknown, cmd: Command) => {
      const { ls } = await import('./fs/ls.js');
      hooks.onResult(await ls(context(cmd), path));
    });

  program
    .command('stat')
    .description('show the attributes of a path on the appliance')
    .argument('<path>', 'an absolute path, e.g. /mnt/tank/docs/report.pdf')
    .addHelpText('after', examples('stor stat /mnt/tank/docs/report.pdf', 'stor stat /mnt/tank --json'))
    .action(async (path: string, _opts: unknown, cmd: Command) => {
      const { stat } = await import('./fs/stat.js');
      hooks.onResult(await stat(context(cmd), path));
    });

  const privilege = program
    .command('privilege')
    .description('inspect privileges and repair role lists that lock users out, as this target judges them');
  privilege
    .command('list')
    .description('list privileges with their groups, roles and health (ok, overlap, self-including, unknown role)')
    .addHelpText('after', examples('stor privilege list', 'stor privilege list --json | jq \'.[] | select(.locks_out)\''))
    .action(async (_opts: unknown, cmd: Command) => {
      const { privilegeList } = await import('./privilege/list.js');
      hooks.onResult(await privilegeList(context(cmd)));
    });
  privilege
    .command('show')
    .description('one privilege: listed and effective roles, members, findings')
    .argument('<privilege>', 'id or name')
    .addHelpText('after', examples('stor privilege show ops', 'stor privilege show 4 --json'))
    .action(async (ref: string, _opts: unknown, cmd: Command) => {
      const { privilegeShow } = await import('./privilege/show.js');
      hooks.onResult(await privilegeShow(context(cmd), ref));
    });
  privilege
    .command('check')
    .description('find privileges that break or may break login; exit 6 if any locks its users out')
    .addHelpText('after', examples('stor privilege check', 'stor privilege check --json || echo "some privilege locks users out"'))
    .action(async (_opts: unknown, cmd: Command) => {
      const { privilegeCheck } = await import('./privilege/check.js');
      hooks.onResult(await privilegeCheck(context(cmd)));
    });
  privilege
    .command('fix')
    .description('rewrite a role list to the smallest one with the same effective roles (asks first)')
    .argument('[privilege]', 'id or name (or use --all)')
    .option('--all', 'fix every privilege that needs it')
    .option('-y, --yes', 'do not ask for confirmation')
    .option('--dry-run', 'show what would change; change nothing')
    .option('--drop-self-including', 'also drop self-including roles (PRIVILEGE_WRITE, SYSTEM_PRODUCT_WRITE); changes effective roles')
    .option('--drop-unknown', 'also drop role names the appliance does not know')
    .addHelpText(
      'after',
      examples('stor privilege fix ops --dry-run', 'stor privilege fix 7 --yes', 'stor privilege fix --all --yes --drop-self-including') +
        '\nRun it as an administrator who is not bound to the broken privilege: its own members cannot log in.\n',
    )
    .action(async (ref: string | undefined, opts: import('./privilege/fix.js').FixOptions, cmd: Command) => {
      const { privilegeFix } = await import('./privilege/fix.js');
      hooks.onResult(await privilegeFix(context(cmd), ref, opts));
    });
  privilege
    .command('create')
    .description('create a privilege; refuses a role list that would lock its users out unless --force')
    .argument('<name>', 'privilege name')
    .option('--groups <groups>', 'local groups by name or gid, comma-separated (repeatable)', collect)
    .option('--roles <roles>', 'role names, comma-separated (repeatable)', collect)
    .option('--web-shell', 'grant the web shell')
    .option('--force', 'save an overlapping or self-including role list anyway')
    .addHelpText('after', examples('stor privilege create ops --groups ops --roles FILESYSTEM_FULL_CONTROL,DATASET_WRITE'))
    .action(async (name: string, opts: import('./privilege/edit.js').PrivilegeEditOptions, cmd: Command) => {
      const { privilegeCreate } = await import('./privilege/create.js');
      hooks.onResult(await privilegeCreate(context(cmd), name, opts));
    });
  privilege
    .command('update')
    .description('change a privilege; --groups and --roles replace the lists')
    .argument('<privilege>', 'id or name')
    .option('--name <name>', 'rename it')
    .option('--groups <groups>', 'local groups by name or gid, comma-separated (repeatable)', collect)
    .option('--roles <roles>', 'role names, comma-separated (repeatable)', collect)
    .option('--web-shell', 'grant the web shell')
    .option('--no-web-shell', 'revoke the web shell')
    .option('--force', 'save an overlapping or self-including role list anyway')
    .addHelpText('after', examples('stor privilege update ops --roles FILESYSTEM_FULL_CONTROL,DATASET_WRITE', 'stor privilege update 4 --no-web-shell'))
    .action(async (ref: string, opts: import('./privilege/edit.js').PrivilegeEditOptions, cmd: Command) => {
      const { privilegeUpdate } = await import('./privilege/update.js');
      hooks.onResult(await privilegeUpdate(context(cmd), ref, opts));
    });

  const dataset = program.command('dataset').description('list, create and delete datasets');
  dataset
    .command('list')
    .description('list datasets (of one pool, or all)')
    .argument('[pool]', 'only this pool')
    .addHelpText('after', examples('stor dataset list', 'stor dataset list tank --json'))
    .action(async (pool: string | undefined, _opts: unknown, cmd: Command) => {
      const { datasetList } = await import('./dataset/list.js');
      hooks.onResult(await datasetList(context(cmd), pool));
    });
  dataset
    .command('create')
    .description('create a dataset, mounted at /mnt/<name>')
    .argument('<dataset>', 'full name (tank/projects) or mountpoint (/mnt/tank/projects)')
    .option('-p, --parents', 'create missing parent datasets too')
    .option('--comments <text>', 'a comment stored with the dataset')
    .addHelpText('after', examples('stor dataset create tank/projects', 'stor dataset create /mnt/tank/a/b --parents --comments "team a"'))
    .action(async (ref: string, opts: import('./dataset/create.js').DatasetCreateOptions, cmd: Command) => {
      const { datasetCreate } = await import('./dataset/create.js');
      hooks.onResult(await datasetCreate(context(cmd), ref, opts));
    });
  dataset
    .command('delete')
    .description('delete a dataset and the files in it (asks first; --yes when not on a terminal)')
    .argument('<dataset>', 'full name or mountpoint')
    .option('-r, --recursive', 'also delete its child datasets')
    .option('-y, --yes', 'do not ask for confirmation')
    .option('--dry-run', 'show what would be deleted; delete nothing')
    .addHelpText('after', examples('stor dataset delete tank/scratch --dry-run', 'stor dataset delete tank/a --recursive --yes'))
    .action(async (ref: string, opts: import('./dataset/delete.js').DatasetDeleteOptions, cmd: Command) => {
      const { datasetDelete } = await import('./dataset/delete.js');
      hooks.onResult(await datasetDelete(context(cmd), ref, opts));
    });

  program
    .command('login')
    .description('save an appliance as a profile (made current): verify an API key, or log in with a password and create one')
    .addOption(new Option('--api-key-file <file>', 'read the key from this file').conflicts('username'))
    .addOption(new Option('--api-key-stdin', 'read the key from standard input').conflicts('username'))
    .option('--username <name>', 'log in as this user with its password (and one-time code), and save a new API key for it')
    .option('--password-stdin', 'with --username: read the password from the first line of standard input (the one-time code, if asked for, from the second)')
    .option('--force', 'replace a profile of the same name that is saved for another appliance')
    .addHelpText(
      'after',
      examples(
        'stor login --url wss://nas.example.com --profile nas1 --api-key-file ~/.config/nas1.key',
        'pass show nas1/api-key | stor login --url wss://nas.example.com --api-key-stdin --ca ./nas-ca.pem',
        'stor login --url ws://127.0.0.1:6000      # a local `stor serve`; prompts for the key on a terminal',
        'stor login --url wss://nas.example.com --username alice      # prompts for the password (and code)',
        '(pass show nas1/alice; echo 123456) | stor login --url wss://nas.example.com --username alice --password-stdin',
      ) +
        '\nThe key is never taken from the command line. Without --api-key-file/--api-key-stdin it comes from\n' +
        'STOR_API_KEY, or from a hidden prompt on a terminal. ws:// and http:// are refused for other hosts.\n' +
        '\nWith --username, stor logs in with the password (hidden prompt, or --password-stdin), answers a\n' +
        'two-factor challenge with the one-time code (prompt, or the second line of standard input), creates an\n' +
        'API key named stor-<this host>-<UTC time> for the user, and saves only that key. The password is never saved.\n',
    )
    .action(async (opts: import('./login/login.js').LoginOptions, cmd: Command) => {
      const { login } = await import('./login/login.js');
      hooks.onResult(await login(context(cmd), opts));
    });

  program
    .command('logout')
    .description('forget a saved profile and its key (the current one, or --profile NAME)')
    .addHelpText('after', examples('stor logout', 'stor --profile nas1 logout'))
    .action(async (_opts: unknown, cmd: Command) => {
      const { logout } = await import('./login/logout.js');
      hooks.onResult(await logout(context(cmd)));
    });

  const profile = program.command('profile').description('list, select and remove saved profiles');
  profile
    .command('list')
    .description('list saved profiles; * marks the current one (keys are never shown)')
    .addHelpText('after', examples('stor profile list', 'stor profile list --json'))
    .action(async (_opts: unknown, cmd: Command) => {
      const { profileList } = await import('./profile/list.js');
      hooks.onResult(await profileList(context(cmd)));
    });
  profile
    .command('use')
    .description('make a profile current')
    .argument('<name>', 'profile name')
    .addHelpText('after', examples('stor profile use nas1'))
    .action(async (name: string, _opts: unknown, cmd: Command) => {
      const { profileUse } = await import('./profile/use.js');
      hooks.onResult(await profileUse(context(cmd), name));
    });
  profile
    .command('remove')
    .description('delete a profile and its key')
    .argument('<name>', 'profile name')
    .addHelpText('after', examples('stor profile remove nas1'))
    .action(async (name: string, _opts: unknown, cmd: Command) => {
      const { profileRemove } = await import('./profile/remove.js');
      hooks.onResult(await profileRemove(context(cmd), name));
    });

  program
    .command('serve')
    .description('run the emulated appliance as a network server (JSON-RPC over WebSocket and HTTP)')
    .option('--host <address>', 'address to listen on', '127.0.0.1')
    .addOption(new Option('--port <port>', 'port to listen on; 0 picks a free one').default(6000).argParser(portNumber))
    .option('--state <dir>', 'state directory (default: the embedded one, $STOR_HOME)')
    .addOption(
      new Option(
        '--role-expansion <mode>',
        'terminating (never breaks login), as-reported (overlaps break login, as the seed reports say) or truenas-25.10.1 (self-including roles break login, as the real code does)',
      ).argParser(roleExpansion),
    )
    .addOption(new Option('--role-lists <mode>', 'accept (as 25.10.1), or reject-overlap at save time').choices(['accept', 'reject-overlap']))
    .addOption(
      new Option('--emulate <behaviour>', 'every setting at once: truenas-25.10.1 (as its source behaves) or as-reported (as the seed\'s reports describe it)').choices([
        'truenas-25.10.1',
        'as-reported',
      ]),
    )
    .addOption(
      new Option('--upload-gate <mode>', 'sys-admin (the reported gate), full-admin (25.10.1: filesystem.put\'s role), or role (FILESYSTEM_DATA_WRITE suffices)').choices([
        'sys-admin',
        'full-admin',
        'role',
      ]),
    )
    .addOption(new Option('--sys-admin <who>', 'who gets SYS_ADMIN: builtin-administrators (the seed), or admin-uids (25.10.1: uid 0 and 950)').choices(['builtin-administrators', 'admin-uids']))
    .addOption(new Option('--http-rpc <mode>', 'POST /api/current: served (the seed\'s form), or refused with 405 (25.10.1)').choices(['served', 'refused']))
    .addOption(
      new Option('--ws-idle-timeout <seconds>', "drop a WebSocket on which the server sent nothing for this long, as the appliance's proxy does after 60 s (default: never)").argParser(
        seconds('--ws-idle-timeout'),
      ),
    )
    .option('--tls-cert <file>', 'serve https/wss with this PEM certificate')
    .option('--tls-key <file>', 'the PEM private key for --tls-cert')
    .addHelpText(
      'after',
      examples(
        'stor serve --port 0',
        'stor serve --host 0.0.0.0 --port 8443 --tls-cert cert.pem --tls-key key.pem',
        'stor serve --state /tmp/rehearsal --role-expansion as-reported',
        'stor serve --state /tmp/real --emulate truenas-25.10.1',
        'stor serve --ws-idle-timeout 60           # behave like the appliance behind its nginx',
      ) + '\nSettings given here (except --ws-idle-timeout, a server option) are stored with the state. Stop with Ctrl-C (SIGINT) or SIGTERM.\n',
    )
    .action(async (opts: import('./serve/serve.js').ServeOptions, cmd: Command) => {
      const { serve } = await import('./serve/serve.js');
      hooks.onResult(await serve(context(cmd), opts));
    });

  program
    .command('completion')
    .description('print a shell completion script')
    .argument('<shell>', 'bash or zsh')
    .addHelpText('after', examples('source <(stor completion bash)     # in ~/.bashrc', 'source <(stor completion zsh)      # in ~/.zshrc'))
    .action(async (shell: string, _opts: unknown, cmd: Command) => {
      const { completion } = await import('./completion/completion.js');
      context(cmd);
      hooks.onResult(completion(program, shell));
    });

  return program;
}

function collect(value: string, previous: string[] | undefined): string[] {
  return [...(previous ?? []), value];
}

const ROLE_EXPANSIONS = ['terminating', 'as-reported', 'truenas-25.10.1'];

/** `--role-expansion`; `release-25.10.1`, its name before the reports' model got its own, still means `as-reported`. */
function roleExpansion(value: string): string {
  if (value === 'release-25.10.1') return 'as-reported';
  if (!ROLE_EXPANSIONS.includes(value)) throw new InvalidArgumentError(`choose one of ${ROLE_EXPANSIONS.join(', ')}`);
  return value;
}

function portNumber(value: string): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 0 || n > 65535) throw new InvalidArgumentError(`a port is a whole number from 0 to 65535, not ${JSON.stringify(value)}`);
  return n;
}
