import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { parseConfig } from '../../src/config/parse.js';
import type { Config } from '../../src/config/types.js';

const DOC = readFileSync(new URL('../../docs/deployments.md', import.meta.url), 'utf8');

/** The fenced blocks of a language, in order. */
function blocks(lang: string): string[] {
  return [...DOC.matchAll(new RegExp('```' + lang + '\\n([\\s\\S]*?)```', 'g'))].map((m) => m[1]!);
}

/** A copy-pasted shell example as argv and environment: `export`s, `VAR=value` prefixes, `cribl-exporter …`. */
function shell(block: string): { argv: string[]; env: Record<string, string> } {
  const env: Record<string, string> = {};
  const text = block.replace(/\\\n/g, ' ').replace(/(^|\s)#.*$/gm, '');
  const words = (line: string): string[] => [...line.matchAll(/'([^']*)'|(\S+)/g)].map((m) => m[1] ?? m[2]!);
  let argv: string[] = [];
  for (const line of text.split('\n')) {
    const w = words(line);
    if (w[0] === 'export') {
      const [k, ...v] = line.replace(/^\s*export\s+/, '').split('=');
      env[k!] = v.join('=').replace(/^'|'$/g, '');
      continue;
    }
    while (w[0] && /^[A-Z_]+=/.test(w[0])) {
      const [k, ...v] = w.shift()!.split('=');
      env[k!] = v.join('=');
    }
    if (w[0] === 'cribl-exporter') argv = w.slice(1);
  }
  return { argv, env };
}

function fromYaml(yaml: string, env: Record<string, string> = {}): Config {
  return parseConfig({
    argv: ['--config.file', '/etc/cribl-exporter/config.yml'],
    env,
    readFile: (p) => {
      if (p === '/etc/cribl-exporter/config.yml') return yaml;
      throw new Error(`unexpected read of ${p}`);
    },
  });
}

describe('docs/deployments.md examples parse as documented', () => {
  const sh = blocks('sh').map(shell);
  const configs = sh.map(({ argv, env }) => parseConfig({ argv, env, readFile: () => '' }));

  it('has the examples this test expects', () => {
    expect(sh).toHaveLength(7);
  });

  it('on-prem: static token, then login with a private CA', () => {
    expect(configs[0]!.leaders[0]).toMatchObject({
      url: 'https://leader.example.com:9000/api/v1',
      auth: { mode: 'token' },
    });
    expect(configs[1]!.leaders[0]).toMatchObject({
      auth: { mode: 'login', username: 'exporter', passwordFile: '/etc/cribl-exporter/password' },
      transport: { caFile: '/etc/pki/cribl-leader-ca.pem' },
    });
  });

  it('hybrid: the cloud URL and client credentials', () => {
    expect(configs[2]!.leaders[0]).toMatchObject({
      url: 'https://main-happy-dog-x1y2z3.cribl.cloud/api/v1',
      auth: {
        mode: 'cloud',
        clientId: 'AbCdEf123456',
        tokenUrl: 'https://login.cribl.cloud/oauth/token',
        audience: 'https://api.cribl.cloud',
      },
    });
  });

  it('Cribl.Cloud: workspace discovery', () => {
    expect(configs[3]!.cloudDiscovery).toMatchObject({
      organization: 'happy-dog-x1y2z3',
      managementUrl: 'https://gateway.cribl.cloud',
    });
  });

  it('government cloud: domain, token URL, audience, form body', () => {
    expect(configs[4]!.leaders[0]).toMatchObject({
      url: 'https://main-happy-dog-x1y2z3.cribl-gov.cloud/api/v1',
      auth: {
        mode: 'cloud',
        audience: 'https://api.cribl-gov.cloud',
        tokenBody: 'form',
        tokenUrl: expect.stringMatching(/^https:\/\//),
      },
    });
  });

  it('proxy and private CA: mTLS files and the proxy from the environment', () => {
    expect(sh[5]!.env).toMatchObject({ HTTPS_PROXY: 'http://proxy.corp.example:3128' });
    expect(configs[5]!.leaders[0]).toMatchObject({
      auth: { mode: 'token', tokenFile: '/etc/cribl-exporter/token' },
      transport: {
        caFile: '/etc/pki/corp-root-ca.pem',
        clientCertFile: '/etc/cribl-exporter/tls/client.crt',
        clientKeyFile: '/etc/cribl-exporter/tls/client.key',
      },
    });
  });

  it('the config-file examples', () => {
    const yaml = blocks('yaml').filter((b) => !b.includes('apiVersion') && !b.includes('- alert'));
    expect(yaml).toHaveLength(3);
    expect(fromYaml(yaml[0]!).leaders[0]).toMatchObject({
      auth: { mode: 'login', passwordFile: '/etc/cribl-exporter/password' },
    });
    expect(fromYaml(yaml[1]!).cloudDiscovery).toMatchObject({
      auth: { mode: 'cloud', clientSecretFile: '/etc/cribl-exporter/client-secret' },
    });
    // Leader HA, direct hosts: the API address is one of them.
    expect(fromYaml(yaml[2]!).leaders[0]).toMatchObject({
      name: 'cribl-prod',
      url: 'https://leader-a.example.com:9000/api/v1',
      haUrls: ['https://leader-a.example.com:9000/api/v1', 'https://leader-b.example.com:9000/api/v1'],
    });
  });

  it('leader HA behind a load balancer: the hosts beside the API address', () => {
    expect(configs[6]!.leaders[0]).toMatchObject({
      url: 'https://cribl.example.com:9000/api/v1',
      haUrls: ['https://leader-a.example.com:9000/api/v1', 'https://leader-b.example.com:9000/api/v1'],
    });
  });
});
