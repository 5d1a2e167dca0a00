import { describe, expect, it } from 'vitest';
import { acceptsGzip, negotiateFormat } from '../../src/exposition/negotiate.js';
import { PROMETHEUS_2_42, PROMETHEUS_3 } from '../helpers/accept.js';

// Prometheus 3 with `scrape_protocols: [PrometheusText0.0.4]`, and with protobuf first.
const PROMETHEUS_3_TEXT_ONLY = 'text/plain;version=0.0.4;q=0.3,*/*;q=0.2';
const PROMETHEUS_PROTOBUF_FIRST =
  'application/vnd.google.protobuf;proto=io.prometheus.client.MetricFamily;encoding=delimited;q=0.7,' +
  'text/plain;version=0.0.4;q=0.3,*/*;q=0.2';

describe('negotiateFormat', () => {
  it.each([
    ['Prometheus 3 default', PROMETHEUS_3, 'openmetrics'],
    ['Prometheus 2.42', PROMETHEUS_2_42, 'openmetrics'],
    ['Prometheus 3 text only', PROMETHEUS_3_TEXT_ONLY, 'text'],
    ['protobuf first (unsupported): next best', PROMETHEUS_PROTOBUF_FIRST, 'text'],
    ['no header', undefined, 'text'],
    ['empty header', '', 'text'],
    ['curl', '*/*', 'text'],
    ['browser', 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8', 'text'],
    [
      'only OpenMetrics 0.0.1 (unsupported version) then wildcard',
      'application/openmetrics-text;version=0.0.1,*/*;q=0.1',
      'text',
    ],
    ['OpenMetrics without version', 'application/openmetrics-text', 'openmetrics'],
    ['application wildcard', 'application/*', 'openmetrics'],
    ['text wildcard', 'text/*;q=0.5,application/openmetrics-text;q=0.4', 'text'],
    [
      'text/plain 1.0.0 only (unsupported): fall back to 0.0.4',
      'text/plain;version=1.0.0;escaping=allow-utf-8',
      'text',
    ],
    ['OpenMetrics excluded by q=0', 'application/openmetrics-text;q=0,*/*', 'text'],
    ['text excluded, wildcard would pick it: OpenMetrics', 'text/plain;q=0,*/*;q=0.5', 'openmetrics'],
    [
      'more specific range decides',
      'application/openmetrics-text;version=1.0.0;q=0.2,application/*;q=0.9,text/plain;q=0.5',
      'text',
    ],
    ['tie: client order wins', 'application/openmetrics-text;q=0.5,text/plain;q=0.5', 'openmetrics'],
    ['case and spaces', 'Application/OpenMetrics-Text; Version=1.0.0 ; q=0.9 , text/plain ; q=0.1', 'openmetrics'],
    ['quoted version', 'application/openmetrics-text;version="1.0.0"', 'openmetrics'],
    ['malformed q ignored', 'application/openmetrics-text;q=abc,text/plain;q=0.1', 'text'],
    ['nothing acceptable', 'application/json', 'text'],
  ] as const)('%s', (_name, accept, expected) => {
    expect(negotiateFormat(accept)).toBe(expected);
  });
});

describe('acceptsGzip', () => {
  it.each([
    ['Prometheus', 'gzip', true],
    ['none', undefined, false],
    ['empty', '', false],
    ['browser', 'gzip, deflate, br, zstd', true],
    ['q=0 refuses', 'gzip;q=0', false],
    ['q=0.0 refuses', 'gzip;q=0.0, identity', false],
    ['low q still gzip', 'gzip;q=0.1', true],
    ['identity explicitly preferred', 'gzip;q=0.5, identity;q=1', false],
    ['star', '*', true],
    ['star refused, gzip allowed', 'gzip, *;q=0', true],
    ['star with gzip refused', 'gzip;q=0, *', false],
    ['x-gzip', 'x-gzip', true],
    ['other codings only', 'br, deflate', false],
    ['upper case', 'GZIP;Q=1', true],
  ] as const)('%s', (_name, header, expected) => {
    expect(acceptsGzip(header)).toBe(expected);
  });
});
