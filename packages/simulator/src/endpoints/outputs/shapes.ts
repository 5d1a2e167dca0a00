import { isObject } from '../../core/http.js';

/** The reason a destination body is invalid, or undefined (required fields per type). */
export function invalidOutput(o: Record<string, unknown>): string | undefined {
  if (typeof o.id !== 'string' || o.id === '') return 'id is required (a non-empty string)';
  if (typeof o.type !== 'string' || o.type === '') return 'type is required (a non-empty string)';
  const str = (k: string): boolean => typeof o[k] === 'string' && o[k] !== '';
  switch (o.type) {
    case 'webhook':
      if (str('url')) return /^https?:\/\//.test(o.url as string) ? undefined : 'url must start with http(s)://';
      if (Array.isArray(o.urls) && o.urls.length > 0 && o.urls.every((u) => isObject(u) && typeof u.url === 'string')) {
        return undefined;
      }
      return 'type webhook needs url or urls';
    case 'prometheus':
      return str('url') ? undefined : 'type prometheus needs url';
    case 's3':
      return str('bucket') && str('stagePath') ? undefined : 'type s3 needs bucket and stagePath';
    case 'default':
      return typeof o.defaultId === 'string' || o.defaultId === null ? undefined : 'type default needs defaultId';
  }
  return undefined;
}
