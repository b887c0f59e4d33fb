import type { Command } from 'commander';
import { StorError } from '../../core/errors.js';
import type { CommandResult } from '../shared/render.js';

interface Node {
  path: string;
  subcommands: string[];
  options: string[];
}

function optionFlags(cmd: Command): string[] {
  return cmd.options.flatMap((o) => [o.long, o.short].filter((f): f is string => typeof f === 'string'));
}

/** Every command path with its subcommands and options, the globals included everywhere. */
function walk(cmd: Command, path: string[], globals: string[]): Node[] {
  const subs = cmd.commands.filter((c) => !(c as Command & { _hidden?: boolean })._hidden);
  const node: Node = {
    path: path.join(' '),
    subcommands: subs.map((c) => c.name()),
    options: [...new Set([...optionFlags(cmd), ...globals, '--help'])],
  };
  return [node, ...subs.flatMap((c) => walk(c, [...path, c.name()], globals))];
}

function bashScript(program: Command): string {
  const nodes = walk(program, [], optionFlags(program));
  const cases = nodes
    .map((n) => `    "${n.path}") subs="${n.subcommands.join(' ')}"; opts="${n.options.join(' ')}" ;;`)
    .join('\n');
  return `# bash completion for stor; load with: source <(stor completion bash)
_stor_completion() {
  local cur="\${COMP_WORDS[COMP_CWORD]}" path="" subs opts w i
  _stor_node() {
    case "$1" in
${cases}
      *) subs=""; opts="" ;;
    esac
  }
  for ((i = 1; i < COMP_CWORD; i++)); do
    w="\${COMP_WORDS[i]}"
    [[ $w == -* ]] && continue
    _stor_node "$path"
    if [[ " $subs " == *" $w "* ]]; then path="\${path:+$path }$w"; fi
  done
  _stor_node "$path"
  if [[ $cur == -* ]]; then
    COMPREPLY=($(compgen -W "$opts" -- "$cur"))
  elif [[ -n $subs ]]; then
    COMPREPLY=($(compgen -W "$subs" -- "$cur"))
  fi
}
complete -o default -F _stor_completion stor
`;
}

/** `stor completion bash|zsh`: a script to source; zsh uses the bash one through bashcompinit. */
export function completion(program: Command, shell: string): CommandResult<string> {
  let script: string;
  if (shell === 'bash') script = bashScript(program);
  else if (shell === 'zsh') script = `# zsh completion for stor; load with: source <(stor completion zsh)\nautoload -U +X bashcompinit && bashcompinit\n${bashScript(program)}`;
  else throw new StorError('usage', 'UNKNOWN_SHELL', `no completion for ${JSON.stringify(shell)}; choose bash or zsh`);
  return { data: script, view: { kind: 'text' } };
}
