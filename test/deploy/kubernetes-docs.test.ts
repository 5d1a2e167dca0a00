import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { IContainer, IPodSpec } from 'kubernetes-models/v1';
import { parse, stringify } from 'yaml';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { leftToFirstRun } from '../helpers/repeat.js';
import { docsSection, fencedBlocks, shellCommands } from './docs.js';
import { validateManifest, type Manifest } from './k8s-validate.js';
import { CREDENTIALS_KEY, CREDENTIALS_SECRET, kustomize, loadDocs } from './kustomize.js';
import { ROOT } from './prometheusrule.js';
import { run, skipWithout, toolTimeouts } from './tools.js';

// kubectl: see TOOL_TIMEOUT_MS.
toolTimeouts();

// The Kubernetes section of docs/deploy.md (the README shows two of its commands; test/readme.test.ts), run
// as far as a machine without a cluster allows: `kubectl create secret` with --dry-run=client, `kubectl apply -k`
// as `kubectl kustomize`, on the overlay the section shows. The working directory holds the repository as
// ./cribl-exporter (the overlay's `../cribl-exporter/deploy/kubernetes`) and ./deploy (the commands' paths).

const section = docsSection('docs/deploy.md', 'Kubernetes');
const commands = shellCommands(section);
const overlayText = fencedBlocks(section, 'yaml').find((b) => b.startsWith('# my-cribl-exporter/kustomization.yaml\n'));
const componentsText = fencedBlocks(section, 'yaml').find((b) => b.startsWith('components:'));

interface Ran {
  command: string;
  docs: Manifest[];
}

/** Runs one documented command the way this machine can; throws on a command the test does not know. */
function runDocumented(command: string, cwd: string): Ran {
  const argv = [...command.matchAll(/"([^"]*)"|(\S+)/g)].map((m) => m[1] ?? m[2]!);
  if (argv[0] !== 'kubectl') throw new Error(`no way to run "${command}" here`);
  let args: string[];
  if (argv[1] === 'create' && argv[2] === 'secret') args = [...argv.slice(1), '--dry-run=client', '-o', 'yaml'];
  else if (argv[1] === 'apply' && argv[2] === '-k' && argv.length === 4) args = ['kustomize', argv[3]!];
  else if (argv[1] === 'kustomize' && argv.length === 3) args = argv.slice(1);
  else throw new Error(`no way to run "${command}" without a cluster`);
  const r = run('kubectl', args, cwd);
  if (r.status !== 0) throw new Error(`${command}: ${r.stderr}`);
  return { command, docs: loadDocs(r.stdout) };
}

const exporterOf = (docs: Manifest[]): { pod: IPodSpec; container: IContainer } => {
  const d = docs.find((x) => x.kind === 'Deployment' || x.kind === 'StatefulSet');
  const pod = (d as unknown as { spec: { template: { spec: IPodSpec } } }).spec.template.spec;
  return { pod, container: pod.containers.find((c) => c.name === 'cribl-exporter')! };
};

