import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, relative } from 'node:path';
import type { INetworkPolicyEgressRule, INetworkPolicyIngressRule } from 'kubernetes-models/networking.k8s.io/v1';
import type { IContainer, IPodSpec, IService } from 'kubernetes-models/v1';
import { stringify } from 'yaml';
import { beforeAll, describe, expect, it } from 'vitest';
import { leftToFirstRun } from '../helpers/repeat.js';
import { flagTable, SECRET_ENV } from '../../src/config/flags.js';
import { DEFAULT_PORT } from '../../src/config/flags.js';
import { validateManifest, type Manifest } from './k8s-validate.js';
import { alertJobPattern, CREDENTIALS_KEY, CREDENTIALS_SECRET, kustomize, loadDocs, selects } from './kustomize.js';
import { ROOT } from './prometheusrule.js';
import { skipWithout, toolTimeouts } from './tools.js';

// kubectl: see TOOL_TIMEOUT_MS.
toolTimeouts();

const K8S = join(ROOT, 'deploy', 'kubernetes');

function yamlFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? yamlFiles(join(dir, e.name)) : /\.ya?ml$/.test(e.name) ? [join(dir, e.name)] : [],
  );
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
const objects = located.filter((l) => l.doc.kind !== 'Kustomization' && l.doc.kind !== 'Component');
const name = (m: Manifest): string => `${String(m.kind)}/${String(m.metadata?.name)}`;

const deployment: Manifest = {
  apiVersion: 'apps/v1',
  kind: 'Deployment',
  metadata: { name: 'x', labels: { a: 'b' } },
  spec: {
    selector: { matchLabels: { a: 'b' } },
    template: {
      metadata: { labels: { a: 'b' } },
      spec: { containers: [{ name: 'c', image: 'i', resources: { limits: { cpu: '1' } } }] },
    },
  },
};
const edit = (
  f: (d: { spec: { replicas?: unknown; template: { spec: { containers: Record<string, unknown>[] } } } }) => void,
): Manifest => {
  const copy = structuredClone(deployment);
  f(copy as never);
  return copy;
};

describe('validateManifest', () => {
  it.each<[string, Manifest, RegExp | null]>([
    ['a valid Deployment', deployment, null],
    [
      'a misspelt field',
      edit((d) => void (d.spec.template.spec.containers[0]!.securityContext = { runAsNonroot: true })),
      /unknown field \/spec\/template\/spec\/containers\/0\/securityContext\/runAsNonroot/,
    ],
    ['a misspelt top-level key', { ...deployment, spce: {} }, /unknown field \/spce/],
    ['a wrong type', edit((d) => void (d.spec.replicas = 'two')), /replicas must be integer/],
    [
      'a missing required field',
      edit((d) => void delete d.spec.template.spec.containers[0]!.name),
      /containers\/0 must have required property name/,
    ],
    [
      'an unknown kind',
      { apiVersion: 'apps/v1', kind: 'Deploymnet', metadata: { name: 'x' } },
      /no schema for apiVersion apps\/v1 kind Deploymnet/,
    ],
    [
      'a misspelt ServiceMonitor field',
      {
        apiVersion: 'monitoring.coreos.com/v1',
        kind: 'ServiceMonitor',
        metadata: { name: 'x' },
        spec: { selector: {}, endpoints: [{ prot: 'metrics' }] },
      },
      /unknown field \/spec\/endpoints\/0\/prot/,
    ],
  ])('%s', (_, manifest, expected) => {
    const problems = validateManifest(manifest);
    if (expected === null) expect(problems).toEqual([]);
    else expect(problems.join('\n')).toMatch(expected);
  });
});

describe('deploy/kubernetes manifests', () => {
  it('hold every object the layouts need, and no Secret (the user creates it, so no placeholder token ships)', () => {
    expect(new Set(objects.map((o) => o.doc.kind))).toEqual(
      new Set([
        'Deployment',
        'StatefulSet',
        'Service',
        'ServiceAccount',
        'ServiceMonitor',
        'PodMonitor',
        'PrometheusRule',
        'PodDisruptionBudget',
        'NetworkPolicy',
      ]),
    );
  });

  it.each(located.filter((l) => /kustomization\.yaml$/.test(l.file)).map((l) => [l.file, l.doc] as const))(
    '%s lists directories under resources, not the deprecated bases',
    (_, doc) => {
      expect(doc).not.toHaveProperty('bases');
      expect((doc as { resources?: string[] }).resources?.length).toBeGreaterThan(0);
    },
  );

  it.each(objects.map((o) => [`${o.file} ${name(o.doc)}`, o.doc] as const))('%s matches its schema', (_, doc) => {
    expect(validateManifest(doc)).toEqual([]);
  });
});

