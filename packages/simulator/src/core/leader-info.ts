import type { License, LicenseClass, LicenseUsage } from '../endpoints/licenses/shapes.js';
import type { BulletinMessage } from '../endpoints/messages/shapes.js';
import type { SystemInfo } from '../endpoints/system-info/shapes.js';
import { activeAt, begunAt } from './schedule.js';
import type { LicenseBehaviour } from '../endpoints/licenses/faults.js';
import type { MessageSpec } from '../endpoints/messages/faults.js';
import type { Vitals } from '../endpoints/system-info/faults.js';
import { randomGuid, randomHex, seededRandom } from './random.js';

/**
 * The leader's own answers: its licences and daily usage, GET /system/info and its bulletins. All of
 * it follows the injected clock and the faults in force; what is not set is generated from the seed.
 */

const DAY_MS = 86_400_000;
/** Licence quotas are GB per day; the simulator counts a GB as 10⁹ bytes. */
export const GB = 1e9;

const TITLES: Record<LicenseClass, string> = {
  prod: 'Cribl Stream Enterprise',
  trial: 'Cribl Stream Trial',
  free: 'Cribl Stream Free',
};
const QUOTAS: Record<LicenseClass, number> = { prod: 1000, trial: 100, free: 1 };
const LIMITS: Record<LicenseClass, Record<string, number>> = {
  prod: {
    worker_groups: 50,
    worker_procs: 2000,
    edge_groups: 50,
    edge_procs: 10_000,
    persistent_queue: 1,
    rbac: 1,
    remote_auth: 1,
    remote_git: 1,
    notifications: 1,
    leader_resiliency: 1,
  },
  trial: { worker_groups: 10, worker_procs: 100, edge_procs: 100, rbac: 1, remote_auth: 1, remote_git: 1 },
  free: { worker_groups: 1, worker_procs: 10, edge_procs: 10, rbac: 0, remote_auth: 0, remote_git: 0 },
};

/** 32-bit mix of two numbers: stable per-day and per-licence draws. */
function mix(a: number, b: number): number {
  let h = Math.imul(a ^ 0x9e3779b9, 0x85ebca6b) ^ Math.imul(b + 0x7f4a7c15, 0xc2b2ae35);
  h ^= h >>> 16;
  return h >>> 0;
}

/** Inputs of the leader's answers. */
export interface LeaderContext {
  now: number;
  /** Ms since the simulator started. */
  t: number;
}

/** The leader's licences, usage, system info and bulletins. */
export class LeaderInfo {
  readonly #seed: number;
  readonly #startedAt: number;
  readonly #version: string;
  readonly #guid: string;
  readonly #apiPort: () => number;

  constructor(seed: number, startedAt: number, version: readonly [number, number, number], apiPort: () => number) {
    this.#seed = seed >>> 0;
    this.#startedAt = startedAt;
    this.#version = version.join('.');
    this.#guid = randomGuid(seededRandom(mix(this.#seed, 0x1ead)));
    this.#apiPort = apiPort;
  }

