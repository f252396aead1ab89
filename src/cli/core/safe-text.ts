/**
 * Data from the service (corpus references and metadata, transcripts, group values) reaches terminals,
 * JUnit XML and Markdown: each format gets it as text, never as commands (DESIGN §17.6). One function per
 * format, used by every writer of that format; `--json` and `--csv` carry the data as it is (CSV apart
 * from its formula rule, shared/csv-cells.ts).
 */

// \p{Cc} is C0, DEL and C1; a terminal acts on any of them (ESC starts a sequence, U+009B is a one-byte
// CSI). Tab and newline are layout, kept.
const TERMINAL_CONTROL = /[^\P{Cc}\t\n]/gu;

/** Text for a terminal table or field list: every control character (C0 but tab and newline, DEL, C1, ESC) shown as `�`. */
export function terminalText(text: string): string {
  return text.replace(TERMINAL_CONTROL, '\uFFFD');
}

// Everything outside XML 1.0's Char production: C0 but tab, LF and CR; U+FFFE and U+FFFF; a surrogate
// standing alone (with the `u` flag a well-formed pair is one astral code point, which XML allows).
const NOT_XML_CHAR = /[^\t\n\r\u0020-\uD7FF\uE000-\uFFFD\u{10000}-\u{10FFFF}]/gu;

/** An XML attribute or text value with the characters XML 1.0 forbids dropped (the builder escapes `<`, `&` and quotes). */
export function xmlText(text: string): string {
  return text.replace(NOT_XML_CHAR, '');
}

/**
 * Text for a Markdown table cell or heading: `<` and `>` as entities (no HTML tag survives), pipes,
 * backticks and backslashes escaped (no column break, no code span), line breaks flattened to a space.
 */
export function markdownText(text: string): string {
  return text
    .replace(/[\\|`]/g, (c) => `\\${c}`)
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/\r?\n|\r/g, ' ');
}