// NODE_OPTIONS is Node.js's own (the heap limit inside the container memory limit).
const knownEnv = new Set([...flagTable().map((f) => f.env), ...SECRET_ENV.map((s) => s.env), 'NODE_OPTIONS']);
const knownFlags = new Set(flagTable().map((f) => f.name));

const workloads = objects
  .filter((o) => o.doc.kind === 'Deployment' || o.doc.kind === 'StatefulSet')
  .map((o) => {
    const spec = (
      o.doc as unknown as {
        spec: {
          replicas?: number;
          serviceName?: string;
          template: { metadata: { labels: Record<string, string> }; spec: IPodSpec };
        };
      }
    ).spec;
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

  it('reads the token from the Secret the user creates (CREDENTIALS_SECRET, key token), mounted as a directory', () => {
    const tokenFile = c().env?.find((e) => e.name === 'CRIBL_TOKEN_FILE')?.value;
    expect(tokenFile).toBeDefined();
    const mount = c().volumeMounts?.find((m) => tokenFile!.startsWith(`${m.mountPath}/`));
    expect(mount?.readOnly).toBe(true);
    expect(mount?.subPath, 'subPath mounts are never updated, so token rotation would need a restart').toBeUndefined();
    const volume = w.pod.volumes?.find((v) => v.name === mount?.name);
    expect(volume?.secret?.secretName).toBe(CREDENTIALS_SECRET);
    // Without the Secret the pod waits in ContainerCreating, saying so, rather than start without credentials.
    expect(volume?.secret?.optional).not.toBe(true);
    expect(tokenFile!.slice(mount!.mountPath.length + 1)).toBe(CREDENTIALS_KEY);
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
    const svc = objects.find(
      (o) => o.layout === 'sharded' && o.doc.kind === 'Service' && o.doc.metadata?.name === sts.spec.serviceName,
    );
    expect((svc?.doc as unknown as IService | undefined)?.spec?.clusterIP).toBe('None');
  });
});

describe('sharded PodDisruptionBudget', () => {
  it('lets voluntary disruptions take one shard at a time', () => {
    const sts = workloads.find((w) => w.doc.kind === 'StatefulSet')!;
    const pdbs = objects.filter((o) => o.layout === 'sharded' && o.doc.kind === 'PodDisruptionBudget');
    expect(pdbs).toHaveLength(1);
    type Pdb = {
      spec: { maxUnavailable?: number; minAvailable?: unknown; selector: { matchLabels: Record<string, string> } };
    };
    const spec = (pdbs[0]!.doc as Pdb).spec;
    expect(spec.maxUnavailable).toBe(1);
    expect(spec.minAvailable).toBeUndefined();
    expect(spec.selector.matchLabels).toEqual(sts.spec.template.metadata.labels);
  });
});

/** The pod template of the one exporter workload of built objects, and its exporter container. */
function exporterPod(docs: Manifest[]): { labels: Record<string, string>; container: IContainer; namespace?: string } {
  for (const d of docs) {
    if (d.kind !== 'Deployment' && d.kind !== 'StatefulSet') continue;
    type Workload = { spec: { template: { metadata: { labels: Record<string, string> }; spec: IPodSpec } } };
    const t = (d as unknown as Workload).spec.template;
    const container = t.spec.containers.find((c) => c.name === 'cribl-exporter');
    if (container) return { labels: t.metadata.labels, container };
  }
  throw new Error('no workload with a cribl-exporter container');
}

/**
 * The job label Prometheus gives the exporter's targets: a ServiceMonitor's Service name, `<namespace>/<PodMonitor>`.
 */
function scrapeJobs(docs: Manifest[], namespace: string): string[] {
  const pod = exporterPod(docs);
  type Monitor = { spec: { selector: { matchLabels: Record<string, string> } } };
  const jobs: string[] = [];
  for (const d of docs.filter((x) => x.kind === 'PodMonitor')) {
    const m = d as unknown as Monitor & { spec: { podMetricsEndpoints: { port: string }[] } };
    const metrics = m.spec.podMetricsEndpoints.some((e) => e.port === 'metrics');
    if (selects(m.spec.selector.matchLabels, pod.labels) && metrics) {
      jobs.push(`${namespace}/${String(d.metadata?.name)}`);
    }
  }
  for (const svc of docs.filter((x) => x.kind === 'Service') as unknown as IService[]) {
    if (!selects(svc.spec?.selector, pod.labels)) continue;
    if (!svc.spec?.ports?.some((p) => p.name === 'metrics' && p.targetPort === 'metrics')) continue;
    for (const d of docs.filter((x) => x.kind === 'ServiceMonitor')) {
      const m = d as unknown as Monitor & { spec: { endpoints: { port: string }[] } };
      const metrics = m.spec.endpoints.some((e) => e.port === 'metrics');
      if (selects(m.spec.selector.matchLabels, svc.metadata?.labels) && metrics) {
        jobs.push(String(svc.metadata?.name));
      }
    }
  }
  return jobs;
}

