/** Escapes text for HTML element content and double-quoted attribute values (the billing portal and evaluation reports). */
export function escapeHtml(value: string | number): string {
  return String(value).replace(/[&<>"'`]/g, (ch) => `&#${ch.charCodeAt(0)};`);
}

/** A tagged template that escapes every interpolated value unless it is already `SafeHtml`. */
export class SafeHtml {
  constructor(readonly value: string) {}
  toString(): string {
    return this.value;
  }
}

/** `html\`<p>${text}</p>\`` — interpolations are escaped; arrays are joined; SafeHtml passes as is. */
export function html(strings: TemplateStringsArray, ...values: unknown[]): SafeHtml {
  let out = strings[0] ?? '';
  values.forEach((v, i) => {
    out += render(v) + (strings[i + 1] ?? '');
  });
  return new SafeHtml(out);
}

function render(v: unknown): string {
  if (v === undefined || v === null || v === false) return '';
  if (v instanceof SafeHtml) return v.value;
  if (Array.isArray(v)) return v.map(render).join('');
  return escapeHtml(String(v));
}
