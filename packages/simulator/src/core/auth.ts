import { createHash, createHmac } from 'node:crypto';
import type { Clock } from '@cribl-exporter/api/clock';

/** Outcome of checking a bearer token. */
export type TokenCheck = 'ok' | 'read-only' | 'forbidden' | 'invalid';

/**
 * What a token may do: `full` everything, `read-only` GET/HEAD only (403 on POST/PATCH/DELETE), `none` nothing
 * (403 wherever a token is checked).
 */
export type TokenAccess = 'full' | 'read-only' | 'none';

/** Every access level. */
export const TOKEN_ACCESS: readonly TokenAccess[] = ['full', 'read-only', 'none'];

/**
 * Route templates a least-privilege token is refused on (403) although its access allows the method: an on-prem
 * role without Org Admin (git settings) and without the group's commit history.
 */
export const DEFAULT_RESTRICTED_ROUTES: readonly string[] = ['/system/settings/git-settings', '/m/{group}/version'];

interface Issued {
  /** Epoch ms; undefined = never expires (static tokens). */
  expiresAt: number | undefined;
  access: TokenAccess;
  subject: string;
  /** Route templates answered 403 for this token (a restricted role). */
  deny?: ReadonlySet<string>;
}

function denied(deny: readonly string[] | undefined): { deny?: ReadonlySet<string> } {
  return deny && deny.length > 0 ? { deny: new Set(deny) } : {};
}

function b64url(data: string | Buffer): string {
  return Buffer.from(data).toString('base64url');
}

/**
 * Tokens the simulated leader accepts: static tokens (full, read-only, without permissions, and any a scenario
 * adds), and JWTs it issued (login and OAuth) until their `exp`. Any of them can be revoked at run time. Tokens
 * are compared exactly; nothing is logged.
 */
export class TokenStore {
  readonly #clock: Clock;
  readonly #secret: string;
  readonly #tokens = new Map<string, Issued>();
  #jti = 0;

  constructor(clock: Clock, secret: string) {
    this.#clock = clock;
    this.#secret = secret;
  }

  /**
   * Accepts a static token (never expires) with the given access, refused (403) on the `deny` route templates;
   * replaces an existing entry.
   */
  add(token: string, access: TokenAccess, subject = 'api', deny?: readonly string[]): void {
    this.#tokens.set(token, { expiresAt: undefined, access, subject, ...denied(deny) });
  }

  /** Revokes one token, static or issued; false when it was not accepted. */
  revoke(token: string): boolean {
    return this.#tokens.delete(token);
  }

  /** Issues a signed HS256 JWT whose `exp` (seconds) is now + ttlMs; returns it with its expiry in ms. */
  issue(
    subject: string,
    ttlMs: number,
    access: TokenAccess = 'full',
    deny?: readonly string[],
  ): { token: string; expiresAt: number } {
    const now = this.#clock.now();
    // `exp` is whole seconds; the token really expires at that second, so clients reading exp are exact.
    const exp = Math.floor((now + ttlMs) / 1000);
    const header = b64url(JSON.stringify({ alg: 'HS256', typ: 'JWT' }));
    const claims = { sub: subject, iat: Math.floor(now / 1000), exp, jti: String(++this.#jti) };
    const payload = b64url(JSON.stringify(claims));
    const sig = createHmac('sha256', this.#secret).update(`${header}.${payload}`).digest('base64url');
    const token = `${header}.${payload}.${sig}`;
    this.#prune(now);
    this.#tokens.set(token, { expiresAt: exp * 1000, access, subject, ...denied(deny) });
    return { token, expiresAt: exp * 1000 };
  }

  /** Checks a bearer token (without the "Bearer " prefix). */
  check(token: string): TokenCheck {
    const t = this.#tokens.get(token);
    if (!t) return 'invalid';
    if (t.expiresAt !== undefined && this.#clock.now() >= t.expiresAt) return 'invalid';
    return t.access === 'full' ? 'ok' : t.access === 'read-only' ? 'read-only' : 'forbidden';
  }

  /** True when the token is refused on this route template (a restricted role); check() comes first. */
  denies(token: string, route: string): boolean {
    return this.#tokens.get(token)?.deny?.has(route) ?? false;
  }

  /** The route templates a token is refused on ([] for none; undefined for an unknown token). */
  deniedRoutes(token: string): string[] | undefined {
    const t = this.#tokens.get(token);
    return t && [...(t.deny ?? [])];
  }

  /** The user name behind a token (login user, OAuth client id, or `api` for static tokens). */
  subject(token: string): string | undefined {
    return this.#tokens.get(token)?.subject;
  }

  /** Revokes every issued JWT (the static tokens stay); returns how many were revoked. */
  revokeIssued(): number {
    let n = 0;
    for (const [token, t] of this.#tokens) {
      if (t.expiresAt !== undefined) {
        this.#tokens.delete(token);
        n++;
      }
    }
    return n;
  }

  #prune(now: number): void {
    if (this.#tokens.size < 10_000) return;
    for (const [token, t] of this.#tokens) {
      if (t.expiresAt !== undefined && t.expiresAt <= now) this.#tokens.delete(token);
    }
  }
}

/** A stable, non-reversible label for a token, so statistics can name clients without exposing secrets. */
export function tokenLabel(token: string): string {
  return `token:${createHash('sha256').update(token).digest('hex').slice(0, 12)}`;
}

/** Extracts the token of an `Authorization: Bearer …` header. */
export function bearerToken(header: string | undefined): string | undefined {
  if (!header) return undefined;
  const m = /^Bearer\s+(\S+)\s*$/i.exec(header);
  return m?.[1];
}

/** A user for POST /auth/login; its tokens get `access` (`permitted: false` = access `none`, 403 everywhere). */
export interface SimUser {
  username: string;
  password: string;
  permitted?: boolean;
  /** @default 'full' */
  access?: TokenAccess;
  /** Route templates its tokens are refused on (403), e.g. ['/system/settings/git-settings']. */
  deny?: string[];
}

/** An OAuth client for the client-credentials token endpoint. */
export interface SimClient {
  clientId: string;
  clientSecret: string;
  /** @default 'full' */
  access?: TokenAccess;
  /** Route templates its tokens are refused on (403). */
  deny?: string[];
}
