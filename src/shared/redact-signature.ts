/** A URL as logged: the `sig` of a signed URL (valid 24 h, a bearer credential) becomes `[redacted]` (DESIGN §14.5). */
export function redactSignature(url: string): string {
  return url.replace(/([?&]sig=)[^&#]*/gi, '$1[redacted]');
}
