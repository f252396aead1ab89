import type { Command } from '../core/commander.js';
import { Option } from '../core/commander.js';
import { paginate } from '../../client/index.js';
import type { ApiKeyInfo } from '../../shared/schemas/users.js';
import type { HandlerContext } from '../core/context.js';
import type { Column } from '../core/output.js';
import { connect } from '../core/session.js';
import { examples, flagsOf } from '../core/util.js';
import { describeCommand } from '../command-groups.js';

const keyColumns: Column<ApiKeyInfo>[] = [
  { header: 'id', get: (k) => k.id },
  { header: 'name', get: (k) => k.name },
  { header: 'scope', get: (k) => k.scope },
  { header: 'prefix', get: (k) => k.prefix },
  { header: 'created_at', get: (k) => k.created_at },
  { header: 'last_used_at', get: (k) => k.last_used_at },
];

/** `voxctl keys list|create|revoke`. */
export function registerKeys(program: Command, ctx: HandlerContext): void {
  const keys = program.command('keys').description(describeCommand('keys'));

  examples(keys.command('list').option('--csv', 'CSV output').description('List your keys (never the secret)'), ['voxctl keys list']).action(async (_o, cmd: Command) => {
    const flags = flagsOf<{ csv?: boolean }>(cmd);
    const { client, out } = await connect(ctx, flags);
    const items: ApiKeyInfo[] = [];
    for await (const k of paginate((p) => client.listKeys(p))) items.push(k);
    await out.list({ items, total: items.length, limit: items.length, offset: 0, has_more: false }, items, keyColumns, flags);
  });

  examples(
    keys
      .command('create')
      .option('--name <name>', 'a label for the key')
      .addOption(new Option('--scope <scope>', 'full, or read (GET only)').choices(['full', 'read']).default('full'))
      .description('Create a key; the secret is printed once on stdout'),
    ['voxctl keys create --name ci --scope read', 'KEY=$(voxctl keys create --name ci -q)'],
  ).action(async (_o, cmd: Command) => {
    const flags = flagsOf<{ name?: string; scope: 'full' | 'read' }>(cmd);
    const { client, out } = await connect(ctx, flags, { announce: true });
    const created = await client.createKey({ ...(flags.name ? { name: flags.name } : {}), scope: flags.scope });
    if (out.json) return out.printJson(created);
    out.write(created.key + '\n');
    out.info(`Created ${created.id} (${created.scope}). The key is shown only this once: store it now.`);
  });

  examples(keys.command('revoke').argument('<id>', 'key id (key_...)').description('Revoke a key'), ['voxctl keys revoke key_abc123']).action(
    async (id: string, _o, cmd: Command) => {
      const { client, out } = await connect(ctx, flagsOf(cmd), { announce: true });
      await client.revokeKey(id);
      if (out.json) return out.printJson({ id, revoked: true });
      out.success(`Revoked ${id}`);
    },
  );
}
