/** Shows a URL without any user:password part, so that logs and errors never echo credentials. */
export function withoutCredentials(url: string): string {
  return url.replace(/^([a-z][a-z0-9+.-]*:\/\/)[^/@?#]*@/i, '$1');
}

/** Origin and path of a URL (no query, fragment or credentials): for error messages. */
export function describeUrl(url: string): string {
  try {
    const u = new URL(url);
    return `${u.origin}${u.pathname}`;
  } catch {
    return '(unparseable URL)';
  }
}
