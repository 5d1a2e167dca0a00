/** The two exposition formats we serve. */
export type Format = 'text' | 'openmetrics';

/** Response Content-Type of each format, with its version. */
export const CONTENT_TYPES: Readonly<Record<Format, string>> = {
  text: 'text/plain; version=0.0.4; charset=utf-8',
  openmetrics: 'application/openmetrics-text; version=1.0.0; charset=utf-8',
};

/** The line that ends an OpenMetrics body. */
export const OPENMETRICS_EOF = '# EOF\n';
