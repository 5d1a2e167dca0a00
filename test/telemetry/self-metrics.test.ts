import { Counter, Histogram, register as globalRegistry, Registry } from 'prom-client';
import { createRequire } from 'node:module';
import type * as PerfHooks from 'node:perf_hooks';
import { describe, expect, it, vi } from 'vitest';
import { createSelfMetrics, EVENT_LOOP_MONITORING_MS, renderJsonFamily } from '../../src/telemetry/self-metrics.js';

/** The perf_hooks module object prom-client requires (its monitorEventLoopDelay can be spied on). */
const perfHooks = createRequire(import.meta.url)('node:perf_hooks') as typeof PerfHooks;

function create(defaultMetrics = false) {
  return createSelfMetrics({ version: '1.2.3', nodejsVersion: 'v22.17.1', defaultMetrics });
}

describe('renderJsonFamily', () => {
  const counter = {
    name: 'x_requests_total',
    help: 'Requests "sent".',
    type: 'counter',
    values: [{ value: 3, labels: { code: '200', leader: 'a\nb' } }],
  };

  it.each([
    [
      'text',
      '# HELP x_requests_total Requests "sent".\n# TYPE x_requests_total ' +
        'counter\nx_requests_total{code="200",leader="a\\nb"} 3\n',
    ],
    [
      'openmetrics',
      '# HELP x_requests Requests \\"sent\\".\n# TYPE x_requests ' +
        'counter\nx_requests_total{code="200",leader="a\\nb"} 3\n',
    ],
  ] as const)('counter in %s', (format, expected) => {
    expect(renderJsonFamily(counter, format)).toBe(expected);
  });

  it('renders histogram samples by their own names with le', () => {
    const out = renderJsonFamily(
      {
        name: 'd_seconds',
        help: 'h',
        type: 'histogram',
        values: [
          { value: 1, labels: { le: 0.5 }, metricName: 'd_seconds_bucket' },
          { value: 2, labels: { le: '+Inf' }, metricName: 'd_seconds_bucket' },
          { value: 0.7, labels: {}, metricName: 'd_seconds_sum' },
          { value: 2, labels: {}, metricName: 'd_seconds_count' },
        ],
      },
      'openmetrics',
    );
    expect(out).toBe(
      '# HELP d_seconds h\n# TYPE d_seconds histogram\n' +
        'd_seconds_bucket{le="0.5"} 1\nd_seconds_bucket{le="+Inf"} 2\nd_seconds_sum 0.7\nd_seconds_count 2\n',
    );
  });
});

