import { parseWebConfig } from '../../src/exposition/web-config/parse.js';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import bcrypt from 'bcryptjs';
import { describe, expect, it } from 'vitest';
import { ROOT } from './prometheusrule.js';

describe('deploy/web-config.example.yaml', () => {
  const path = join(ROOT, 'deploy/web-config.example.yaml');
  const text = readFileSync(path, 'utf8');
  const config = parseWebConfig(text, path);

  it('is a web configuration the exporter accepts, with mutual TLS', () => {
    expect(config.tls?.certFile).toBe('/etc/cribl-exporter/tls/tls.crt');
    expect(config.tls?.keyFile).toBe('/etc/cribl-exporter/tls/tls.key');
    expect(config.tls?.clientCaFile).toBe('/etc/cribl-exporter/tls/ca.crt');
    expect(config.tls?.clientAuth).toBe('RequireAndVerifyClientCert');
    expect(config.tls?.minVersion).toBe('TLSv1.2');
  });

  it('holds a bcrypt hash of the password its comment names', () => {
    const password = /hash is of the password "([^"]+)"/.exec(text)?.[1];
    expect(password).toBeDefined();
    expect(bcrypt.compareSync(password!, config.users.get('prometheus') ?? '')).toBe(true);
  });
});
