import { GROUPS, type FlagKind } from '../settings/table.js';
import { flagTable, SECRET_ENV, type FlagSpec } from './flags.js';

const WIDTH = 100;
const INDENT = '      ';

function wrap(text: string, indent: string): string {
  const lines: string[] = [];
  let line = indent;
  for (const word of text.split(/\s+/)) {
    if (line.length + word.length + 1 > WIDTH && line.trim() !== '') {
      lines.push(line.trimEnd());
      line = indent;
    }
    line += (line.trim() === '' ? '' : ' ') + word;
  }
  lines.push(line.trimEnd());
  return lines.join('\n');
}

const PLACEHOLDERS: Partial<Record<FlagKind, string>> = {
  file: 'FILE',
  url: 'URL',
  duration: 'DURATION',
  bytes: 'SIZE',
  int: 'N',
  listen: 'HOST:PORT',
  list: 'LIST',
};

function placeholder(f: FlagSpec): string {
  if (f.kind === 'number') return [...(f.values ?? []), 'N'].join('|');
  if (f.kind === 'enum') return (f.values ?? []).join('|');
  if (f.repeated) return 'URL';
  return PLACEHOLDERS[f.kind] ?? (f.name.split('.').pop() ?? 'value').toUpperCase().replace(/-/g, '_');
}

function usage(f: FlagSpec): string {
  return f.kind === 'bool' ? `--[no-]${f.name}` : `--${f.name}=${placeholder(f)}`;
}

/** The commands, as --help lists them (src/commands/ runs them). */
export const COMMANDS: readonly (readonly [string, string])[] = [
  ['(none)', 'Run the exporter with the flags below.'],
  [
    'check',
    'Contact each configured leader once and report, one line per check, what works and what to fix: DNS, TCP, ' +
      'TLS, credentials, permissions, version, fleet size, request rate, clock skew. Same flags as the exporter, ' +
      'plus --output json. Exit 0 all good, 1 a problem found, 2 bad settings.',
  ],
  [
    'demo',
    'The exporter against a simulated leader, in one process: a first look without a real leader ' +
      '(cribl-exporter demo --help).',
  ],
  ['simulate', 'The simulated leader alone, for tests and trials (cribl-exporter simulate --help).'],
];

/** The text printed by --help: every flag with its environment variable, default and meaning. */
export function helpText(): string {
  const out: string[] = [
    'Usage: cribl-exporter [command] [flags]',
    '',
    'Prometheus exporter for the control plane of Cribl Stream and Cribl Edge leaders.',
    '',
    'Commands:',
    ...COMMANDS.flatMap(([name, what]) => [`  ${name}`, wrap(what, INDENT)]),
    '',
    wrap(
      'Every flag can also be set by the environment variable shown with it, or as a key of the YAML --config.file ' +
        '(the flag name without --, dotted or nested). Flags win over the environment, the environment over the ' +
        'file, the file over the defaults. Durations look like 30s, 5m, 1h30m (an interval is at least 1s); sizes ' +
        'like 64MiB.',
      '',
    ),
  ];
  for (const group of GROUPS) {
    out.push('', `${group}:`);
    if (group === 'General') {
      out.push(
        '  -h, --help',
        wrap('Show this help and exit.', INDENT),
        '  --version',
        wrap('Show the version and exit.', INDENT),
      );
    }
    for (const f of flagTable().filter((x) => x.group === group)) {
      const facts = `(${[`env ${f.env}`, ...(f.default !== '' ? [`default ${f.default}`] : [])].join('; ')})`;
      const head = `  ${usage(f)}  ${facts}`;
      // A long default moves below the flag rather than running past the terminal's width.
      if (head.length <= WIDTH) out.push(head, wrap(f.help, INDENT));
      else out.push(`  ${usage(f)}`, wrap(`${f.help} ${facts}`, INDENT));
    }
  }
  out.push('', 'Secrets (environment only, never flags):');
  for (const s of SECRET_ENV) out.push(`  ${s.env}`, wrap(s.help, INDENT));
  return `${out.join('\n')}\n`;
}

const cell = (text: string): string => text.replace(/\|/g, '\\|');
const code = (text: string): string => (text === '' ? '' : `\`${text}\``);

/** The Markdown tables of settings and secrets embedded in docs/configuration.md (and the README). */
export function configTableMarkdown(): string {
  const rows = flagTable().map(
    (f) =>
      `| ${code(usage(f))} | ${code(f.env)} | ${cell(f.derived ? f.default : code(f.default))} | ${cell(f.help)} |`,
  );
  const secrets = SECRET_ENV.map((s) => `| ${code(s.env)} | ${cell(s.help)} |`);
  return [
    '| Flag | Environment variable | Default | Meaning |',
    '|---|---|---|---|',
    ...rows,
    '',
    '| Secret (environment only) | Meaning |',
    '|---|---|',
    ...secrets,
    '',
  ].join('\n');
}

const BEGIN = '<!-- BEGIN GENERATED FLAG TABLE (UPDATE_DOCS=1 npx vitest run test/config/help.test.ts) -->';
const END = '<!-- END GENERATED FLAG TABLE -->';

/**
 * `doc` with the text between the generated-table markers replaced by configTableMarkdown(); throws without markers.
 */
export function replaceConfigTable(doc: string): string {
  const start = doc.indexOf(BEGIN);
  const end = doc.indexOf(END);
  if (start < 0 || end < start) throw new Error(`markers not found: ${BEGIN} … ${END}`);
  return `${doc.slice(0, start + BEGIN.length)}\n${configTableMarkdown()}${doc.slice(end)}`;
}
