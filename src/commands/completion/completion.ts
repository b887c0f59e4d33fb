import { E } from '../../core/error-catalogue.js';
import { StorError } from '../../core/errors.js';
import {
  arg,
  defineCommand,
  kebab,
  value,
  type ArgSpecs,
  type CommandSpec,
  type Completion,
  type OptionSpecs,
} from '../framework/declare.js';
import type { CommandResult } from '../output/render.js';
import { candidateValues } from './values.js';
import { withFleet } from '../fleet/policy.js';

const SHELLS = ['bash', 'zsh', 'fish'] as const;

/** One command path as the scripts see it: its subcommands, its options and what its arguments complete to. */
interface Node {
  path: string;
  summary: string;
  subcommands: string[];
  /** Flags, globals included. */
  options: { flags: string[]; description: string; takes?: string }[];
  /** Per positional argument, what it completes to ('' for nothing); a trailing `*` repeats it. */
  args: string[];
}

/** What an option's or argument's value completes to: a kind for `--values`, `=a,b` for fixed choices, or ''. */
function valueKind(spec: { choices?: readonly string[]; suggest?: readonly string[]; complete?: Completion }): string {
  const words = spec.choices ?? spec.suggest;
  if (words) return `=${words.join(',')}`;
  return spec.complete ?? '';
}

function optionsOf(specs: OptionSpecs): Node['options'] {
  return Object.entries(specs)
    .filter(([, s]) => !s.hidden)
    .flatMap(([key, s]) => {
      const flags = [`--${kebab(key)}`, ...(s.short ? [`-${s.short}`] : [])];
      const description = s.description.replace(/\s+/g, ' ');
      if (s.type === 'flag') return [{ flags, description }];
      if (s.type === 'toggle')
        return [
          { flags, description },
          { flags: [`--no-${kebab(key)}`], description: s.offDescription },
        ];
      return [{ flags, description, takes: valueKind(s) }];
    });
}

function argsOf(specs: ArgSpecs): string[] {
  return Object.values(specs).map((a) => `${a.complete ?? ''}${a.variadic ? '*' : ''}`);
}

/** The words that follow `prefix` in a noun's verbs (`nfs create`): its verbs and sub-nouns, in the table's order. */
function wordsAfter(verbs: string[], prefix: string[]): string[] {
  const under = verbs
    .map((v) => v.split(' '))
    .filter((w) => w.length > prefix.length && prefix.every((p, i) => w[i] === p));
  return [...new Set(under.map((w) => w[prefix.length]!))];
}

/** The whole tree, from the declarations. */
async function commandNodes(): Promise<Node[]> {
  const { allCommands, COMMANDS, globalOptions } = await import('../index.js');
  const specs = await allCommands();
  const globals = [...optionsOf(globalOptions), { flags: ['--help', '-h'], description: 'show help' }];
  const node = (
    path: string,
    summary: string,
    subcommands: string[],
    spec?: CommandSpec<ArgSpecs, OptionSpecs>,
  ): Node => ({
    path,
    summary,
    subcommands,
    // As the program declares the verb: with the options --targets brings (--fan-out, --keep-going, …).
    options: [...(spec ? optionsOf(withFleet(path, spec).options ?? {}) : []), ...globals],
    args: spec ? argsOf(spec.args ?? {}) : [],
  });
  const nodes = [node('', '', [...Object.keys(COMMANDS), 'help'])];
  for (const [top, entry] of Object.entries(COMMANDS)) {
    if (entry.kind === 'verb') {
      const spec = specs.get(top)!;
      nodes.push(node(top, spec.summary, [], spec));
      continue;
    }
    nodes.push(node(top, entry.noun.summary, wordsAfter(Object.keys(entry.noun.verbs), [])));
    for (const [sub, summary] of Object.entries(entry.noun.nouns))
      nodes.push(node(`${top} ${sub}`, summary, wordsAfter(Object.keys(entry.noun.verbs), sub.split(' '))));
    for (const verb of Object.keys(entry.noun.verbs)) {
      const spec = specs.get(`${top} ${verb}`)!;
      nodes.push(node(`${top} ${verb}`, spec.summary, [], spec));
    }
  }
  return nodes;
}

const quote = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`;

function bashScript(nodes: Node[]): string {
  const cases = nodes
    .map((n) => {
      const opts = n.options.flatMap((o) => o.flags).join(' ');
      const vals = n.options
        .flatMap((o) => (o.takes !== undefined ? o.flags.map((f) => `${f}:${o.takes}`) : []))
        .join(' ');
      // An argument that completes to nothing is `-`: an empty word would vanish in bash's split, and the next argument's kind with it.
      const args = n.args.map((a) => a || '-').join(' ');
      return `    ${quote(n.path)}) subs=${quote(n.subcommands.join(' '))}; opts=${quote(opts)}; vals=${quote(vals)}; args=${quote(args)} ;;`;
    })
    .join('\n');
  return `# bash completion for stor; load with: source <(stor completion bash)
