/** Name of the portal session cookie. */
export const SESSION_COOKIE = 'voxctl_billing';

/** The value of cookie `name` in a Cookie header, if present. */
export function readCookie(header: string | undefined, name: string): string | undefined {
  if (!header) return undefined;
  for (const part of header.split(';')) {
    const eq = part.indexOf('=');
    if (eq < 0) continue;
    if (part.slice(0, eq).trim() === name) return part.slice(eq + 1).trim();
  }
  return undefined;
}

/** A Set-Cookie value for the portal session: HttpOnly, SameSite=Lax, scoped to /billing. */
export function sessionCookie(value: string, opts: { maxAgeSeconds: number; secure: boolean }): string {
  const attrs = [`${SESSION_COOKIE}=${value}`, 'Path=/billing', `Max-Age=${Math.max(0, Math.floor(opts.maxAgeSeconds))}`, 'HttpOnly', 'SameSite=Lax'];
  if (opts.secure) attrs.push('Secure');
  return attrs.join('; ');
}
