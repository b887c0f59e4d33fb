import { seconds } from './arg-parsers.js';
import { choice, flag, toggle, value, type OptionValues } from './option-specs.js';

/** Options every command accepts (docs/COMMANDS.md "Commands", Global options), before or after the command words. */
export const globalOptions = {
  json: flag('print machine-readable JSON on stdout'),
  jsonLines: flag(
    'print JSON one document a line (NDJSON): with --targets a line per target as each finishes, then a summary line',
    { conflicts: ['json'] },
  ),
  quiet: flag('print nothing but results and errors', { short: 'q' }),
  verbose: flag('trace on stderr what stor does: target, transport, each call and its duration', { short: 'v' }),
  timeout: value('<seconds>', 'give up on the target after this long (default 30)', { parse: seconds('--timeout') }),
  url: value(
    '<url>',
    'the appliance to use, e.g. wss://nas.example.com (env STOR_URL); uses the key of the saved profile for that appliance',
  ),
  profile: value('<name>', 'use a saved profile (env STOR_PROFILE)', { complete: 'profile' }),
  insecure: flag('do not verify the appliance TLS certificate'),
  ca: value('<file>', 'trust the CA certificate(s) in this PEM file', { complete: 'file' }),
  targets: value(
    '<list>',
    'run the command on several profiles: names, ranges nas[1-3], tags @prod, or all, comma-separated (a read runs on each at once; a change is planned on each, asked once, then made)',
    { complete: 'profile' },
  ),
  session: toggle(
    'use the session agent (the default, unless STOR_SESSION=off)',
    'run with a connection and login of its own, without the session agent',
  ),
  wide: flag('tables: every column at full width, none left out or shortened (lines may pass the terminal width)'),
  columns: value(
    '<list>',
    'tables: only these columns, in this order, by header, comma-separated (e.g. id,name,full-name)',
  ),
  rpc: choice(['ws', 'http'] as const, '<transport>', 'JSON-RPC over a WebSocket (ws) or HTTP POST (http)'),
};

/** The parsed global options, as every command's context holds them. */
export type GlobalOptions = OptionValues<typeof globalOptions>;
