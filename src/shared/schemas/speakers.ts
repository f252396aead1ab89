import { Type, type Static } from '@sinclair/typebox';
import { Page, PagingQuery } from './common.js';

export const Gender = Type.Union([Type.Literal('Male'), Type.Literal('Female'), Type.Literal('Non-binary')]);

/** A catalogue voice (spec: Speaker). */
export const Speaker = Type.Object(
  {
    id: Type.String(),
    gender: Type.String(),
    region: Type.String(),
    accent: Type.Optional(Type.String()),
    age_range: Type.Optional(Type.String()),
    native_language: Type.Optional(Type.String()),
    /** How the voice is made (DESIGN §4.5): the TTS engine, its voice, and the voice's variant (null when none). */
    engine: Type.Optional(Type.String({ description: '`flite` or `espeak`' })),
    voice: Type.Optional(Type.String({ description: 'The engine voice, e.g. `slt` (Flite) or `en-gb-scotland` (eSpeak NG)' })),
    variant: Type.Optional(Type.Union([Type.String(), Type.Null()], { description: 'eSpeak NG variant (e.g. `f3`, `klatt`); null when none' })),
    sample_audio_url: Type.Optional(Type.String()),
  },
  { $id: 'Speaker' },
);
export type Speaker = Static<typeof Speaker>;

/** GET /v1/speakers filters (exact match, case-insensitive) + paging. */
export const SpeakerQuery = Type.Composite([
  Type.Object({
    gender: Type.Optional(Type.String()),
    region: Type.Optional(Type.String()),
    accent: Type.Optional(Type.String()),
    age_range: Type.Optional(Type.String()),
    native_language: Type.Optional(Type.String()),
    engine: Type.Optional(Type.String({ description: 'TTS engine: `flite` or `espeak`' })),
  }),
  PagingQuery,
]);
export type SpeakerQuery = Static<typeof SpeakerQuery>;

export const SpeakerPage = Page(Speaker);
export type SpeakerPage = Static<typeof SpeakerPage>;

export const FacetValue = Type.Object({ value: Type.String(), count: Type.Integer() });
/** GET /v1/speakers/facets: the allowed values of each filter with counts. */
export const SpeakerFacets = Type.Object({
  gender: Type.Array(FacetValue),
  region: Type.Array(FacetValue),
  accent: Type.Array(FacetValue),
  age_range: Type.Array(FacetValue),
  native_language: Type.Array(FacetValue),
  engine: Type.Array(FacetValue),
});
export type SpeakerFacets = Static<typeof SpeakerFacets>;
