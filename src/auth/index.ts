import type { ReadFile } from '../util/files.js';
import type { Logger } from 'pino';
import type { Dispatcher } from 'undici';
import type { LeaderClient } from '../leader/types.js';
import type { Clock, Random } from '@cribl-exporter/api/clock';
import { createCloudProvider } from './cloud.js';
import { AuthConfigError } from './errors.js';
import { createLoginFn, createLoginProvider } from './login.js';
import { createStaticTokenProvider } from './static-token.js';
import type { AuthConfig, AuthMetrics, AuthProvider } from './types.js';

/** Everything an auth provider may need; each mode uses its part. */
export interface AuthDeps {
  clock: Clock;
  readFile: ReadFile;
  logger: Logger;
  metrics?: AuthMetrics;
  /** Required by `login`: the leader's client (without credentials), for POST /auth/login through its budget. */
  client?: Pick<LeaderClient, 'request'>;
  /** Required by `cloud`: the dispatcher to reach the token URL (usually the leader's, for its proxy and CA). */
  dispatcher?: Dispatcher;
  /** Jitter of the cloud token retries. @default Math.random */
  random?: Random;
}

/** The AuthProvider for one leader's auth settings; throws AuthConfigError when they are incomplete or conflict. */
export function createAuthProvider(config: AuthConfig, deps: AuthDeps): AuthProvider {
  switch (config.mode) {
    case 'none':
      return noAuth;
    case 'token':
      return createStaticTokenProvider(config, deps);
    case 'login': {
      const login = deps.client && createLoginFn(deps.client);
      if (!login) throw new AuthConfigError('login auth needs the leader client (deps.client)');
      return createLoginProvider(config, { ...deps, login });
    }
    case 'cloud':
      if (!deps.dispatcher) throw new AuthConfigError('Cribl.Cloud auth needs a dispatcher (deps.dispatcher)');
      return createCloudProvider(config, { ...deps, dispatcher: deps.dispatcher, random: deps.random ?? Math.random });
  }
}

/** No credentials: the client sends no Authorization header when the token is ''. */
const noAuth: AuthProvider = {
  mode: 'none',
  token: () => Promise.resolve(''),
  invalidate: () => false,
  expiresAt: () => undefined,
  close: () => undefined,
};
