import { describe, expect, it } from 'vitest';
import { axisDigits, costScatter, perHour, placeLabels } from '../../../../src/server/features/evaluations/report/over-time.js';
import { fitText, heatMap, labelMargin, MAX_LABEL_W, PROVIDER_COLOURS, providerColour, providerColours, textWidth } from '../../../../src/server/features/evaluations/report/svg.js';

describe('report charts', () => {
  it('colours a provider by its token, the same in any order and any report, distinct within one report', () => {
    const a = providerColours(['local-sphinx', 'stt-b', 'openai']);
    const b = providerColours(['openai', 'stt-b', 'local-sphinx']);
    expect([...b].sort()).toEqual([...a].sort());
    expect(new Set(a.values()).size).toBe(3);
    for (const colour of a.values()) expect(PROVIDER_COLOURS).toContain(colour);
    // A provider alone has its own colour, whatever comes beside it.
    expect(providerColours(['stt-b']).get('stt-b')).toBe(providerColour('stt-b'));
    // Ten providers, some of which share a hash slot, all get distinct colours.
    const ten = Array.from({ length: 10 }, (_, i) => `stt-${String.fromCharCode(97 + i)}`);
    expect(new Set(providerColours(ten).values()).size).toBe(10);
    expect(providerColours([...ten].reverse())).toEqual(providerColours(ten));
  });

  it('sizes label margins from the text, and cuts only what is longer than the largest margin, keeping the full text', () => {
    expect(textWidth('mmmm', 12)).toBeGreaterThan(textWidth('iiii', 12));
    // DejaVu Sans, the widest font the page may fall back to, sets "openai premium-whisper" at 12 px in about 150 px.
    expect(textWidth('openai premium-whisper', 12)).toBeGreaterThanOrEqual(150);
    expect(labelMargin(['a'])).toBe(170);
    const long = 'openai-premium-whisper-large-v3 · openai premium-whisper-large-v3';
    expect(labelMargin([long])).toBe(MAX_LABEL_W + 14);
    const cut = fitText(long, MAX_LABEL_W, 12);
    expect(cut.full).toBe(long);
    expect(cut.shown.endsWith('…')).toBe(true);
    expect(textWidth(cut.shown, 12)).toBeLessThanOrEqual(MAX_LABEL_W);
    expect(fitText('stt-b', 100, 12)).toEqual({ shown: 'stt-b' });
    // The heat map's row labels fit its margin: the left of an end-anchored label never goes below 0.
    const svg = heatMap({ title: 't', providers: ['stt-b'], conditions: ['clean'], cells: [], label: () => 'openai premium-whisper' }).value;
    const x = Number(/<text class="label" x="([\d.]+)" y="[\d.]+" text-anchor="end">/.exec(svg)![1]);
    expect(x - textWidth('openai premium-whisper', 12)).toBeGreaterThanOrEqual(0);
  });

  it('writes cost per audio hour, every tick of an axis with the same decimals', () => {
    expect(perHour(0.36)).toBe('$0.36/h');
    expect(perHour(0.258)).toBe('$0.26/h');
    expect(perHour(1.5)).toBe('$1.50/h');
    expect(perHour(0.0043)).toBe('$0.0043/h');
    expect(perHour(0)).toBe('$0/h');
    expect(axisDigits(0.5)).toBe(2);
    expect(axisDigits(0.05)).toBe(2);
    expect(axisDigits(0.002)).toBe(3);
    const svg = costScatter({
      title: 't',
      points: [
        { provider: 'stt-a', condition: 'clean', colour: '#000', wer: 0.1, usdPerHour: 0 },
        { provider: 'stt-b', condition: 'clean', colour: '#000', wer: 0.1, usdPerHour: 1.2 },
      ],
    }).value;
    const ticks = [...svg.matchAll(/<text class="tick"[^>]*>(\$[^<]*)<\/text>/g)].map((m) => m[1]);
    expect(ticks).toEqual(['$0.00/h', '$0.50/h', '$1.00/h', '$1.50/h']);
  });

  it('places the labels of the cost chart so that none overlaps another, nor leaves the chart', () => {
    // Three conditions of one provider at one price with close WERs, and a neighbour at the same place.
    const points = [
      { x: 300, y: 100, text: 'stt-b · clean' },
      { x: 300, y: 103, text: 'stt-b · telephone' },
      { x: 300, y: 101, text: 'stt-b · noise:5' },
      { x: 304, y: 102, text: 'stt-c · clean' },
      { x: 560, y: 50, text: 'openai-premium-whisper · clean' },
    ];
    const labels = placeLabels(points, { right: 600, top: 10, bottom: 250 });
    const boxes = labels.map((l) => ({ x0: l.anchor === 'start' ? l.x : l.x - l.width, x1: l.anchor === 'start' ? l.x + l.width : l.x, y0: l.y - 10, y1: l.y + 2 }));
    for (let i = 0; i < boxes.length; i++) {
      expect(boxes[i]!.x0).toBeGreaterThanOrEqual(0);
      expect(boxes[i]!.x1).toBeLessThanOrEqual(600);
      for (let j = i + 1; j < boxes.length; j++) {
        const [a, b] = [boxes[i]!, boxes[j]!];
        expect(a.x0 < b.x1 && b.x0 < a.x1 && a.y0 < b.y1 && b.y0 < a.y1, `${points[i]!.text} / ${points[j]!.text}`).toBe(false);
      }
    }
    // The label near the right edge is put left of its point.
    expect(labels[4]!.anchor).toBe('end');
  });
});
