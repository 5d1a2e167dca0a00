import { describe, expect, it } from 'vitest';
import {
  family,
  GROUP_FAMILIES,
  LEADER_FAMILIES,
  NODE_FAMILIES,
  renderGroups,
  renderLeader,
  renderNode,
} from '../helpers/render.js';
import { node, worker } from '../exposition/fixtures.js';

const B = 'product="stream",group="default",node_id="w1"';

function lines(...l: string[]): string {
  return l.map((x) => `${x}\n`).join('');
}

describe('renderNode', () => {
  it('renders a listed, never polled node (golden)', () => {
    expect(renderNode(node('w1'), '').join('')).toBe(
      lines(
        `cribl_node_info{${B},hostname="host-w1",version="4.15.1-1b453caa",platform="linux",arch="x64"} 1`,
        `cribl_node_connected{${B}} 1`,
        `cribl_node_config_info{${B},config_version="abc1234"} 1`,
        `cribl_node_first_heartbeat_timestamp_seconds{${B}} 1717200000`,
        `cribl_node_last_heartbeat_timestamp_seconds{${B}} 1717200060.5`,
        `cribl_node_start_timestamp_seconds{${B}} 1717199000`,
        `cribl_node_worker_processes{${B}} 4`,
        `cribl_node_cpus{${B}} 8`,
        `cribl_node_memory_bytes{${B}} 16777216000`,
        `cribl_node_restarts_total{${B}} 0`,
      ),
    );
  });

  it('returns one string per per-node family', () => {
    expect(renderNode(node('w1'), '')).toHaveLength(NODE_FAMILIES.length);
  });

  it('puts target labels first', () => {
    expect(family(renderNode(node('w1'), 'workspace="main"'), 'cribl_node_connected')).toBe(
      `cribl_node_connected{workspace="main",${B}} 1\n`,
    );
  });

  it('renders disk only where the leader reports it', () => {
    const without = renderNode(node('w1'), '');
    expect(family(without, 'cribl_node_disk_free_bytes')).toBe('');
    expect(family(without, 'cribl_node_disk_total_bytes')).toBe('');
    const w = worker('w1');
    w.info.freeDiskSpace = 1234567890;
    w.info.totalDiskSpace = 53687091200;
    const withDisk = renderNode(node('w1', { worker: w }), '');
    expect(family(withDisk, 'cribl_node_disk_free_bytes')).toBe(`cribl_node_disk_free_bytes{${B}} 1234567890\n`);
    expect(family(withDisk, 'cribl_node_disk_total_bytes')).toBe(`cribl_node_disk_total_bytes{${B}} 53687091200\n`);
  });

  it.each([
    [undefined, ''],
    [true, `cribl_node_deployable{${B}} 1\n`],
    [false, `cribl_node_deployable{${B}} 0\n`],
  ])('deployable %s', (deployable, expected) => {
    const texts = renderNode(node('w1', { worker: worker('w1', deployable === undefined ? {} : { deployable }) }), '');
    expect(family(texts, 'cribl_node_deployable')).toBe(expected);
  });

  it('reports a disconnected node', () => {
    const texts = renderNode(node('w1', { worker: worker('w1', { disconnected: true }) }), '');
    expect(family(texts, 'cribl_node_connected')).toBe(`cribl_node_connected{${B}} 0\n`);
  });

  it('renders empty label values where the leader sends nothing', () => {
    const w = worker('w1');
    delete w.info.cribl.version;
    delete w.info.cribl.config.version;
    const texts = renderNode(node('w1', { worker: w }), '');
    expect(family(texts, 'cribl_node_info')).toBe(
      `cribl_node_info{${B},hostname="host-w1",version="",platform="linux",arch="x64"} 1\n`,
    );
    expect(family(texts, 'cribl_node_config_info')).toBe(`cribl_node_config_info{${B},config_version=""} 1\n`);
  });

  it('falls back to the metadata config version', () => {
    const w = worker('w1');
    delete w.info.cribl.config.version;
    const texts = renderNode(
      node('w1', {
        worker: w,
        metadata: { value: { timestamp: 1, cribl: { mode: 'edge', version: '4', config_version: 'meta1' } } },
      }),
      '',
    );
    expect(family(texts, 'cribl_node_config_info')).toBe(`cribl_node_config_info{${B},config_version="meta1"} 1\n`);
  });

  describe('health', () => {
    it.each([
      ['healthy', 1, [1, 0, 0]],
      ['shutting down', 0, [0, 1, 0]],
      ['standby', 0, [0, 0, 1]],
    ] as const)('answered %s: full state set', (status, healthy, [h, s, sb]) => {
      const texts = renderNode(node('w1', { health: { up: true, status, lastSuccessMs: 1717200061000 } }), '');
      expect(
        [
          'cribl_node_health_up',
          'cribl_node_healthy',
          'cribl_node_health_status',
          'cribl_node_health_last_success_timestamp_seconds',
          'cribl_node_poll_failure_info',
        ]
          .map((n) => family(texts, n))
          .join(''),
      ).toBe(
        lines(
          `cribl_node_health_up{${B}} 1`,
          `cribl_node_healthy{${B}} ${healthy}`,
          `cribl_node_health_status{${B},status="healthy"} ${h}`,
          `cribl_node_health_status{${B},status="shutting_down"} ${s}`,
          `cribl_node_health_status{${B},status="standby"} ${sb}`,
          `cribl_node_health_last_success_timestamp_seconds{${B}} 1717200061`,
        ),
      );
    });

    it('last poll failed: up 0, healthy 0, no state set, failure reason, last success kept', () => {
      const texts = renderNode(
        node('w1', { health: { up: false, status: 'healthy', failure: 'timeout', lastSuccessMs: 1717200000000 } }),
        '',
      );
      expect(family(texts, 'cribl_node_health_up')).toBe(`cribl_node_health_up{${B}} 0\n`);
      expect(family(texts, 'cribl_node_healthy')).toBe(`cribl_node_healthy{${B}} 0\n`);
      expect(family(texts, 'cribl_node_health_status')).toBe('');
      expect(family(texts, 'cribl_node_poll_failure_info')).toBe(
        `cribl_node_poll_failure_info{${B},reason="timeout"} 1\n`,
      );
      expect(family(texts, 'cribl_node_health_last_success_timestamp_seconds')).toBe(
        `cribl_node_health_last_success_timestamp_seconds{${B}} 1717200000\n`,
      );
    });

    it('never answered: no last success series', () => {
      const texts = renderNode(node('w1', { health: { up: false, failure: 'connect' } }), '');
      expect(family(texts, 'cribl_node_health_last_success_timestamp_seconds')).toBe('');
      expect(family(texts, 'cribl_node_poll_failure_info')).toBe(
        `cribl_node_poll_failure_info{${B},reason="connect"} 1\n`,
      );
    });

    it('not polled yet: no health series at all', () => {
      const texts = renderNode(node('w1'), '');
      for (const f of [
        'cribl_node_health_up',
        'cribl_node_healthy',
        'cribl_node_health_status',
        'cribl_node_poll_failure_info',
      ] as const) {
        expect(family(texts, f)).toBe('');
      }
    });
  });

  describe('metadata', () => {
    it('renders the info with every value (golden)', () => {
      const texts = renderNode(
        node('w1', {
          metadata: {
            lastSuccessMs: 1717200100000,
            value: {
              timestamp: 1717200100000,
              cribl: { mode: 'managed-edge', version: '4.15.1' },
              os: { os_name: 'Ubuntu', os_version: '22.04.4 LTS (Jammy Jellyfish)' },
              kube: { namespace: 'cribl', pod: { name: 'edge-7d9f' } },
            },
          },
        }),
        '',
      );
      expect(
        family(texts, 'cribl_node_metadata_info') + family(texts, 'cribl_node_metadata_last_success_timestamp_seconds'),
      ).toBe(
        lines(
          `cribl_node_metadata_info{${B},os_name="Ubuntu",os_version="22.04.4 LTS (Jammy ` +
            `Jellyfish)",cribl_mode="managed-edge",kube_namespace="cribl",kube_pod="edge-7d9f"} 1`,
          `cribl_node_metadata_last_success_timestamp_seconds{${B}} 1717200100`,
        ),
      );
    });

    it('renders empty values where metadata has no os, cribl or kube', () => {
      const texts = renderNode(node('w1', { metadata: { value: { timestamp: 1 } } }), '');
      expect(family(texts, 'cribl_node_metadata_info')).toBe(
        `cribl_node_metadata_info{${B},os_name="",os_version="",cribl_mode="",kube_namespace="",kube_pod=""} 1\n`,
      );
      expect(family(texts, 'cribl_node_metadata_last_success_timestamp_seconds')).toBe('');
    });

    it('accepts a pod given as a string', () => {
      const texts = renderNode(
        node('w1', { metadata: { value: { timestamp: 1, kube: { namespace: 'ns', pod: 'p-1' } } } }),
        '',
      );
      expect(family(texts, 'cribl_node_metadata_info')).toContain('kube_namespace="ns",kube_pod="p-1"');
    });
  });

  it('escapes hostile values from the leader', () => {
    const w = worker('w"1');
    w.info.hostname = 'evil\\host\n"x"\uD800';
    w.info.platform = '';
    const texts = renderNode(node('w"1', { group: 'g\\1', worker: w }), 'workspace="a\\"b"');
    expect(family(texts, 'cribl_node_info')).toBe(
      'cribl_node_info{workspace="a\\"b",product="stream",group="g\\\\1",node_id="w\\"1",' +
        'hostname="evil\\\\host\\n\\"x\\"\uFFFD",version="4.15.1-1b453caa",platform="",arch="x64"} 1\n',
    );
  });
});