_stor_node() {
  case "$1" in
${cases}
    *) subs=""; opts=""; vals=""; args="" ;;
  esac
}
_stor_values() {
  # The quoted = keeps zsh from taking =* as a command path (EQUALS).
  local kind="\${1%\\*}"
  case "$kind" in
    '' | -) ;;
    file) COMPREPLY=($(compgen -f -- "$cur")) ;;
    directory) COMPREPLY=($(compgen -d -- "$cur")) ;;
    '='*) kind="\${kind#=}"; COMPREPLY=($(compgen -W "\${kind//,/ }" -- "$cur")) ;;
    *) _stor_remote_values "$kind" ;;
  esac
}
# Values from the target may hold blanks (\`Local Administrator\`): the prefix is the word as meant,
# not as typed (\`Local\\ Adm\`), and each candidate is inserted quoted as the shell needs it — unless
# the word was opened with a quote, which then quotes the blanks itself (not a name with a quote,
# \`$\`, a backquote, \`\\\\\` or \`!\` in it: the target chose it, so it goes in fully quoted, never run).
# Read a line at a time, never word-split or matched against local files (a \`*\` stays a \`*\`), and
# no falling back to local file names (-o default) for what only the target can name.
_stor_remote_values() {
  local prefix="$cur" c open=""
  local -a found quoted
  type compopt >/dev/null 2>&1 && compopt +o default 2>/dev/null
  case "$prefix" in
    [\\'\\"]*) open="\${prefix:0:1}"; prefix="\${prefix:1}" ;;
    *) prefix="\${prefix//\\\\/}" ;;
  esac
  while IFS= read -r c; do [[ -n $c ]] && found+=("$c"); done < <(stor completion --values "$1" --prefix="$prefix" "\${target[@]}" 2>/dev/null)
  for c in "\${found[@]}"; do
    case "$c" in
      *[\\'\\"\\$\\\`\\\\!]*) printf -v c '%q' "$c"; quoted+=("$c") ;;
      *) if [[ -n $open ]]; then quoted+=("$open$c"); else printf -v c '%q' "$c"; quoted+=("$c"); fi ;;
    esac
  done
  COMPREPLY=("\${quoted[@]}")
}
# The words typed before the cursor: bash splits --url=ws://h:9 at COMP_WORDBREAKS, so pieces with
# no blank between them in COMP_LINE are joined again.
_stor_typed() {
  local line="\${COMP_LINE:0:$COMP_POINT}" blank w i n=-1
  typed=()
  for ((i = 0; i <= COMP_CWORD; i++)); do
    w="\${COMP_WORDS[i]}"
    blank="\${line%%[![:space:]]*}"
    line="\${line#"$blank"}"
    if ((n < 0)) || [[ -n $blank || -z \${COMP_LINE+set} ]]; then n=$((n + 1)); typed[n]="$w"; else typed[n]+="$w"; fi
    line="\${line#"$w"}"
  done
}
_stor_completion() {
  # zsh runs this through bashcompinit: it needs bash's 0-based arrays and word splitting.
  [[ -n \${ZSH_VERSION-} ]] && setopt localoptions ksharrays shwordsplit
  local cur="\${COMP_WORDS[COMP_CWORD]}" prev="" cmd="" subs opts vals args w i v last npos=0 skip=0
  local -a typed target
  ((COMP_CWORD > 0)) && prev="\${COMP_WORDS[COMP_CWORD-1]}"
  _stor_typed
  last=$((\${#typed[@]} - 1))
  _stor_node ""
  for ((i = 1; i < last; i++)); do
    w="\${typed[i]}"
    if ((skip)); then skip=0; continue; fi
    if [[ $w == -* ]]; then
      # The target options typed so far go to the values lookup, so that it asks the same appliance.
      case "$w" in
        --url | --profile | --ca | --rpc) ((i + 1 < last)) && target+=("$w" "\${typed[i+1]}") ;;
        --url=* | --profile=* | --ca=* | --rpc=* | --insecure) target+=("$w") ;;
      esac
      [[ $w != *=* && " $vals " == *" $w:"* ]] && skip=1
      continue
    fi
    if [[ -n $subs && " $subs " == *" $w "* ]]; then
      cmd="\${cmd:+$cmd }$w"; _stor_node "$cmd"
    else
      npos=$((npos + 1))
    fi
  done
  for v in $vals; do
    if [[ "\${v%%:*}" == "$prev" ]]; then _stor_values "\${v#*:}"; return; fi
  done
  if [[ $cur == -* ]]; then COMPREPLY=($(compgen -W "$opts" -- "$cur")); return; fi
  if [[ -n $subs ]]; then COMPREPLY=($(compgen -W "$subs" -- "$cur")); return; fi
  local a=($args) kind=""
  if ((npos < \${#a[@]})); then kind="\${a[npos]}"; elif ((\${#a[@]} > 0)) && [[ \${a[\${#a[@]}-1]} == *\\* ]]; then kind="\${a[\${#a[@]}-1]}"; fi
  _stor_values "$kind"
}
complete -o default -F _stor_completion stor
`;
}

function fishScript(nodes: Node[]): string {
  const lines = ['# fish completion for stor; load with: stor completion fish | source', 'complete -c stor -f'];
  const tops = nodes.filter((n) => n.path !== '' && !n.path.includes(' '));
  // Every word of the path typed, and none of its subcommands yet (`share nfs`: not `create`).
  const condition = (path: string): string => {
    if (path === '') return '__fish_use_subcommand';
    const { subcommands } = nodes.find((n) => n.path === path)!;
    return [
      ...path.split(' ').map((w) => `__fish_seen_subcommand_from ${w}`),
      ...(subcommands.length ? [`not __fish_seen_subcommand_from ${subcommands.join(' ')}`] : []),
    ].join('; and ');
  };
  const values = (kind: string): string => {
    const k = kind.replace(/\*$/, '');
    if (k === '') return '';
    if (k === 'file' || k === 'directory') return ' -F';
    if (k.startsWith('=')) return ` -a ${quote(k.slice(1).split(',').join(' '))}`;
    return ` -a ${quote(`(stor completion --values ${k} --prefix (commandline -ct) 2>/dev/null)`)}`;
  };
  for (const n of tops) lines.push(`complete -c stor -n __fish_use_subcommand -a ${n.path} -d ${quote(n.summary)}`);
  lines.push(`complete -c stor -n __fish_use_subcommand -a help -d ${quote('show help for a command')}`);
  for (const n of nodes) {
    if (n.path === '') continue;
    const cond = condition(n.path);
    for (const verb of n.subcommands) {
      const sub = nodes.find((x) => x.path === `${n.path} ${verb}`)!;
      lines.push(`complete -c stor -n ${quote(cond)} -a ${verb} -d ${quote(sub.summary)}`);
    }
    const own = n.options.filter((o) => !['--help', '-h'].includes(o.flags[0]!));
    for (const o of own) {
      const long = o.flags.find((f) => f.startsWith('--'))!.slice(2);
      const short = o.flags.find((f) => /^-[^-]$/.test(f));
      lines.push(
        `complete -c stor -n ${quote(cond)} -l ${long}${short ? ` -s ${short.slice(1)}` : ''}${o.takes !== undefined ? ' -r' : ''}${o.takes ? values(o.takes) : ''} -d ${quote(o.description)}`,
      );
    }
    const firstArg = n.args[0];
    if (firstArg) lines.push(`complete -c stor -n ${quote(cond)}${values(firstArg)}`);
  }
  return `${lines.join('\n')}\n`;
}

const options = {
  values: value(
    '<kind>',
    'print the candidates of one kind (profile, privilege, method, dataset, service, share, snapshot-task, replication, smb-purpose, remote-path), for the scripts',
    { hidden: true },
  ),
  prefix: value('<text>', 'only candidates starting with this', { hidden: true }),
};

export const completionCommand = defineCommand({
  summary: 'print a shell completion script (bash, zsh or fish) that completes commands, options and values',
  effect: 'read',
  args: { shell: arg.optional('bash, zsh or fish') },
  options,
  examples: [
    'source <(stor completion bash)     # in ~/.bashrc',
    'source <(stor completion zsh)      # in ~/.zshrc',
    'stor completion fish > ~/.config/fish/completions/stor.fish',
  ],
  notes:
    'Values are completed too: profile names, privilege names and ids, method names, datasets, service names, shares, snapshot task ids, SMB purposes and remote paths (asking the target, with a short timeout), and fixed choices such as --rpc ws|http.',
  async run(ctx, { shell }, opts): Promise<CommandResult<string>> {
    if (opts.values !== undefined) {
      const found = await candidateValues(ctx, opts.values, opts.prefix ?? '');
      return { data: found.join('\n'), view: { kind: 'text' } };
    }
    const chosen = shell;
    if (chosen === undefined || !(SHELLS as readonly string[]).includes(chosen)) {
      throw new StorError(
        E.UNKNOWN_SHELL,
        `no completion for ${JSON.stringify(chosen ?? '')}; choose bash, zsh or fish`,
      );
    }
    const nodes = await commandNodes();
    const script =
      chosen === 'fish'
        ? fishScript(nodes)
        : chosen === 'zsh'
          ? `# zsh completion for stor; load with: source <(stor completion zsh)\nautoload -U +X bashcompinit && bashcompinit\n${bashScript(nodes)}`
          : bashScript(nodes);
    return { data: script, view: { kind: 'text' } };
  },
});
