import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import type { IContainer, IPodSpec, IService } from 'kubernetes-models/v1';
import { parseAllDocuments } from 'yaml';
import { describe, expect, it } from 'vitest';
import { FLAG_TABLE, SECRET_ENV } from '../../src/config/flags.js';
import { DEFAULT_PORT } from '../../src/config/types.js';
import { validateManifest, type Manifest } from './k8s-validate.js';
import { ROOT } from './prometheusrule.js';
import { run, skipWithout } from './tools.js';

const K8S = join(ROOT, 'deploy', 'kubernetes');

function yamlFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? yamlFiles(join(dir, e.name)) : /\.ya?ml$/.test(e.name) ? [join(dir, e.name)] : [],
  );
}

function loadDocs(text: string): Manifest[] {
  return parseAllDocuments(text)
    .map((d) => d.toJS() as Manifest | null)
    .filter((d): d is Manifest => d !== null);
}

interface Located {
  /** Path relative to deploy/kubernetes. */
  file: string;
  /** Kustomize layout the file belongs to: '.', 'common', 'sidecar' or 'sharded'. */
  layout: string;
  doc: Manifest;
  text: string;
}

const located: Located[] = yamlFiles(K8S).flatMap((path) => {
  const text = readFileSync(path, 'utf8');
  const file = relative(K8S, path);
  return loadDocs(text).map((doc) => ({ file, layout: dirname(file), doc, text }));
});
const objects = located.filter((l) => l.doc.kind !== 'Kustomization');
const name = (m: Manifest): string => `${String(m.kind)}/${String(m.metadata?.name)}`;

const deployment: Manifest = {
  apiVersion: 'apps/v1',
  kind: 'Deployment',
  metadata: { name: 'x', labels: { a: 'b' } },
  spec: {
    selector: { matchLabels: { a: 'b' } },
    template: { metadata: { labels: { a: 'b' } }, spec: { containers: [{ name: 'c', image: 'i', resources: { limits: { cpu: '1' } } }] } },
  },
};
const edit = (f: (d: { spec: { replicas?: unknown; template: { spec: { containers: Record<string, unknown>[] } } } }) => void): Manifest => {
  const copy = structuredClone(deployment);
  f(copy as never);
  return copy;
};

describe('validateManifest', () => {
  it.each<[string, Manifest, RegExp | null]>([
    ['a valid Deployment', deployment, null],
    ['a misspelt field', edit((d) => void (d.spec.template.spec.containers[0]!.securityContext = { runAsNonroot: true })), /unknown field \/spec\/template\/spec\/containers\/0\/securityContext\/runAsNonroot/],
    ['a misspelt top-level key', { ...deployment, spce: {} }, /unknown field \/spce/],
    ['a wrong type', edit((d) => void (d.spec.replicas = 'two')), /replicas must be integer/],
    ['a missing required field', edit((d) => void delete d.spec.template.spec.containers[0]!.name), /containers\/0 must have required property name/],
    ['an unknown kind', { apiVersion: 'apps/v1', kind: 'Deploymnet', metadata: { name: 'x' } }, /no schema for apiVersion apps\/v1 kind Deploymnet/],
    ['a misspelt ServiceMonitor field', { apiVersion: 'monitoring.coreos.com/v1', kind: 'ServiceMonitor', metadata: { name: 'x' }, spec: { selector: {}, endpoints: [{ prot: 'metrics' }] } }, /unknown field \/spec\/endpoints\/0\/prot/],
  ])('%s', (_, manifest, expected) => {
    const problems = validateManifest(manifest);
    if (expected === null) expect(problems).toEqual([]);
    else expect(problems.join('\n')).toMatch(expected);
  });
});

