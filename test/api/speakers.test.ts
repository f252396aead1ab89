import { request as httpRequest } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { manualClock } from '../helpers/core-http.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { createUrlSigner } from '../../src/server/features/audio/audio-urls.js';
import type { SpeakerFacets, SpeakerPage, Speaker } from '../../src/shared/schemas/speakers.js';

describe('/v1/speakers', () => {
  let server: TestServer;
  const get = (path: string, auth = false) =>
    fetch(`${server.url}${path}`, auth ? { headers: { authorization: `Bearer ${server.key}` } } : {});
  const json = async <T>(path: string, auth = false): Promise<T> => {
    const res = await get(path, auth);
    expect(res.status).toBe(200);
    return (await res.json()) as T;
  };

  beforeAll(async () => {
    server = await startTestServer();
  });
  afterAll(async () => server.close());

  it('lists the first page publicly with the paging envelope', async () => {
    const res = await get('/v1/speakers');
    expect(res.status).toBe(200);
    expect(res.headers.get('x-request-id')).toBeTruthy();
    const page = (await res.json()) as SpeakerPage;
    expect(page.limit).toBe(20);
    expect(page.offset).toBe(0);
    expect(page.total).toBeGreaterThanOrEqual(2400);
    expect(page.has_more).toBe(true);
    expect(page.items).toHaveLength(20);
    for (const s of page.items) {
      expect(s.id).toMatch(/^[A-Za-z0-9_-]+$/);
      expect(['Male', 'Female', 'Non-binary']).toContain(s.gender);
      expect(s.age_range).toMatch(/^\d+-\d+$/);
      expect(typeof s.region).toBe('string');
      expect(Object.keys(s).sort()).toEqual(['accent', 'age_range', 'engine', 'gender', 'id', 'native_language', 'region', 'sample_audio_url', 'variant', 'voice']);
    }
  });

  it('pages without overlap and ends with has_more false', async () => {
    const first = await json<SpeakerPage>('/v1/speakers?limit=100&offset=0');
    const second = await json<SpeakerPage>('/v1/speakers?limit=100&offset=100');
    const ids = new Set([...first.items, ...second.items].map((s) => s.id));
    expect(ids.size).toBe(200);
    const last = await json<SpeakerPage>(`/v1/speakers?limit=100&offset=${first.total - 5}`);
    expect(last.items).toHaveLength(5);
    expect(last.has_more).toBe(false);
    const beyond = await json<SpeakerPage>(`/v1/speakers?offset=${first.total + 10}`);
    expect(beyond).toMatchObject({ items: [], total: first.total, has_more: false });
  });

  it.each([
    ['limit=0'],
    ['limit=101'],
    ['limit=-1'],
    ['offset=-1'],
    ['limit=abc'],
    ['offset=1.5'],
    ['limit=99999999999999999999'],
    ['gender=Robot'],
  ])('rejects %s with 400 and a string detail', async (query) => {
    const res = await get(`/v1/speakers?${query}`);
    expect(res.status).toBe(400);
    const body = (await res.json()) as { detail: unknown; status_code: number };
    expect(typeof body.detail).toBe('string');
    expect(body.status_code).toBe(400);
  });

  it('filters exactly and case-insensitively, combining filters', async () => {
    const scots = await json<SpeakerPage>('/v1/speakers?accent=scottish&limit=100');
    expect(scots.total).toBeGreaterThan(0);
    expect(scots.items.every((s) => s.accent === 'Scottish' && s.region === 'Europe')).toBe(true);
    const same = await json<SpeakerPage>('/v1/speakers?accent=SCOTTISH&limit=100');
    expect(same.total).toBe(scots.total);
    const women = await json<SpeakerPage>('/v1/speakers?gender=female&native_language=English&region=north%20america&limit=100');
    expect(women.total).toBeGreaterThan(0);
    for (const s of women.items) expect(s).toMatchObject({ gender: 'Female', native_language: 'English', region: 'North America' });
    // Exact match: a prefix matches nothing.
    expect((await json<SpeakerPage>('/v1/speakers?accent=Scot')).total).toBe(0);
    // Non-ASCII values fold case too.
    expect((await json<SpeakerPage>('/v1/speakers?native_language=M%C4%80ORI')).total).toBeGreaterThan(0);
    const nb = await json<SpeakerPage>('/v1/speakers?gender=non-binary');
    expect(nb.items.every((s) => s.gender === 'Non-binary')).toBe(true);
  });

  it('serves facets whose counts agree with the filters', async () => {
    const facets = await json<SpeakerFacets>('/v1/speakers/facets');
    expect(facets.gender.map((g) => g.value).sort()).toEqual(['Female', 'Male', 'Non-binary']);
    const all = await json<SpeakerPage>('/v1/speakers?limit=1');
    for (const key of ['gender', 'region', 'accent', 'age_range', 'native_language', 'engine'] as const) {
      expect(facets[key].reduce((n, f) => n + f.count, 0)).toBe(all.total);
    }
    for (const f of facets.region.slice(0, 3)) {
      const page = await json<SpeakerPage>(`/v1/speakers?region=${encodeURIComponent(f.value)}&limit=1`);
      expect(page.total).toBe(f.count);
    }
    for (const f of facets.age_range) expect(f.value).toMatch(/^\d+-\d+$/);
  });

  // DESIGN §4.5: speakers say how they are made, and `engine` filters like the other attributes.
  it('exposes engine, voice and variant (null when none), with engine as a filter and a facet', async () => {
    const facets = await json<SpeakerFacets>('/v1/speakers/facets');
    expect(facets.engine.map((f) => f.value).sort()).toEqual(['espeak', 'flite']);
    for (const f of facets.engine) {
      const page = await json<SpeakerPage>(`/v1/speakers?engine=${f.value.toUpperCase()}&limit=100`);
      expect(page.total).toBe(f.count);
      expect(page.items.every((s) => s.engine === f.value)).toBe(true);
    }
    const flite = await json<SpeakerPage>('/v1/speakers?engine=flite&limit=100');
    expect(flite.items.every((s) => ['slt', 'rms', 'awb', 'kal16'].includes(s.voice!) && s.variant === null)).toBe(true);
    const scottish = await json<SpeakerPage>('/v1/speakers?engine=espeak&accent=scottish&limit=100');
    expect(scottish.total).toBeGreaterThan(0);
    expect(scottish.items.every((s) => s.voice === 'en-gb-scotland' && typeof s.variant === 'string')).toBe(true);
    expect((await json<SpeakerPage>('/v1/speakers?engine=festival')).total).toBe(0);
    const one = await json<Speaker>(`/v1/speakers/${scottish.items[0]!.id}`, true);
    expect(one).toMatchObject({ engine: 'espeak', voice: 'en-gb-scotland', variant: scottish.items[0]!.variant });
  });

  it('needs a key for one speaker, and answers 404 Speaker not found for unknown ids', async () => {
    const { items } = await json<SpeakerPage>('/v1/speakers?limit=1&offset=7');
    const id = items[0]!.id;
    expect((await get(`/v1/speakers/${id}`)).status).toBe(401);
    const one = await json<Speaker>(`/v1/speakers/${id}`, true);
    expect(one).toMatchObject({ ...items[0], sample_audio_url: expect.any(String) });
    const missing = await get('/v1/speakers/spk_nobody_999', true);
    expect(missing.status).toBe(404);
    expect(((await missing.json()) as { detail: string }).detail).toBe('Speaker not found');
  });

  it('hands out signed sample URLs for smp_{speaker_id}', async () => {
    const { items } = await json<SpeakerPage>('/v1/speakers?limit=1');
    const url = new URL(items[0]!.sample_audio_url!);
    expect(`${url.protocol}//${url.host}`).toBe(server.url);
    expect(url.pathname).toBe(`/v1/audio/smp_${items[0]!.id}.wav`);
    const check = createUrlSigner(server.runtime.secret).verifyAudio({
      audioId: `smp_${items[0]!.id}`,
      expires: url.searchParams.get('expires') ?? undefined,
      sig: url.searchParams.get('sig') ?? undefined,
      now: new Date(),
    });
    expect(check).toBe('ok');
  });
});

