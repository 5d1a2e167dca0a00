import pino from 'pino';
import { describe, expect, it } from 'vitest';
import type { Collector } from '../../src/collectors/collector.js';
import { decodeLicenses, decodeUsage, license, licenseFacts } from '../../src/collectors/license/index.js';
import { settingsOf } from '../../src/config/types.js';
import type { LeaderRequest } from '../../src/leader/types.js';
import { CollectorRuns } from '../../src/polling/collector-runs.js';
import { FakeClock } from '../helpers/fake-clock.js';
import { fakeLeaderClient, type FakeAnswer } from '../helpers/fake-leader-client.js';
import { MemorySnapshot } from '../helpers/memory-snapshot.js';
import { LEADER_FAMILIES, renderLeader } from '../helpers/render.js';
import { DEFAULT_CONFIG } from '../helpers/stores.js';

/** The research note's example licence (§25.4.1). */
const PROD = {
  id: 'a1b2c3d4',
  cls: 'prod',
  title: 'Cribl Stream Enterprise',
  guid: '2f0c8d9e-1a2b-4c3d-8e9f-0a1b2c3d4e5f',
  email: 'ops@example.com',
  iss: 'cribl',
  sub: 'Example Corp',
  iat: 1767225600,
  exp: 1798761600,
  quota: 1000,
  f_ph: 0,
  f_phg: 0,
  license: 'eyJhbGciOi...',
  limits: { worker_groups: 50, worker_procs: 2000, rbac: 1, remote_git: 1 },
};

describe('decodeLicenses', () => {
  it.each([
    [
      'the research note’s example',
      { count: 1, items: [PROD] },
      [
        {
          id: 'a1b2c3d4',
          type: 'prod',
          title: 'Cribl Stream Enterprise',
          expiresMs: 1798761600000,
          quotaBytesPerDay: 1e12,
        },
      ],
      false,
    ],
    [
      'two licences, one listed twice; unknown fields ignored',
      { items: [PROD, { ...PROD, id: 'trial1', cls: 'trial', quota: 5, future: 1 }, PROD] },
      [
        {
          id: 'a1b2c3d4',
          type: 'prod',
          title: 'Cribl Stream Enterprise',
          expiresMs: 1798761600000,
          quotaBytesPerDay: 1e12,
        },
        {
          id: 'trial1',
          type: 'trial',
          title: 'Cribl Stream Enterprise',
          expiresMs: 1798761600000,
          quotaBytesPerDay: 5e9,
        },
      ],
      false,
    ],
    [
      'absent exp and quota leave their series out; an unknown class is kept as said',
      { items: [{ id: 'x', cls: 'enterprise-2030', title: 'X' }] },
      [{ id: 'x', type: 'enterprise-2030', title: 'X' }],
      false,
    ],
    [
      'exp in milliseconds is read as such, and said',
      { items: [{ ...PROD, exp: 1798761600000 }] },
      [
        {
          id: 'a1b2c3d4',
          type: 'prod',
          title: 'Cribl Stream Enterprise',
          expiresMs: 1798761600000,
          quotaBytesPerDay: 1e12,
        },
      ],
      true,
    ],
    [
      'an item without an id is not a licence; a negative quota is no quota',
      { items: [{ cls: 'prod' }, 'x', { id: 'y', cls: 'free', title: 'Free', quota: -1 }] },
      [{ id: 'y', type: 'free', title: 'Free' }],
      false,
    ],
    ['none (a credits-based Cloud org)', { count: 0, items: [] }, [], false],
  ])('%s', (_what, body, licenses, expInMs) => {
    expect(decodeLicenses(body)).toEqual({ licenses, expInMs });
  });

  it('fails on a body that is not a list', () => {
    expect(() => decodeLicenses({ count: 1 })).toThrow();
  });
});

const DAY = 86_400_000;
const day = (start: number, inBytes: number, exempt: number) => ({
  startTime: start,
  endTime: start + DAY,
  inBytes,
  inEvents: 1,
  outBytes: 1,
  outEvents: 1,
  exemptedLicenseInBytes: exempt,
});
/** The research note's two days (§25.4.2). */
const D1 = {
  startTime: 1785974400000,
  endTime: 1786060800000,
  inBytes: 512000000000,
  inEvents: 410000000,
  outBytes: 330000000000,
  outEvents: 280000000,
  droppedBytes: 1200000,
  exemptedLicenseInBytes: 2000000000,
};
const D2 = {
  startTime: 1786060800000,
  endTime: 1786147200000,
  inBytes: 498000000000,
  inEvents: 401000000,
  outBytes: 321000000000,
  outEvents: 275000000,
  droppedBytes: 0,
  exemptedLicenseInBytes: 1900000000,
  guard: { inBytes: 0, inEvents: 0 },
};
const NOW = 1786147200000 + 3_600_000;

