/** Accept headers of real Prometheus versions, for negotiation tests. */

/** Prometheus 3's default scrape protocols. */
export const PROMETHEUS_3 =
  'application/openmetrics-text;version=1.0.0;escaping=allow-utf-8;q=0.6,' +
  'application/openmetrics-text;version=0.0.1;q=0.5,' +
  'text/plain;version=1.0.0;escaping=allow-utf-8;q=0.4,text/plain;version=0.0.4;q=0.3,*/*;q=0.2';

/** Prometheus 2.42. */
export const PROMETHEUS_2_42 =
  'application/openmetrics-text;version=1.0.0,application/openmetrics-text;version=0.0.1;q=0.75,' +
  'text/plain;version=0.0.4;q=0.5,*/*;q=0.1';