describe('/v1/speakers answers reused within a signing second', () => {
  const clock = manualClock('2026-03-10T09:00:00.250Z');
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer({ clock });
  });
  afterAll(async () => server.close());

  /** A GET over node:http, so the test can name the Host header (fetch may not). */
  const getRaw = (path: string, headers: Record<string, string> = {}) =>
    new Promise<{ status: number; type: string | undefined; body: string }>((resolve, reject) => {
      const req = httpRequest(`${server.url}${path}`, { headers }, (res) => {
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => (body += chunk));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, type: res.headers['content-type'], body }));
      });
      req.on('error', reject);
      req.end();
    });
  const expiresOf = (body: string) => new Set([...body.matchAll(/expires=(\d+)/g)].map((m) => Number(m[1])));

  it('gives the same bytes for the same page within one second, as JSON, and fresh URLs the next second', async () => {
    const first = await getRaw('/v1/speakers?limit=3&gender=female');
    const again = await getRaw('/v1/speakers?limit=3&gender=female');
    expect(first.status).toBe(200);
    expect(first.type).toBe('application/json; charset=utf-8');
    expect(again).toEqual(first);
    const page = JSON.parse(first.body) as SpeakerPage;
    expect(page.items.map((s) => s.gender)).toEqual(['Female', 'Female', 'Female']);
    expect(expiresOf(first.body)).toEqual(new Set([Math.floor(clock.now().getTime() / 1000) + 86_400]));
    // Another page in the same second is its own answer.
    const other = JSON.parse((await getRaw('/v1/speakers?limit=3&gender=male')).body) as SpeakerPage;
    expect(other.items.map((s) => s.gender)).toEqual(['Male', 'Male', 'Male']);

    clock.advance(1_000);
    const next = await getRaw('/v1/speakers?limit=3&gender=female');
    expect(expiresOf(next.body)).toEqual(new Set([Math.floor(clock.now().getTime() / 1000) + 86_400]));
    expect((JSON.parse(next.body) as SpeakerPage).items.map((s) => s.id)).toEqual(page.items.map((s) => s.id));
    for (const s of (JSON.parse(next.body) as SpeakerPage).items) {
      const url = new URL(s.sample_audio_url!);
      const check = createUrlSigner(server.runtime.secret).verifyAudio({
        audioId: `smp_${s.id}`,
        expires: url.searchParams.get('expires') ?? undefined,
        sig: url.searchParams.get('sig') ?? undefined,
        now: clock.now(),
      });
      expect(check).toBe('ok');
    }
  });

  it('keeps the answers of different hosts apart: each sample URL names the host it was asked on', async () => {
    const port = new URL(server.url).port;
    const viaIp = await getRaw('/v1/speakers?limit=1', { host: `127.0.0.1:${port}` });
    const viaName = await getRaw('/v1/speakers?limit=1', { host: `localhost:${port}` });
    expect((JSON.parse(viaIp.body) as SpeakerPage).items[0]!.sample_audio_url).toMatch(new RegExp(`^http://127\\.0\\.0\\.1:${port}/`));
    expect((JSON.parse(viaName.body) as SpeakerPage).items[0]!.sample_audio_url).toMatch(new RegExp(`^http://localhost:${port}/`));
  });

  it('answers one speaker the same way, and never keeps an error', async () => {
    const auth = { authorization: `Bearer ${server.key}` };
    const id = (JSON.parse((await getRaw('/v1/speakers?limit=1&offset=3')).body) as SpeakerPage).items[0]!.id;
    const one = await getRaw(`/v1/speakers/${id}`, auth);
    expect(one.status).toBe(200);
    expect(one.type).toBe('application/json; charset=utf-8');
    expect(await getRaw(`/v1/speakers/${id}`, auth)).toEqual(one);
    expect((JSON.parse(one.body) as Speaker).id).toBe(id);
    // Without a key the same URL is still 401 in the same second: the key check comes before any answer.
    expect((await getRaw(`/v1/speakers/${id}`)).status).toBe(401);
    expect((await getRaw('/v1/speakers/spk_nobody_999', auth)).status).toBe(404);
    expect((await getRaw('/v1/speakers/spk_nobody_999', auth)).status).toBe(404);
    expect((await getRaw('/v1/speakers?gender=Alien')).status).toBe(400);
  });
});