describe('decodeUsage', () => {
  it.each([
    ['oldest first (the note’s example)', [D1, D2], { endMs: D2.endTime, billedBytes: 496100000000 }],
    ['newest first', [D2, D1], { endMs: D2.endTime, billedBytes: 496100000000 }],
    [
      'the partial current day is not the last complete one',
      [D1, D2, day(D2.endTime, 9e9, 0)],
      { endMs: D2.endTime, billedBytes: 496100000000 },
    ],
    ['exempt larger than ingest bills nothing', [day(D1.startTime, 5, 9)], { endMs: D1.endTime, billedBytes: 0 }],
    [
      'a day without numbers is skipped',
      [D1, { startTime: D2.startTime }],
      { endMs: D1.endTime, billedBytes: 510000000000 },
    ],
    ['no days', [], undefined],
  ])('%s', (_what, items, expected) => {
    expect(decodeUsage({ count: items.length, items }, NOW)).toEqual(expected);
  });
});

const L = (facts: object) => ({ facts: { license: facts } });
const text = (name: string, facts: object) => renderLeader(L(facts))[LEADER_FAMILIES.findIndex((f) => f.name === name)];

describe('licence families', () => {
  const facts = {
    licenses: {
      value: {
        licenses: [
          { id: 'a1', type: 'prod', title: 'Cribl "Stream"', expiresMs: 1798761600000, quotaBytesPerDay: 1e12 },
        ],
      },
    },
    usage: { value: { billedBytes: 496100000000, endMs: 1786147200000 } },
  };
  it.each([
    ['cribl_license_info', 'cribl_license_info{license_id="a1",type="prod",title="Cribl \\"Stream\\""} 1\n'],
    ['cribl_license_expiry_timestamp_seconds', 'cribl_license_expiry_timestamp_seconds{license_id="a1"} 1798761600\n'],
    ['cribl_license_quota_bytes_per_day', 'cribl_license_quota_bytes_per_day{license_id="a1"} 1000000000000\n'],
    ['cribl_license_usage_in_bytes', 'cribl_license_usage_in_bytes 496100000000\n'],
    ['cribl_license_usage_timestamp_seconds', 'cribl_license_usage_timestamp_seconds 1786147200\n'],
  ])('%s', (name, expected) => {
    expect(text(name, facts)).toBe(expected);
  });

  it('nothing before the first read', () => {
    for (const f of LEADER_FAMILIES.filter(
      (x) => x.name.startsWith('cribl_license_') && x.name !== 'cribl_license_limit',
    ))
      expect(f.sample(L({}), '', undefined)).toBe('');
  });
});

async function runOnce(answer: (req: LeaderRequest<unknown>) => FakeAnswer, cloud = false) {
  const clock = new FakeClock(NOW);
  const store = new MemorySnapshot();
  const client = fakeLeaderClient(answer);
  const logs: { level: number; msg: string }[] = [];
  const enabled = new Map<string, boolean>();
  const runs = new CollectorRuns({
    client,
    store,
    clock,
    logger: pino({ level: 'info' }, { write: (l: string) => void logs.push(JSON.parse(l) as never) }),
    settingsOf: (c: Collector) => settingsOf(DEFAULT_CONFIG, c),
    target: { cloud },
    metrics: {
      collectorEnabled: (name, on) => enabled.set(name, on),
      collectorFailure: () => undefined,
      collectorGauge: () => undefined,
    },
  });
  const sent = await runs.run(license, NOW + 60_000, new AbortController().signal);
  return { store, sent, logs, enabled, client };
}

describe('the licence collector', () => {
  it('reads the licences and the usage: two requests', async () => {
    const { store, sent } = await runOnce((req) =>
      req.path === '/system/licenses'
        ? { status: 200, json: { items: [PROD] } }
        : { status: 200, json: { items: [D2, D1] } },
    );
    expect(sent).toBe(2);
    expect(licenseFacts.of(store.leader())).toMatchObject({
      licenses: { value: { licenses: [{ id: 'a1b2c3d4' }] } },
      usage: { value: { billedBytes: 496100000000 } },
    });
  });

  it.each([403, 404])('on Cribl.Cloud a %s turns it off with one info line, no warning', async (status) => {
    const { logs, enabled, store } = await runOnce(() => ({ status, json: {} }), true);
    expect(enabled.get('license')).toBe(false);
    expect(logs.filter((l) => l.level >= 40)).toEqual([]);
    expect(logs.filter((l) => l.level === 30).map((l) => l.msg)).toEqual([
      expect.stringContaining('the license collector is off for this leader'),
    ]);
    expect(licenseFacts.of(store.leader())).toBeUndefined();
  });

  it('on-prem, a 403 is a warning naming the permission', async () => {
    const { logs } = await runOnce(() => ({ status: 403, json: {} }));
    expect(logs.filter((l) => l.level === 40).map((l) => l.msg)).toEqual([expect.stringContaining('Admin role')]);
  });

  it('registration: on by default, hourly', () => {
    expect(settingsOf(DEFAULT_CONFIG, license as Collector)).toEqual({ enabled: true, intervalMs: 3_600_000 });
  });
});