describe('createSelfMetrics', () => {
  it('renders build info and leader hooks in text format', async () => {
    const m = create();
    const leader = m.forLeader('prod');
    leader.onRequest('/w/{nodeId}/health', '200', 0.2);
    leader.onRequest('/w/{nodeId}/health', 'timeout', 10);
    leader.onThrottled('429');
    leader.onPauseChange(true, 1717200030000);
    leader.onConcurrencyChange(8);
    leader.onInFlight(3);
    leader.healthCycle(30, 31.5);
    leader.overrun(true);
    leader.pollAgeMax?.(29.5);
    leader.slowNodes?.(2);
    leader.onRateChange?.(875.5);
    leader.discovery(1.25);
    leader.nodes(100, 5);
    leader.onTokenExpiry('login', 1717203600000);
    leader.onFailure('login', 'invalid_credentials');
    m.setShard(1, 3);
    m.setWebConfigReloadSuccessful(true);
    const text = await m.render('text');
    for (const line of [
      'cribl_exporter_build_info{version="1.2.3",revision="unknown",nodejs_version="v22.17.1"} 1',
      '# TYPE cribl_exporter_leader_requests_total counter',
      'cribl_exporter_leader_requests_total{leader="prod",endpoint="/w/{nodeId}/health",code="200"} 1',
      'cribl_exporter_leader_requests_total{leader="prod",endpoint="/w/{nodeId}/health",code="timeout"} 1',
      'cribl_exporter_leader_request_duration_seconds_bucket{le="0.25",leader="prod",endpoint="/w/{nodeId}/health"} 1',
      'cribl_exporter_leader_request_duration_seconds_count{leader="prod",endpoint="/w/{nodeId}/health"} 2',
      'cribl_exporter_leader_throttled_total{leader="prod",code="429"} 1',
      'cribl_exporter_leader_paused{leader="prod"} 1',
      'cribl_exporter_leader_pause_until_timestamp_seconds{leader="prod"} 1717200030',
      'cribl_exporter_leader_concurrency_limit{leader="prod"} 8',
      'cribl_exporter_leader_in_flight_requests{leader="prod"} 3',
      'cribl_exporter_health_cycle_target_seconds{leader="prod"} 30',
      'cribl_exporter_health_cycle_duration_seconds{leader="prod"} 31.5',
      'cribl_exporter_health_cycle_overrun{leader="prod"} 1',
      'cribl_exporter_health_poll_age_max_seconds{leader="prod"} 29.5',
      'cribl_exporter_slow_nodes{leader="prod"} 2',
      'cribl_exporter_leader_rate_limit_requests_per_second{leader="prod"} 875.5',
      'cribl_exporter_discovery_duration_seconds{leader="prod"} 1.25',
      'cribl_exporter_nodes{leader="prod"} 100',
      'cribl_exporter_nodes_over_limit{leader="prod"} 5',
      'cribl_exporter_auth_token_expiry_timestamp_seconds{leader="prod",mode="login"} 1717203600',
      'cribl_exporter_auth_failures_total{leader="prod",mode="login",reason="invalid_credentials"} 1',
      'cribl_exporter_shard_index 1',
      'cribl_exporter_shard_total 3',
      'cribl_exporter_web_config_last_reload_successful 1',
    ]) {
      expect(text).toContain(`${line}\n`);
    }
  });

  it('renders a pause while the leader is not serving as +Inf, and 0 when it ends', async () => {
    const m = create();
    const leader = m.forLeader('p');
    leader.onPauseChange(true, Infinity);
    expect(await m.render('text')).toContain('cribl_exporter_leader_pause_until_timestamp_seconds{leader="p"} +Inf\n');
    leader.onPauseChange(false, 0);
    const text = await m.render('text');
    expect(text).toContain('cribl_exporter_leader_paused{leader="p"} 0\n');
    expect(text).toContain('cribl_exporter_leader_pause_until_timestamp_seconds{leader="p"} 0\n');
  });

  it('names counter families without _total in OpenMetrics, samples with it', async () => {
    const m = create();
    m.forLeader('a').onThrottled('503');
    const om = await m.render('openmetrics');
    expect(om).toContain(
      '# TYPE cribl_exporter_leader_throttled ' +
        'counter\ncribl_exporter_leader_throttled_total{leader="a",code="503"} 1\n',
    );
    expect(om).not.toContain('# EOF');
    // Rendering OpenMetrics must not change the text rendering (prom-client renames counters in place).
    expect(await m.render('text')).toContain('# TYPE cribl_exporter_leader_throttled_total counter\n');
  });

  it('counts requests and their durations as prom-client itself does, also after a leader is removed', async () => {
    const m = create();
    const reference = new Registry();
    const counter = new Counter({
      name: 'ref_requests_total',
      help: 'h',
      labelNames: ['leader', 'endpoint', 'code'] as const,
      registers: [reference],
    });
    const histogram = new Histogram({
      name: 'ref_duration_seconds',
      help: 'h',
      labelNames: ['leader', 'endpoint'] as const,
      buckets: [0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
      registers: [reference],
    });
    const seconds = [0, 0.01, 0.0100001, 0.2, 0.5, 1, 29.9, 30, 31, 1e6];
    // The same hooks before and after the removal: their cached entries are gone from prom-client by then.
    const hooks = new Map<string, ReturnType<typeof m.forLeader>>();
    const feed = (leader: string, rounds: number): void => {
      const l = hooks.get(leader) ?? m.forLeader(leader);
      hooks.set(leader, l);
      for (let i = 0; i < rounds; i++) {
        for (const [j, s] of seconds.entries()) {
          const endpoint = j % 2 ? '/w/{nodeId}/health' : '/health';
          const code = j % 3 ? '200' : 'timeout';
          l.onRequest(endpoint, code, s);
          counter.inc({ leader, endpoint, code });
          histogram.observe({ leader, endpoint }, s);
        }
      }
    };
    const ours = async (): Promise<string> =>
      (await m.render('text'))
        .split('\n')
        .filter((l) => /^cribl_exporter_leader_request(s_total|_duration_seconds_(bucket|sum|count))\{/.test(l))
        .map((l) => l.replace(/^cribl_exporter_leader_request(s_total|_duration_seconds)/, 'x$1'))
        .sort()
        .join('\n');
    const theirs = async (): Promise<string> =>
      (await reference.metrics())
        .split('\n')
        .filter((l) => /^ref_(requests_total|duration_seconds_(bucket|sum|count))\{/.test(l))
        .map((l) =>
          l.replace(
            /^ref_(requests_total|duration_seconds)/,
            (_, g: string) => `x${g === 'requests_total' ? 's_total' : '_duration_seconds'}`,
          ),
        )
        .sort()
        .join('\n');
    feed('a', 3);
    feed('b', 1);
    expect(await ours()).toBe(await theirs());
    expect(await ours()).toContain('x_duration_seconds_count{leader="a",endpoint="/health"} 15');
    // Removed, then counted again: the series start over (prom-client's remove() drops the entries).
    m.removeLeader('a');
    counter.remove({ leader: 'a', endpoint: '/health', code: '200' });
    for (const endpoint of ['/health', '/w/{nodeId}/health']) {
      for (const code of ['200', 'timeout']) counter.remove({ leader: 'a', endpoint, code });
      histogram.remove({ leader: 'a', endpoint });
    }
    feed('a', 1);
    expect(await ours()).toBe(await theirs());
    expect(await ours()).toContain('x_duration_seconds_count{leader="a",endpoint="/health"} 5');
  });

  it('removes every series of a leader', async () => {
    const m = create();
    for (const name of ['gone', 'kept']) {
      const l = m.forLeader(name);
      l.onRequest('/health', '200', 0.1);
      l.onThrottled('420');
      l.onInFlight(1);
      l.onTokenExpiry('cloud', 1);
      l.onFailure('cloud', 'unreachable');
    }
    m.removeLeader('gone');
    const text = await m.render('text');
    expect(text).not.toContain('leader="gone"');
    expect(text).toContain('cribl_exporter_leader_requests_total{leader="kept",endpoint="/health",code="200"} 1\n');
    expect(text).toContain('cribl_exporter_leader_in_flight_requests{leader="kept"} 1\n');
  });

  it('reports the last in-flight count, also after the leader was removed and counts again', async () => {
    const m = create();
    const l = m.forLeader('a');
    for (const n of [1, 2, 3, 2]) l.onInFlight(n);
    expect(await m.render('text')).toContain('cribl_exporter_leader_in_flight_requests{leader="a"} 2\n');
    m.removeLeader('a');
    expect(await m.render('text')).not.toContain('cribl_exporter_leader_in_flight_requests{leader="a"}');
    l.onInFlight(5);
    l.onInFlight(4);
    expect(await m.render('text')).toContain('cribl_exporter_leader_in_flight_requests{leader="a"} 4\n');
  });

  it('drops the token expiry when the token is dropped', async () => {
    const m = create();
    const l = m.forLeader('a');
    l.onTokenExpiry('token', 1000);
    l.onTokenExpiry('token', undefined);
    expect(await m.render('text')).not.toContain('cribl_exporter_auth_token_expiry_timestamp_seconds{');
  });

  it('includes default process and nodejs metrics on its own registry only', async () => {
    const m = create(true);
    const text = await m.render('text');
    expect(text).toMatch(/^process_cpu_user_seconds_total \d/m);
    expect(text).toMatch(/^nodejs_heap_size_total_bytes \d/m);
    expect(globalRegistry.getSingleMetric('cribl_exporter_build_info')).toBeUndefined();
    expect(globalRegistry.getSingleMetric('process_cpu_user_seconds_total')).toBeUndefined();
  });

  it('records body builds', async () => {
    const m = create();
    m.bodyBuilt({ durationMs: 250, bytes: 1000, gzipBytes: 100 });
    const text = await m.render('text');
    expect(text).toContain('cribl_exporter_body_build_duration_seconds 0.25\n');
    expect(text).toContain('cribl_exporter_body_bytes{encoding="gzip"} 100\n');
  });
});

describe('default metrics', () => {
  it('samples the event-loop delay every EVENT_LOOP_MONITORING_MS (50 ms), not every 10 ms', async () => {
    const monitor = vi.spyOn(perfHooks, 'monitorEventLoopDelay');
    try {
      const m = create(true);
      expect(EVENT_LOOP_MONITORING_MS).toBe(50);
      expect(monitor).toHaveBeenCalledWith(expect.objectContaining({ resolution: 50 }));
      expect(await m.render('text')).toContain('nodejs_eventloop_lag_p99_seconds');
    } finally {
      monitor.mockRestore();
    }
  });
});