// The layouts as users build them (kustomize v4+: directories under resources, no bases).
describe.skipIf(skipWithout('kubectl') || leftToFirstRun('kubectl kustomize'))('kubectl kustomize', () => {
  const layouts: [string, string[]][] = [
    ['deploy/kubernetes', ['Deployment', 'PrometheusRule', 'Service', 'ServiceAccount', 'ServiceMonitor']],
    ['deploy/kubernetes/sidecar', ['Deployment', 'PodMonitor', 'PrometheusRule', 'ServiceAccount']],
    [
      'deploy/kubernetes/sharded',
      ['PodDisruptionBudget', 'PrometheusRule', 'Service', 'ServiceAccount', 'ServiceMonitor', 'StatefulSet'],
    ],
  ];

  it.each(layouts)('%s builds into valid objects, without warnings', (dir, kinds) => {
    const { docs, stderr } = kustomize(dir);
    expect(stderr, 'kustomize warnings (e.g. deprecated bases)').toBe('');
    expect(docs.map((d) => String(d.kind)).sort()).toEqual(kinds);
    for (const d of docs) expect(validateManifest(d), name(d)).toEqual([]);
  });

  it.each(layouts)("%s is scraped once, under a job name the alerts' job selector matches", (dir) => {
    const jobs = scrapeJobs(kustomize(dir).docs, 'monitoring');
    expect(jobs).toHaveLength(1);
    expect(jobs[0]).toMatch(alertJobPattern());
  });

  describe.each(['deploy/kubernetes', 'deploy/kubernetes/sharded'])('%s with the networkpolicy component', (layout) => {
    let docs: Manifest[] = [];
    beforeAll(() => {
      const dir = mkdtempSync(join(tmpdir(), 'k8s-netpol-'));
      try {
        writeFileSync(
          join(dir, 'kustomization.yaml'),
          stringify({
            apiVersion: 'kustomize.config.k8s.io/v1beta1',
            kind: 'Kustomization',
            // kustomize takes relative paths only.
            resources: [relative(dir, join(ROOT, layout))],
            components: [relative(dir, join(ROOT, 'deploy/kubernetes/networkpolicy'))],
          }),
        );
        docs = kustomize(dir).docs;
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    });
    interface Policy {
      podSelector: { matchLabels: Record<string, string> };
      policyTypes: string[];
      ingress: INetworkPolicyIngressRule[];
      egress: INetworkPolicyEgressRule[];
    }
    const policy = (): Policy => {
      const p = docs.find((d) => d.kind === 'NetworkPolicy');
      expect(p, 'a NetworkPolicy').toBeDefined();
      return (p as unknown as { spec: Policy }).spec;
    };

    it('applies to the exporter pods and restricts both directions', () => {
      expect(selects(policy().podSelector.matchLabels, exporterPod(docs).labels)).toBe(true);
      expect(policy().policyTypes.sort()).toEqual(['Egress', 'Ingress']);
    });

    it('admits traffic to the metrics port only', () => {
      const ports = policy().ingress.flatMap((r) => r.ports ?? []);
      expect(ports).toEqual([{ port: 'metrics', protocol: 'TCP' }]);
      expect(exporterPod(docs).container.ports?.map((p) => p.name)).toContain('metrics');
    });

    it('lets the exporter reach its leader and DNS, and nothing else', () => {
      const leaderUrl = new URL(exporterPod(docs).container.env!.find((e) => e.name === 'CRIBL_LEADER_URL')!.value!);
      const leaderPort = Number(leaderUrl.port || (leaderUrl.protocol === 'https:' ? 443 : 80));
      const egress = policy().egress;
      const allows = (port: number, protocol: string): boolean =>
        egress.some((r) => (r.ports ?? []).some((p) => p.port === port && (p.protocol ?? 'TCP') === protocol));
      expect(allows(leaderPort, 'TCP'), `leader port ${leaderPort}`).toBe(true);
      expect(allows(443, 'TCP'), 'Cribl.Cloud').toBe(true);
      expect(allows(53, 'UDP') && allows(53, 'TCP'), 'DNS').toBe(true);
      // Every rule names its ports: no rule opens all ports.
      for (const r of egress) expect(r.ports?.length).toBeGreaterThan(0);
      const dns = egress.find((r) => (r.ports ?? []).some((p) => p.port === 53))!;
      expect(dns.to?.[0]?.podSelector?.matchLabels).toEqual({ 'k8s-app': 'kube-dns' });
    });
  });
});