/** The texts of the first families, then '' for every other family of the scope. */
const padded = (n: number, first: readonly string[]): string[] => [
  ...first,
  ...Array<string>(n - first.length).fill(''),
];

describe('renderLeader', () => {
  it.each([
    ['before the first discovery: down, not absent', undefined, '', ['cribl_leader_up 0\n', '']],
    [
      'up, without labels',
      { up: true, lastDiscoveryMs: 1717200000500 },
      '',
      ['cribl_leader_up 1\n', 'cribl_leader_last_discovery_timestamp_seconds 1717200000.5\n'],
    ],
    ['down, never discovered', { up: false }, 'workspace="w"', ['cribl_leader_up{workspace="w"} 0\n', '']],
  ] as const)('%s', (_name, state, target, expected) => {
    expect(renderLeader({ facts: state ? { listing: state } : {} }, target)).toEqual(
      padded(LEADER_FAMILIES.length, expected),
    );
  });
});

describe('renderGroups', () => {
  it('renders each group, counts only where reported (golden)', () => {
    const out = renderGroups(
      [
        {
          product: 'stream',
          id: 'default',
          facts: { groups: { id: 'default', configVersion: 'abc', workerCount: 3, deployingWorkerCount: 0 } },
        },
        { product: 'edge', id: 'fleet "1"', facts: { groups: { id: 'fleet "1"' } } },
      ],
      'workspace="w"',
    );
    expect(out).toEqual(
      padded(GROUP_FAMILIES.length, [
        // Nodes removed while disconnected: a counter every group has, from 0.
        lines(
          'cribl_group_nodes_removed_total{workspace="w",product="stream",group="default"} 0',
          'cribl_group_nodes_removed_total{workspace="w",product="edge",group="fleet \\"1\\""} 0',
        ),
        lines(
          'cribl_group_info{workspace="w",product="stream",group="default",config_version="abc"} 1',
          'cribl_group_info{workspace="w",product="edge",group="fleet \\"1\\"",config_version=""} 1',
        ),
        lines('cribl_group_workers{workspace="w",product="stream",group="default"} 3'),
        lines('cribl_group_deploying_workers{workspace="w",product="stream",group="default"} 0'),
      ]),
    );
  });
});
