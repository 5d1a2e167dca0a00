import { describe, expect, it } from 'vitest';
import {
  countHealthUp,
  countSeries,
  parseSampleLine,
  parseValue,
  sampleValue,
  snapshotFamilies,
  sumBy,
} from '../../bench/lib/metrics-text.mjs';

const BODY = [
  '# HELP cribl_leader_up 1 if the last discovery succeeded.',
  '# TYPE cribl_leader_up gauge',
  'cribl_leader_up 1',
  '# HELP cribl_node_health_up 1 if the last /health poll got an answer.',
  '# TYPE cribl_node_health_up gauge',
  'cribl_node_health_up{product="stream",group="default",node_id="a"} 1',
  'cribl_node_health_up{product="edge",group="f",node_id="b"} 0',
  'cribl_node_health_up{product="edge",group="f",node_id="c \\"q\\" \\\\ \\n"} 1',
  '# HELP cribl_node_info Node facts.',
  '# TYPE cribl_node_info gauge',
  'cribl_node_info{product="stream",group="default",node_id="a",hostname="h1",version="4.15"} 1',
  '# HELP cribl_exporter_nodes Nodes exported by this process.',
  '# TYPE cribl_exporter_nodes gauge',
  'cribl_exporter_nodes{leader="l"} 3',
  'cribl_exporter_body_bytes{encoding="identity"} 1234',
  'cribl_exporter_body_bytes{encoding="gzip"} 99',
  'process_resident_memory_bytes 1e+08',
  '# EOF',
  '',
].join('\n');

describe('parseSampleLine', () => {
  it.each([
    ['up 1', { name: 'up', labels: {}, value: 1 }],
    ['a_b{x="1",y="two"} 2.5', { name: 'a_b', labels: { x: '1', y: 'two' }, value: 2.5 }],
    ['t{v="a\\"b"} 3 1700000000', { name: 't', labels: { v: 'a"b' }, value: 3 }],
    ['h_bucket{le="+Inf"} +Inf', { name: 'h_bucket', labels: { le: '+Inf' }, value: Number.POSITIVE_INFINITY }],
  ])('%s', (line, want) => {
    expect(parseSampleLine(line)).toEqual(want);
  });

  it.each([['# HELP x y'], [''], ['not a sample line at all']])('ignores %j', (line) => {
    expect(parseSampleLine(line)).toBeUndefined();
  });

  it.each([
    ['NaN', Number.NaN],
    ['-Inf', Number.NEGATIVE_INFINITY],
    ['1.5e9', 1.5e9],
  ])('parseValue(%s)', (text, want) => {
    expect(parseValue(text)).toBe(want);
  });
});

describe('reading a body', () => {
  it('counts all series and the snapshot part (not self-metrics)', () => {
    expect(countSeries(BODY)).toEqual({ all: 9, snapshot: 5 });
  });

  it('counts nodes whose health_up is 1', () => {
    expect(countHealthUp(BODY)).toBe(2);
  });

  it('reads one value by name and labels, not by prefix', () => {
    expect(sampleValue(BODY, 'cribl_exporter_body_bytes', { encoding: 'gzip' })).toBe(99);
    expect(sampleValue(BODY, 'cribl_exporter_nodes')).toBe(3);
    expect(sampleValue(BODY, 'cribl_exporter')).toBeUndefined();
    expect(sampleValue(BODY, 'process_resident_memory_bytes')).toBe(1e8);
  });

  it('gives the snapshot families with HELP, label names and unescaped values', () => {
    const families = snapshotFamilies(BODY);
    expect(families.map((f) => f.name)).toEqual(['cribl_leader_up', 'cribl_node_health_up', 'cribl_node_info']);
    const health = families[1]!;
    expect(health.help).toBe('1 if the last /health poll got an answer.');
    expect(health.labelNames).toEqual(['product', 'group', 'node_id']);
    expect(health.samples).toHaveLength(3);
    expect(health.samples[2]!.labels.node_id).toBe('c "q" \\ \n');
    expect(families[2]!.labelNames).toEqual(['product', 'group', 'node_id', 'hostname', 'version']);
  });
});

describe('sumBy', () => {
  it('sums every sample of a family by one label, whatever its other labels', () => {
    const text = [
      '# TYPE cribl_exporter_leader_requests_total counter',
      'cribl_exporter_leader_requests_total{leader="a",endpoint="/health",code="200"} 3',
      'cribl_exporter_leader_requests_total{leader="b",endpoint="/health",code="503"} 2',
      'cribl_exporter_leader_requests_total{leader="a",endpoint="/m/{group}/version",code="200"} 6',
      'cribl_exporter_leader_requests_totalx{endpoint="/health"} 100',
    ].join('\n');
    expect(sumBy(text, 'cribl_exporter_leader_requests_total', 'endpoint')).toEqual({
      '/health': 5,
      '/m/{group}/version': 6,
    });
  });
});