const noKubectl = skipWithout('kubectl') || leftToFirstRun('docs/deploy.md kubectl commands');
describe.skipIf(noKubectl)('docs/deploy.md, Kubernetes: the commands and the overlay', () => {
  let dir: string;
  const ran = new Map<string, Ran>();
  const overlay = parse(overlayText ?? '') as { namespace: string; patches: { patch: string }[] };

  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'k8s-docs-'));
    symlinkSync(ROOT, join(dir, 'cribl-exporter'));
    symlinkSync(join(ROOT, 'deploy'), join(dir, 'deploy'));
    mkdirSync(join(dir, 'my-cribl-exporter'));
    writeFileSync(join(dir, 'my-cribl-exporter/kustomization.yaml'), overlayText ?? '');
    writeFileSync(join(dir, 'cribl-token'), 'a-leader-token\n');
    for (const c of commands) ran.set(c, runDocumented(c, dir));
  });
  afterAll(() => {
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('shows the commands this test runs, and the overlay', () => {
    expect(overlayText).toBeDefined();
    expect(commands).toEqual([
      'kubectl create secret generic cribl-exporter-credentials --namespace monitoring --from-file=token=./cribl-token',
      'kubectl kustomize my-cribl-exporter',
      'kubectl apply -k my-cribl-exporter',
      'kubectl apply -k deploy/kubernetes/sharded',
    ]);
  });

  it('creates the Secret the manifests mount, with the key the token file names, where the overlay deploys', () => {
    type Secret = Manifest & { data: Record<string, string>; metadata: { namespace: string } };
    const secret = ran.get(commands[0]!)!.docs[0] as Secret;
    expect(secret.kind).toBe('Secret');
    expect(secret.metadata.name).toBe(CREDENTIALS_SECRET);
    expect(secret.metadata.namespace).toBe(overlay.namespace);
    expect(Object.keys(secret.data)).toEqual([CREDENTIALS_KEY]);
    expect(Buffer.from(secret.data[CREDENTIALS_KEY]!, 'base64').toString()).toBe('a-leader-token\n');

    const { pod, container } = exporterOf(ran.get('kubectl apply -k my-cribl-exporter')!.docs);
    const volume = pod.volumes?.find((v) => v.secret !== undefined);
    expect(volume?.secret?.secretName).toBe(CREDENTIALS_SECRET);
    const mount = container.volumeMounts?.find((m) => m.name === volume?.name);
    const tokenFile = container.env?.find((e) => e.name === 'CRIBL_TOKEN_FILE')?.value;
    expect(tokenFile).toBe(`${mount?.mountPath}/${CREDENTIALS_KEY}`);
  });

  it('builds the overlay into valid objects in its namespace, with its image, and no Secret of its own', () => {
    const { docs } = ran.get('kubectl apply -k my-cribl-exporter')!;
    expect(ran.get('kubectl kustomize my-cribl-exporter')!.docs).toEqual(docs);
    for (const d of docs) expect(validateManifest(d), String(d.kind)).toEqual([]);
    for (const d of docs) {
      expect((d.metadata as { namespace?: string }).namespace, String(d.kind)).toBe(overlay.namespace);
    }
    expect(docs.map((d) => d.kind)).not.toContain('Secret');
    expect(exporterOf(docs).container.image).toBe('registry.example.com/cribl-exporter:0.1.0');
  });

  it("patches CRIBL_LEADER_URL by name: the user's URL, once, and NODE_OPTIONS (the heap cap) kept", () => {
    const env = exporterOf(ran.get('kubectl apply -k my-cribl-exporter')!.docs).container.env ?? [];
    type Patch = { spec: { template: { spec: { containers: IContainer[] } } } };
    const patched = (parse(overlay.patches[0]!.patch) as Patch).spec.template.spec.containers[0]!.env![0]!;
    expect(patched.name).toBe('CRIBL_LEADER_URL');
    expect(env.filter((e) => e.name === 'CRIBL_LEADER_URL')).toEqual([patched]);
    expect(env.find((e) => e.name === 'NODE_OPTIONS')?.value).toMatch(/--max-old-space-size=\d+/);
    const base = exporterOf(kustomize('deploy/kubernetes').docs).container.env ?? [];
    // The same variables as the layout's, in whatever order the merge leaves them.
    expect(env.map((e) => e.name).sort()).toEqual(base.map((e) => e.name).sort());
  });

  it('adds the NetworkPolicy with the components entry it shows', () => {
    expect(componentsText).toBeDefined();
    const withComponent = { ...(parse(overlayText!) as object), ...(parse(componentsText!) as object) };
    writeFileSync(join(dir, 'my-cribl-exporter/kustomization.yaml'), stringify(withComponent));
    const docs = runDocumented('kubectl kustomize my-cribl-exporter', dir).docs;
    const policy = docs.find((d) => d.kind === 'NetworkPolicy');
    expect((policy?.metadata as { namespace?: string } | undefined)?.namespace).toBe(overlay.namespace);
    expect(validateManifest(policy!)).toEqual([]);
  });

  it('applies the sharded layout with its PodDisruptionBudget', () => {
    const kinds = ran.get('kubectl apply -k deploy/kubernetes/sharded')!.docs.map((d) => d.kind);
    expect(kinds).toContain('StatefulSet');
    expect(kinds).toContain('PodDisruptionBudget');
  });

  it('names only files that exist', () => {
    for (const [, path] of section.matchAll(/`(deploy\/[\w./-]+)`/g)) {
      expect(() => readFileSync(join(ROOT, path!.replace(/\/$/, '')))).not.toThrow(/ENOENT/);
    }
  });
});
