import { Argument, type Command } from '../core/commander.js';
import type { HandlerContext } from '../core/context.js';
import { examples } from '../core/util.js';
import { CliError, ExitCode } from '../core/errors.js';
import { describeCommand } from '../command-groups.js';

interface Node {
  path: string[];
  subcommands: string[];
  options: string[];
}

/** Every command path of the program with its subcommands and options (help excluded). */
export function commandTree(program: Command): Node[] {
  const nodes: Node[] = [];
  const walk = (cmd: Command, path: string[]) => {
    const subs = cmd.commands.filter((c) => c.name() !== 'help' && !c.name().startsWith('__'));
    nodes.push({
      path,
      subcommands: subs.flatMap((c) => [c.name(), ...c.aliases()]),
      options: cmd.options.flatMap((o) => [o.long, o.short].filter((x): x is string => Boolean(x))),
    });
    for (const c of subs) for (const name of [c.name(), ...c.aliases()]) walk(c, [...path, name]);
  };
  walk(program, []);
  return nodes;
}

/** A bash completion script: completes subcommands and options at every level. */
export function bashCompletion(program: Command): string {
  const globals = commandTree(program)[0]!.options;
  const cases = commandTree(program)
    .map((n) => `    "${n.path.join(' ')}") words="${[...n.subcommands, ...n.options, ...(n.path.length ? globals : [])].join(' ')}" ;;`)
    .join('\n');
  return `# voxctl bash completion: source <(voxctl completion bash)
_voxctl() {
  local cur path="" w i words dyn
  cur="\${COMP_WORDS[COMP_CWORD]}"
  # Values (speaker ids, filter values, profiles, providers) come from voxctl itself, cached briefly.
  if dyn=$(voxctl __complete -- "\${COMP_WORDS[@]:1:COMP_CWORD-1}" "$cur" 2>/dev/null); then
    local IFS=$'\\n'
    COMPREPLY=( $dyn )
    return
  fi
  for ((i = 1; i < COMP_CWORD; i++)); do
    w="\${COMP_WORDS[i]}"
    [[ "$w" == -* ]] && continue
    if [[ -z "$path" ]]; then path="$w"; else path="$path $w"; fi
  done
  case "$path" in
${cases}
    *) words="" ;;
  esac
  COMPREPLY=( $(compgen -W "$words" -- "$cur") )
}
complete -o default -F _voxctl voxctl
`;
}

/** A zsh completion script (via bashcompinit, which zsh ships). */
export function zshCompletion(program: Command): string {
  return `#compdef voxctl
# voxctl zsh completion: source <(voxctl completion zsh)
autoload -U +X bashcompinit && bashcompinit
${bashCompletion(program).replace(/^# .*\n/, '')}`;
}

/** A fish completion script: subcommands per parent path, options per command. */
export function fishCompletion(program: Command): string {
  const lines = [
    '# voxctl fish completion: voxctl completion fish > ~/.config/fish/completions/voxctl.fish',
    'complete -c voxctl -f',
    // Values (speaker ids, filter values, profiles, providers) come from voxctl itself, cached briefly.
    "complete -c voxctl -a '(voxctl __complete -- (commandline -opc)[2..-1] (commandline -ct) 2>/dev/null)'",
  ];
  for (const n of commandTree(program)) {
    const cond = n.path.length === 0 ? '__fish_use_subcommand' : `__fish_seen_subcommand_from ${n.path.at(-1)}`;
    for (const s of n.subcommands) lines.push(`complete -c voxctl -n '${cond}' -a '${s}'`);
    for (const o of n.options.filter((x) => x.startsWith('--'))) lines.push(`complete -c voxctl -n '${cond}' -l '${o.slice(2)}'`);
  }
  return lines.join('\n') + '\n';
}

/** `voxctl completion bash|zsh|fish`. */
export function registerCompletion(program: Command, ctx: HandlerContext): void {
  examples(
    program
      .command('completion')
      .addArgument(new Argument('<shell>', 'shell to complete for').choices(['bash', 'zsh', 'fish']))
      .description(describeCommand('completion')),
    ['source <(voxctl completion bash)', 'voxctl completion fish > ~/.config/fish/completions/voxctl.fish'],
  ).action((shell: string) => {
    const scripts: Record<string, () => string> = { bash: () => bashCompletion(program), zsh: () => zshCompletion(program), fish: () => fishCompletion(program) };
    ctx.stdout.write(scripts[shell]!());
  });

  // Called by the scripts above on TAB: prints one candidate per line, exit 1 when static words apply.
  program
    .command('__complete', { hidden: true })
    .argument('[words...]', 'the words before the cursor, then the word under it')
    .helpOption(false)
    .action(async (words: string[]) => {
      const { completeValues } = await import('./values.js');
      const values = await completeValues(ctx, words.slice(0, -1), words.at(-1) ?? '');
      if (values === undefined) throw new CliError('', { exitCode: ExitCode.error, code: 'no_dynamic_completion' });
      ctx.stdout.write(values.map((v) => v + '\n').join(''));
    });
}