describe('deploy/kubernetes manifests', () => {
  it('hold every object the layouts need', () => {
    expect(new Set(objects.map((o) => o.doc.kind))).toEqual(
      new Set(['Deployment', 'StatefulSet', 'Service', 'ServiceAccount', 'Secret', 'ServiceMonitor', 'PrometheusRule']),
    );
  });

  it.each(objects.map((o) => [`${o.file} ${name(o.doc)}`, o.doc] as const))('%s matches its schema', (_, doc) => {
    expect(validateManifest(doc)).toEqual([]);
  });
});

// NODE_OPTIONS is Node.js's own (the heap limit inside the container memory limit).
const knownEnv = new Set([...FLAG_TABLE.map((f) => f.env), ...SECRET_ENV.map((s) => s.env), 'NODE_OPTIONS']);
const knownFlags = new Set(FLAG_TABLE.map((f) => f.name));

const workloads = objects
  .filter((o) => o.doc.kind === 'Deployment' || o.doc.kind === 'StatefulSet')
  .map((o) => {
    const spec = (o.doc as unknown as { spec: { replicas?: number; serviceName?: string; template: { metadata: { labels: Record<string, string> }; spec: IPodSpec } } }).spec;
    const exporter = spec.template.spec.containers.find((c) => c.name === 'cribl-exporter');
    return { ...o, spec, pod: spec.template.spec, exporter };
  });

describe.each(workloads.map((w) => [`${w.file} ${name(w.doc)}`, w] as const))('%s', (_, w) => {
  const c = (): IContainer => {
    expect(w.exporter, 'a container named cribl-exporter').toBeDefined();
    return w.exporter!;
  };
  const podSc = w.pod.securityContext ?? {};

  it('runs the exporter as non-root, read-only, without capabilities, under seccomp RuntimeDefault', () => {
    const sc = c().securityContext ?? {};
    expect(sc.runAsNonRoot ?? podSc.runAsNonRoot).toBe(true);
    expect(sc.runAsUser ?? podSc.runAsUser).toBeGreaterThan(0);
    expect(sc.readOnlyRootFilesystem).toBe(true);
    expect(sc.allowPrivilegeEscalation).toBe(false);
    expect(sc.capabilities?.drop).toContain('ALL');
    expect(sc.capabilities?.add ?? []).toEqual([]);
    expect((sc.seccompProfile ?? podSc.seccompProfile)?.type).toBe('RuntimeDefault');
  });

  it('probes liveness on /healthz and, when the exporter is the whole pod, readiness on /readyz', () => {
    expect(c().livenessProbe?.httpGet?.path).toBe('/healthz');
    expect(c().livenessProbe?.httpGet?.port).toBe('metrics');
    if (w.pod.containers.length === 1 || c().readinessProbe) {
      expect(c().readinessProbe?.httpGet?.path).toBe('/readyz');
    }
  });

  it('serves the default port as "metrics"', () => {
    expect(c().ports).toContainEqual({ name: 'metrics', containerPort: DEFAULT_PORT, protocol: 'TCP' });
  });

  it('has requests and limits, marked for sizing from the benchmark', () => {
    const r = c().resources;
    expect(Object.keys(r?.requests ?? {}).sort()).toEqual(['cpu', 'memory']);
    expect(Object.keys(r?.limits ?? {}).sort()).toEqual(['cpu', 'memory']);
    expect(w.text).toContain('# sized from BENCHMARKS.md');
  });

  it('uses only settings the exporter knows', () => {
    for (const e of c().env ?? []) expect(knownEnv, e.name).toContain(e.name);
    for (const a of c().args ?? []) expect(knownFlags, a).toContain(/^--([^=]+)/.exec(a)?.[1]);
  });

  it('reads the token from the mounted credentials Secret', () => {
    const tokenFile = c().env?.find((e) => e.name === 'CRIBL_TOKEN_FILE')?.value;
    expect(tokenFile).toBeDefined();
    const mount = c().volumeMounts?.find((m) => tokenFile!.startsWith(`${m.mountPath}/`));
    expect(mount?.readOnly).toBe(true);
    expect(mount?.subPath, 'subPath mounts are never updated, so token rotation would need a restart').toBeUndefined();
    const volume = w.pod.volumes?.find((v) => v.name === mount?.name);
    const secretName = volume?.secret?.secretName;
    const secret = objects.find((o) => o.doc.kind === 'Secret' && o.doc.metadata?.name === secretName);
    expect(secret, `Secret ${String(secretName)}`).toBeDefined();
    expect(Object.keys((secret!.doc as { stringData?: object }).stringData ?? {})).toContain(tokenFile!.slice(mount!.mountPath.length + 1));
  });

  it('is selected by a Service of its layout whose name matches the alerts\' job convention', () => {
    const services = objects.filter((o) => o.layout === w.layout && o.doc.kind === 'Service').map((o) => o.doc as unknown as IService);
    const labels = w.spec.template.metadata.labels;
    const svc = services.find((s) => Object.entries(s.spec?.selector ?? {}).every(([k, v]) => labels[k] === v));
    expect(svc, 'a Service selecting the pods').toBeDefined();
    expect(svc!.metadata?.name).toMatch(/cribl-exporter/);
    expect(svc!.spec?.ports).toContainEqual(expect.objectContaining({ name: 'metrics', targetPort: 'metrics' }));
    const monitor = objects.find((o) => o.doc.kind === 'ServiceMonitor')!.doc as unknown as {
      spec: { selector: { matchLabels: Record<string, string> }; endpoints: { port: string }[] };
    };
    for (const [k, v] of Object.entries(monitor.spec.selector.matchLabels)) expect(svc!.metadata?.labels?.[k]).toBe(v);
    expect(monitor.spec.endpoints.map((e) => e.port)).toContain('metrics');
  });
});

