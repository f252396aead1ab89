import { paginate, type PageOf, type Paging } from '../../client/index.js';
import type { Column, Output } from './output.js';

/** Prints one page of a list (`--limit`/`--offset`), or every page from `--offset` on with `--all`. */
export async function printPages<T>(
  out: Output,
  flags: { limit?: number; offset?: number; all?: boolean; csv?: boolean },
  fetchPage: (paging: Paging) => Promise<PageOf<T>>,
  columns: readonly Column<T>[] | ((rows: readonly T[]) => readonly Column<T>[]),
): Promise<void> {
  const columnsOf = (rows: readonly T[]) => (typeof columns === 'function' ? columns(rows) : columns);
  if (!flags.all) {
    const page = await fetchPage({ limit: flags.limit, offset: flags.offset });
    return out.list(page, page.items, columnsOf(page.items), flags);
  }
  const items: T[] = [];
  for await (const item of paginate(fetchPage, flags.offset ?? 0)) items.push(item);
  await out.list({ items, total: items.length, limit: items.length, offset: flags.offset ?? 0, has_more: false }, items, columnsOf(items), flags);
}
