import { kebab, type OptionSpec } from './option-specs.js';
import { globalOptions, type GlobalOptions } from './global-options.js';

/*
 * The one reading of a command line before commander parses it. The first stage (which must not
 * load the CLI), the session agent's run policy, the start-up head start and the CLI's choice of
 * which verb to load all need the same few facts: the command words, the global options given,
 * whether help or the version is asked for. They read them here, from the one declaration of the
 * global options (global-options.ts), so that adding a global option touches that file only.
 * Commander still parses for real; nothing here refuses a command line.
 *
 * Read once per process (docs/ARCHITECTURE.md, "One reading of the command line"): the first stage
 * reads it and hands the CommandLine down (start.ts, bin-entry.ts `main`, the head start, `run()`,
 * the command tree); the session agent, a process of its own that receives argv in the run request,
 * reads it once there for its run policy and `run()`.
 */

type GlobalKey = keyof GlobalOptions;

/** How a global option is written: `--timeout`, `-q`, `--no-session`, and whether a value follows it. */
interface Spelling {
  key: GlobalKey;
  takesValue: boolean;
  /** `--no-session`: the toggle turned off. */
  off?: boolean;
}

function spellings(key: string, spec: OptionSpec): [string, Spelling][] {
  const takesValue = spec.type === 'value' || spec.type === 'list';
  const own: Spelling = { key: key as GlobalKey, takesValue };
  return [
    [`--${kebab(key)}`, own],
    ...(spec.short ? [[`-${spec.short}`, own] as [string, Spelling]] : []),
    ...(spec.type === 'toggle'
      ? [[`--no-${kebab(key)}`, { key: key as GlobalKey, takesValue: false, off: true }] as [string, Spelling]]
      : []),
  ];
}

const GLOBAL_SPELLINGS: ReadonlyMap<string, Spelling> = new Map(
  Object.entries(globalOptions).flatMap(([key, spec]) => spellings(key, spec)),
);

const HELP_FLAGS = ['--help', '-h'];
const VERSION_FLAGS = ['--version', '-V'];

/** `-qv`: global flags written together, which commander reads one by one (its parseOptions). */
const globalFlagsTogether = (arg: string): boolean =>
  /^-[^-]{2,}$/.test(arg) && [...arg.slice(1)].every((c) => GLOBAL_SPELLINGS.get(`-${c}`)?.takesValue === false);

/** What a command line says, read without commander. */
export interface CommandLine {
  /** The arguments after `stor`, as given: what commander parses. */
  argv: readonly string[];
  /** The words that are not options, up to a `--`: the command words, then the verb's arguments. */
  words: string[];
  /**
   * How many of `words` come before the first option commander does not know at the top (neither
   * a global option nor `-V`/`--version`: `--help`, a verb's own, a misspelt one): commander names
   * commands only up to it, and reads every word after it as an argument of the command above
   * (its parseOptions), so `stor --help whoami` shows the root's help and `stor privilege --help
   * fix` the noun's. Only these words may narrow the command tree (program.ts `namedTop`).
   */
  commandWords: number;
  /** The top-level word (`privilege`, `whoami`), if any; undefined under `stor help …`. */
  top?: string;
  /** The second word: the verb under a noun (`fix`), or a top-level verb's first argument. */
  verb?: string;
  /** `stor help <topic…>`: the words after `help`. */
  helpTopic?: string[];
  /** Every option before a `--`, global or the verb's, as written (`--url=x` included). */
  options: string[];
  /** Those of them that are not global options: the verb's own, or unknown. */
  others: string[];
  /**
   * The global options given, by key: a value's text (`--timeout 5`, `--timeout=5`), true for a
   * flag, false for a toggle's `--no-` form. The last one given wins, as in commander.
   */
  globals: Partial<Record<GlobalKey, string | boolean>>;
  /** Global options given more than once. */
  repeated: Set<GlobalKey>;
  /** `-h`/`--help` among the options, or `help` as the first word. */
  asksHelp: boolean;
  /** `-V`/`--version` among the options. */
  asksVersion: boolean;
  /** Whether a `--` ends the options. */
  endOfOptions: boolean;
}

/**
 * Reads `argv` (the arguments after `stor`). A global option that takes a value takes the next
 * word whatever it is, as commander does; a verb's own options are not known here, so the value
 * of one (`--mode 420`) counts among the words: only the first two words name the command.
 */
export function readCommandLine(argv: readonly string[]): CommandLine {
  const words: string[] = [];
  const options: string[] = [];
  const others: string[] = [];
  const globals: CommandLine['globals'] = {};
  const repeated = new Set<GlobalKey>();
  let endOfOptions = false;
  let commandWords: number | undefined;
  const given = (spelling: Spelling, value: string | boolean) => {
    if (spelling.key in globals) repeated.add(spelling.key);
    globals[spelling.key] = value;
  };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    if (a === '--') {
      endOfOptions = true;
      break;
    }
    if (!a.startsWith('-') || a === '-') {
      words.push(a);
      continue;
    }
    options.push(a);
    const eq = a.startsWith('--') ? a.indexOf('=') : -1;
    if (globalFlagsTogether(a)) {
      for (const c of a.slice(1)) given(GLOBAL_SPELLINGS.get(`-${c}`)!, true);
      continue;
    }
    const spelling = GLOBAL_SPELLINGS.get(eq === -1 ? a : a.slice(0, eq));
    if (!spelling) {
      if (commandWords === undefined && !VERSION_FLAGS.includes(a)) commandWords = words.length;
      others.push(a);
      continue;
    }
    if (!spelling.takesValue) given(spelling, !spelling.off);
    else if (eq !== -1) given(spelling, a.slice(eq + 1));
    else if (i + 1 < argv.length) given(spelling, argv[++i]!);
  }
  const help = words[0] === 'help';
  return {
    argv,
    words,
    commandWords: commandWords ?? words.length,
    ...(help ? { helpTopic: words.slice(1) } : {}),
    ...(!help && words[0] !== undefined ? { top: words[0] } : {}),
    ...(!help && words[1] !== undefined ? { verb: words[1] } : {}),
    options,
    others,
    globals,
    repeated,
    asksHelp: help || options.some((o) => HELP_FLAGS.includes(o)),
    asksVersion: options.some((o) => VERSION_FLAGS.includes(o)),
    endOfOptions,
  };
}