  /** GET /system/licenses items. */
  licenses(b: LicenseBehaviour, c: LeaderContext): License[] {
    return b.licenses.map((spec, i) => {
      const r = seededRandom(mix(this.#seed, 0x11c0 + i));
      const cls = spec.cls ?? 'prod';
      const id = spec.id ?? randomHex(r, 8);
      const guid = randomGuid(r);
      const defaultLife = cls === 'prod' ? 365 * DAY_MS : 30 * DAY_MS;
      let exp = this.#startedAt + (spec.expiresIn ?? defaultLife);
      for (const w of b.windows) {
        if (w.expiresIn === undefined || !activeAt(w, c.t)) continue;
        if (w.license === undefined ? i !== 0 : w.license !== id) continue;
        exp = this.#startedAt + begunAt(w, c.t) + w.expiresIn;
      }
      const iat = this.#startedAt - 180 * DAY_MS;
      return {
        id,
        cls,
        title: spec.title ?? TITLES[cls],
        guid,
        email: 'ops@example.com',
        iss: 'cribl',
        sub: 'Example Corp',
        iat: Math.floor(iat / 1000),
        exp: Math.floor(exp / 1000),
        quota: spec.quota ?? QUOTAS[cls],
        license: `eyJhbGciOiJSUzI1NiJ9.${randomHex(r, 48)}.${randomHex(r, 32)}`,
        f_ph: 0,
        f_phg: 0,
        limits: { ...LIMITS[cls] },
      };
    });
  }

  /**
   * GET /system/licenses/usage items: one per complete UTC day (the last `days`), plus the current partial day when
   * asked, in the order asked. Billed ingest is `usage` × the first licence's quota, varying by ±8 % per day; a
   * window's `usage` sets the last complete day exactly.
   */
  usage(b: LicenseBehaviour, c: LeaderContext): LicenseUsage[] {
    const quota = (b.licenses[0]?.quota ?? QUOTAS[b.licenses[0]?.cls ?? 'prod']) * GB;
    let lastDay: number | undefined;
    for (const w of b.windows) if (w.usage !== undefined && activeAt(w, c.t)) lastDay = w.usage;
    const today = Math.floor(c.now / DAY_MS);
    const days: LicenseUsage[] = [];
    for (let d = today - b.days; d <= today; d++) {
      const partial = d === today;
      if (partial && !b.partialDay) break;
      const jitter = 0.92 + 0.16 * seededRandom(mix(this.#seed, d))();
      let billed = quota * (d === today - 1 && lastDay !== undefined ? lastDay : b.usage * jitter);
      if (partial) billed *= (c.now - d * DAY_MS) / DAY_MS;
      days.push(usageDay(d * DAY_MS, Math.round(billed)));
    }
    if (b.order === 'newest') days.reverse();
    else if (b.order === 'shuffled') {
      const key = (u: LicenseUsage): number => mix(this.#seed ^ 0x5f5f, u.startTime / DAY_MS);
      days.sort((x, y) => key(x) - key(y));
    }
    return days;
  }

  /** GET /system/info's one item: the leader itself. */
  systemInfo(v: Vitals, licenses: readonly License[], messages: BulletinMessage[], c: LeaderContext): SystemInfo {
    let diskFree = v.diskFree;
    let memoryFree = v.memoryFree;
    for (const w of v.windows) {
      if (!activeAt(w, c.t)) continue;
      if (w.diskFree !== undefined) diskFree = w.diskFree;
      if (w.memoryFree !== undefined) memoryFree = w.memoryFree;
    }
    const available = Math.round(v.diskTotal * diskFree);
    const first = licenses[0];
    const cls = first?.cls ?? 'free';
    const [major, minor] = this.#version.split('.');
    return {
      version: this.#version,
      BUILD: {
        VERSION: this.#version,
        BRANCH: `release/${major}.${minor}`,
        TIMESTAMP: new Date(this.#startedAt - 30 * DAY_MS).toISOString(),
      },
      distMode: 'master',
      guid: this.#guid,
      hostname: 'cribl-leader',
      apiPort: this.#apiPort(),
      configPath: '/opt/cribl/config',
      installPath: '/opt/cribl',
      uptime: Math.max(0, Math.floor(c.t / 1000)),
      loadavg: [0.42, 0.38, 0.35],
      memory: { free: Math.round(v.memoryTotal * memoryFree), total: v.memoryTotal },
      diskUsage: {
        bytesAvailable: available,
        bytesUsed: v.diskTotal - available,
        diskPath: '/opt/cribl',
        totalDiskSize: v.diskTotal,
      },
      cpus: Array.from({ length: 4 }, () => ({
        model: 'Intel(R) Xeon(R) Platinum 8375C CPU @ 2.90GHz',
        speed: 2900,
        times: { user: 0, nice: 0, sys: 0, idle: 0, irq: 0 },
      })),
      os: { arch: 'x64', endianness: 'LE', platform: 'linux', release: '6.8.0-1013-aws', type: 'Linux' },
      conf: { inputs: 2, outputs: 2, pipelines: 3, routes: 1, rules: 0 },
      license: {
        type: cls,
        isRegistered: first !== undefined,
        limits: { rbac: 0, remote_auth: 0, remote_git: 0, worker_groups: 1, worker_procs: 10, ...first?.limits },
        email: first?.email ?? '',
      },
      limits: { samples: { maxSize: '256KB' } },
      messages,
      workerProcesses: 0,
      systemConf: { installType: 'standalone', restart: 'api', upgrade: 'api' },
      env: {},
      net: {},
      startTime: this.#startedAt,
    };
  }

  /** GET /system/messages items: the bulletins in force, newest first, dated when their window began. */
  messages(list: readonly MessageSpec[], c: LeaderContext): BulletinMessage[] {
    const out: BulletinMessage[] = [];
    list.forEach((m, i) => {
      if (!activeAt(m, c.t)) return;
      const time = this.#startedAt + begunAt(m, c.t);
      const item: BulletinMessage = { id: m.id ?? `${time}-${i.toString(16).padStart(4, '0')}`, text: m.text };
      if (m.severity !== undefined) item.severity = m.severity;
      if (m.title !== undefined) item.title = m.title;
      item.time = time;
      if (m.group !== undefined) item.group = m.group;
      out.push(item);
    });
    return out.sort((a, b) => (b.time ?? 0) - (a.time ?? 0));
  }
}

/** One day of usage whose billed ingest is `billed` bytes (2 % of ingest is licence-exempt). */
function usageDay(start: number, billed: number): LicenseUsage {
  const exempt = Math.round(billed * 0.02);
  const inBytes = billed + exempt;
  const inEvents = Math.round(inBytes / 800);
  return {
    startTime: start,
    endTime: start + DAY_MS,
    inBytes,
    inEvents,
    outBytes: Math.round(inBytes * 0.65),
    outEvents: Math.round(inEvents * 0.8),
    droppedBytes: Math.round(inBytes * 0.001),
    exemptedLicenseInBytes: exempt,
  };
}

/** Now, and the time since the simulator started (for scheduled changes). */
export function context(env: { readonly clock: { now(): number }; readonly startedAt: number }): LeaderContext {
  const now = env.clock.now();
  return { now, t: now - env.startedAt };
}