describe('sharded StatefulSet', () => {
  const sts = workloads.find((w) => w.doc.kind === 'StatefulSet')!;

  it('runs as many pods as --shard.total says', () => {
    const total = sts.exporter?.args?.map((a) => /^--shard\.total=(\d+)$/.exec(a)?.[1]).find((x) => x !== undefined);
    expect(Number(total)).toBe(sts.spec.replicas);
    expect(sts.spec.replicas).toBeGreaterThan(1);
  });

  it('takes its shard index from its own pod name', () => {
    const env = sts.exporter?.env?.find((e) => e.name === 'CRIBL_SHARD_FROM_POD_NAME');
    expect(env?.valueFrom?.fieldRef?.fieldPath).toBe('metadata.name');
  });

  it('is governed by a headless Service', () => {
    const svc = objects.find((o) => o.layout === 'sharded' && o.doc.kind === 'Service' && o.doc.metadata?.name === sts.spec.serviceName);
    expect((svc?.doc as unknown as IService | undefined)?.spec?.clusterIP).toBe('None');
  });
});

// The layouts as users build them. CI installs kubectl (its kustomize may be old: bases, not resources dirs).
describe.skipIf(skipWithout('kubectl'))('kubectl kustomize', () => {
  it.each<[string, string[]]>([
    ['deploy/kubernetes', ['Deployment', 'PrometheusRule', 'Secret', 'Service', 'ServiceAccount', 'ServiceMonitor']],
    ['deploy/kubernetes/sidecar', ['Deployment', 'PrometheusRule', 'Secret', 'Service', 'ServiceAccount', 'ServiceMonitor']],
    ['deploy/kubernetes/sharded', ['PrometheusRule', 'Secret', 'Service', 'ServiceAccount', 'ServiceMonitor', 'StatefulSet']],
  ])('%s builds into valid objects', (dir, kinds) => {
    const r = run('kubectl', ['kustomize', dir], ROOT);
    expect(r.status, r.stderr).toBe(0);
    const docs = loadDocs(r.stdout);
    expect(docs.map((d) => String(d.kind)).sort()).toEqual(kinds);
    for (const d of docs) expect(validateManifest(d), name(d)).toEqual([]);
  });
});
