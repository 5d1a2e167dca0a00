/** Which auth mode a leader uses, from its credential settings and the environment's secrets. */
import { defaultAudience, defaultTokenBody, defaultTokenUrl } from '@cribl-exporter/api/cloud';
import type { AuthConfig } from '../auth/types.js';
import { ConfigError } from './errors.js';
import type { FlagName } from './flags.js';
import type { Settings } from './settings.js';
import type { Secret, Secrets } from './sources.js';

/** The settings that choose an auth mode; leaders: entries that set none of them inherit the top level's. */
export const AUTH_FLAGS: readonly FlagName[] = [
  'leader.token-file',
  'leader.username',
  'leader.password-file',
  'cloud.client-id',
  'cloud.client-secret-file',
];

/** How a message names where a secret may come from. */
export function secretSources(s: Settings, fileFlag: FlagName, env: string, envSecrets: boolean): string {
  return envSecrets ? `${s.nameOf(fileFlag)} or ${env}` : s.nameOf(fileFlag);
}

/**
 * Picks exactly one auth mode from the credential settings in `a` and the environment secrets (undefined where
 * they do not apply): token, login, cloud, or none when nothing is given. `all` supplies the other cloud and login
 * settings.
 */
export function resolveAuth(a: Settings, all: Settings, envSecrets: Secrets | undefined): AuthConfig {
  const secrets = envSecrets ?? {};
  const fromEnv = envSecrets !== undefined;
  const bothSet = (secret: Secret | undefined, flag: FlagName): void => {
    if (secret && a.has(flag)) throw new ConfigError(`${secret.where} and ${a.where(flag)} are both set; use one`);
  };
  bothSet(secrets.token, 'leader.token-file');
  bothSet(secrets.password, 'leader.password-file');
  bothSet(secrets.clientSecret, 'cloud.client-secret-file');

  const tokenFile = a.read('leader.token-file');
  const username = a.read('leader.username');
  const passwordFile = a.read('leader.password-file');
  const clientId = a.read('cloud.client-id');
  const clientSecretFile = a.read('cloud.client-secret-file');

  const firstSet = (secret: Secret | undefined, flags: readonly FlagName[]): string | undefined =>
    flags.map((f) => a.get(f)?.where).find((w) => w !== undefined) ?? secret?.where;
  const modes = [
    { mode: 'token', where: firstSet(secrets.token, ['leader.token-file']) },
    { mode: 'login', where: firstSet(secrets.password, ['leader.username', 'leader.password-file']) },
    { mode: 'cloud', where: firstSet(secrets.clientSecret, ['cloud.client-id', 'cloud.client-secret-file']) },
  ] as const;
  const [first, second] = modes.filter((m): m is { mode: (typeof m)['mode']; where: string } => m.where !== undefined);
  if (first && second) {
    throw new ConfigError(
      `${first.where} (${first.mode} auth) and ${second.where} (${second.mode} auth) are both set; choose one ` +
        `auth mode`,
    );
  }

  if (!first) return { mode: 'none' };
  switch (first.mode) {
    case 'token':
      return tokenFile !== undefined
        ? { mode: 'token', tokenFile }
        : { mode: 'token', token: secrets.token?.value ?? '' };
    case 'login': {
      if (username === undefined) {
        throw new ConfigError(`${first.where}: needs ${a.nameOf('leader.username')}`);
      }
      if (passwordFile === undefined && secrets.password === undefined) {
        throw new ConfigError(
          `${a.where('leader.username')}: needs a password ` +
            `(${secretSources(a, 'leader.password-file', 'CRIBL_PASSWORD', fromEnv)})`,
        );
      }
      return {
        mode: 'login',
        username,
        ...(passwordFile !== undefined ? { passwordFile } : { password: secrets.password?.value ?? '' }),
        fallbackTtlMs: all.readOr('leader.login-fallback-ttl'),
      };
    }
    default: {
      if (clientId === undefined) throw new ConfigError(`${first.where}: needs ${a.nameOf('cloud.client-id')}`);
      if (clientSecretFile === undefined && secrets.clientSecret === undefined) {
        throw new ConfigError(
          `${a.where('cloud.client-id')}: needs a client secret ` +
            `(${secretSources(a, 'cloud.client-secret-file', 'CRIBL_CLIENT_SECRET', fromEnv)})`,
        );
      }
      return {
        mode: 'cloud',
        clientId,
        ...(clientSecretFile !== undefined
          ? { clientSecretFile }
          : { clientSecret: secrets.clientSecret?.value ?? '' }),
        ...cloudToken(all),
      };
    }
  }
}

function cloudToken(s: Settings): { tokenUrl: string; audience: string; tokenBody: 'json' | 'form' } {
  const domain = s.readOr('cloud.domain');
  const tokenUrl = s.read('cloud.token-url') ?? defaultTokenUrl(domain);
  if (tokenUrl === undefined) {
    throw new ConfigError(
      `${s.where('cloud.domain')}: ${JSON.stringify(domain)} is a government cloud domain; ` +
        `set ${s.nameOf('cloud.token-url')} (its token URL has no safe default)`,
    );
  }
  return {
    tokenUrl,
    audience: s.read('cloud.audience') ?? defaultAudience(domain),
    tokenBody: s.read('cloud.token-body') ?? defaultTokenBody(tokenUrl),
  };
}
