/**
 * Expiry (epoch ms) from a JWT's `exp` claim, or undefined when the token is not a JWT or has no numeric exp.
 * The signature is not checked: the leader does that; we only want to know when to renew.
 */
export function decodeJwtExpiry(token: string): number | undefined {
  const parts = token.split('.');
  if (parts.length !== 3 || !parts[1]) return undefined;
  try {
    const payload: unknown = JSON.parse(Buffer.from(parts[1], 'base64url').toString('utf8'));
    if (typeof payload !== 'object' || payload === null) return undefined;
    const exp = (payload as { exp?: unknown }).exp;
    return typeof exp === 'number' && Number.isFinite(exp) && exp > 0 ? exp * 1000 : undefined;
  } catch {
    return undefined;
  }
}

/** Trims whitespace and one leading "Bearer " (some tools store the header value rather than the token). */
export function normalizeToken(raw: string): string {
  return raw
    .trim()
    .replace(/^bearer\s+/i, '')
    .trim();
}

/**
 * Why a token cannot be sent as a bearer, or undefined when it can: a control character (a CR/LF inside the
 * token, a NUL) or a character beyond Latin-1 (a pasted typographic quote, an emoji) cannot be put in an HTTP
 * header: the HTTP client would refuse every request later, as a "connection failure". The message never shows the
 * character (it is part of a secret).
 */
export function tokenProblem(token: string): string | undefined {
  // eslint-disable-next-line no-control-regex -- control characters are exactly what is refused here
  if (/[\u0000-\u001f\u007f]/.test(token)) return 'contains a control character (a line break inside the token?)';
  if (/[^\u0020-\u00ff]/.test(token)) {
    return 'contains a character that cannot be sent in an HTTP header (beyond Latin-1: a pasted quote or symbol?)';
  }
  return undefined;
}
