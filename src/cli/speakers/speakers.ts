import type { Command } from '../core/commander.js';
import { paginate } from '../../client/index.js';
import type { Speaker, SpeakerFacets, SpeakerQuery } from '../../shared/schemas/speakers.js';
import type { HandlerContext, Prompter } from '../core/context.js';
import { usageError } from '../core/errors.js';
import type { Column } from '../core/output.js';
import { explainNoMatch, FILTERS } from '../core/speaker-hints.js';
import { connect, type GlobalFlags } from '../core/session.js';
import { deliverAudio } from '../core/audio-out.js';
import { explained } from '../core/api-errors.js';
import { assertOutput, canPrompt, examples, flagsOf, pagingOptions } from '../core/util.js';
import { describeCommand } from '../command-groups.js';

/** Table/CSV columns of a speaker. */
export const speakerColumns: Column<Speaker>[] = [
  { header: 'id', get: (s) => s.id },
  { header: 'gender', get: (s) => s.gender },
  { header: 'region', get: (s) => s.region },
  { header: 'accent', get: (s) => s.accent },
  { header: 'age_range', get: (s) => s.age_range },
  { header: 'native_language', get: (s) => s.native_language },
];

interface FilterFlags {
  gender?: string;
  region?: string;
  accent?: string;
  ageRange?: string;
  nativeLanguage?: string;
}

function addFilters(cmd: Command): Command {
  return cmd
    .option('--gender <gender>', 'Male, Female or Non-binary')
    .option('--region <region>', 'region (see `voxctl speakers facets`)')
    .option('--accent <accent>', 'accent')
    .option('--age-range <range>', 'age bracket, e.g. 25-34')
    .option('--native-language <lang>', 'native language');
}

function filtersOf(f: FilterFlags): Omit<SpeakerQuery, 'limit' | 'offset'> {
  return { gender: f.gender, region: f.region, accent: f.accent, age_range: f.ageRange, native_language: f.nativeLanguage };
}

/** `voxctl speakers list|show|facets|pick|sample`. */
export function registerSpeakers(program: Command, ctx: HandlerContext): void {
  const speakers = program.command('speakers').description(describeCommand('speakers'));

  examples(
    pagingOptions(addFilters(speakers.command('list').description('List speakers (filters are exact, case-insensitive)')), 'follow pages and list every match'),
    ['voxctl speakers list --gender Female --accent British', 'voxctl speakers list --all --csv > speakers.csv', 'voxctl speakers list --json --limit 5 | jq -r ".items[].id"'],
  ).action(async (_o, cmd: Command) => {
    const flags = flagsOf<FilterFlags & { limit?: number; offset?: number; all?: boolean; csv?: boolean }>(cmd);
    const { client, out } = await connect(ctx, flags, { auth: false });
    const filters = filtersOf(flags);
    if (flags.all) {
      const items: Speaker[] = [];
      for await (const s of paginate((p) => client.listSpeakers({ ...filters, ...p }), flags.offset ?? 0)) items.push(s);
      const envelope = { items, total: items.length + (flags.offset ?? 0), limit: items.length, offset: flags.offset ?? 0, has_more: false };
      await out.list(envelope, items, speakerColumns, flags);
      if (envelope.total === 0) await explainNoMatch(out, filters, () => client.speakerFacets());
      return;
    }
    const page = await client.listSpeakers({ ...filters, limit: flags.limit, offset: flags.offset });
    await out.list(page, page.items, speakerColumns, flags);
    if (page.total === 0) await explainNoMatch(out, filters, () => client.speakerFacets());
    if (!out.json && !flags.csv && page.has_more) {
      out.info(`Showing ${page.offset + 1}-${page.offset + page.items.length} of ${page.total}; use --all or --offset ${page.offset + page.items.length} for more.`);
    }
  });

  examples(speakers.command('show').argument('<id>', 'speaker id').description('Show one speaker'), ['voxctl speakers show spk_flite-slt_001']).action(
    async (id: string, _o, cmd: Command) => {
      const { client, out } = await connect(ctx, flagsOf(cmd));
      const s = await explained({ speakerId: id }, () => client.getSpeaker(id));
      if (out.json) return out.printJson(s);
      out.fields([
        ['id', s.id],
        ['gender', s.gender],
        ['region', s.region],
        ['accent', s.accent],
        ['age_range', s.age_range],
        ['native_language', s.native_language],
        ['sample_audio_url', s.sample_audio_url],
      ]);
    },
  );

  examples(speakers.command('facets').option('--csv', 'CSV output').description('Allowed values of each filter, with counts'), [
    'voxctl speakers facets',
    'voxctl speakers facets --json | jq ".region"',
  ]).action(async (_o, cmd: Command) => {
    const flags = flagsOf<{ csv?: boolean }>(cmd);
    const { client, out } = await connect(ctx, flags, { auth: false });
    const facets = await client.speakerFacets();
    const rows = FILTERS.flatMap((f) => (facets[f] ?? []).map((v) => ({ filter: f, value: v.value, count: v.count })));
    await out.list(facets, rows, [
      { header: 'filter', get: (r) => r.filter },
      { header: 'value', get: (r) => r.value },
      { header: 'count', get: (r) => r.count },
    ], flags);
  });

  examples(addFilters(speakers.command('pick').description('Search and choose a speaker interactively; prints its id')), [
    'voxctl speakers pick',
    'voxctl config set speaker "$(voxctl speakers pick --gender Female)"',
  ]).action(async (_o, cmd: Command) => {
    const flags = flagsOf<FilterFlags>(cmd);
    // Inside `$(...)` stdout is a pipe: the picker draws on the controlling terminal and only the id goes to stdout.
    const term = canPrompt(ctx) ? { prompt: ctx.prompt, close: () => undefined } : await ctx.terminal();
    if (!term) throw usageError('speakers pick needs a terminal', 'use `voxctl speakers list` with filters in scripts');
    try {
      await pick(flags, term.prompt);
    } finally {
      term.close();
    }
  });

  const pick = async (flags: FilterFlags & GlobalFlags, prompt: Prompter): Promise<void> => {
    const { client, out } = await connect(ctx, flags, { auth: false });
    const facets = await client.speakerFacets();
    const cache = new Map<string, Promise<Speaker[]>>();
    const fetchFor = (query: Omit<SpeakerQuery, 'limit' | 'offset'>) => {
      const cacheKey = JSON.stringify(query);
      let hit = cache.get(cacheKey);
      if (!hit) {
        hit = client.listSpeakers({ ...query, limit: 100 }).then((p) => p.items);
        cache.set(cacheKey, hit);
      }
      return hit;
    };
    const id = await prompt.search<string>('Search speakers (e.g. "female british 25-34"):', async (term) => {
      const { query, rest } = termToQuery(term ?? '', facets, filtersOf(flags));
      const items = (await fetchFor(query)).filter((s) => rest.every((t) => speakerText(s).includes(t)));
      return items.slice(0, 100).map((s) => ({ name: `${s.id}  ${describe(s)}`, value: s.id }));
    });
    out.write(id + '\n');
  };

  examples(
    speakers
      .command('sample')
      .argument('<id>', 'speaker id')
      .option('-o, --out <file>', "save the sample WAV to this file ('-': stdout, when it is not a terminal)")
      .option('--force', 'overwrite an existing file')
      .option('--play', 'play it (also when saving)')
      .description('Fetch the sample audio of a speaker'),
    ['voxctl speakers sample spk_flite-slt_001 --play', 'voxctl speakers sample spk_flite-slt_001 -o sample.wav'],
  ).action(async (id: string, _o, cmd: Command) => {
    const flags = flagsOf<{ out?: string; force?: boolean; play?: boolean }>(cmd);
    if (flags.out) assertOutput(ctx, flags.out, { force: flags.force, json: flags.json, what: 'audio' });
    const { client, out } = await connect(ctx, flags, { announce: Boolean(flags.out) });
    const s = await explained({ speakerId: id }, () => client.getSpeaker(id));
    if (!s.sample_audio_url) throw usageError(`Speaker ${id} has no sample audio`);
    const wav = await client.downloadAudio(s.sample_audio_url);
    await deliverAudio(ctx, out, wav, { outFile: flags.out, force: flags.force, play: flags.play, name: `sample-${id}` });
    if (out.json) out.printJson(s);
  });
}

function describe(s: Speaker): string {
  return [s.gender, s.region, s.accent, s.age_range, s.native_language].filter(Boolean).join(' · ');
}

function speakerText(s: Speaker): string {
  return `${s.id} ${describe(s)}`.toLowerCase();
}

/** Words of the search that name a facet value become server filters; the rest filter locally. */
export function termToQuery(
  term: string,
  facets: SpeakerFacets,
  base: Omit<SpeakerQuery, 'limit' | 'offset'>,
): { query: Omit<SpeakerQuery, 'limit' | 'offset'>; rest: string[] } {
  const query = { ...base };
  const rest: string[] = [];
  for (const token of term.toLowerCase().split(/\s+/).filter(Boolean)) {
    const facet = FILTERS.find((f) => query[f] === undefined && (facets[f] ?? []).some((v) => v.value.toLowerCase() === token));
    if (facet) query[facet] = (facets[facet] ?? []).find((v) => v.value.toLowerCase() === token)!.value;
    else rest.push(token);
  }
  return { query, rest };
}
