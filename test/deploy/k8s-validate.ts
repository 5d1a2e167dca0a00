import * as monitoringV1 from '@kubernetes-models/prometheus-operator/monitoring.coreos.com/v1';
import * as appsV1 from 'kubernetes-models/apps/v1';
import * as networkingV1 from 'kubernetes-models/networking.k8s.io/v1';
import * as policyV1 from 'kubernetes-models/policy/v1';
import * as coreV1 from 'kubernetes-models/v1';

/** A Kubernetes object as read from YAML. */
export interface Manifest {
  apiVersion?: string;
  kind?: string;
  metadata?: { name?: string; labels?: Record<string, string> };
  [key: string]: unknown;
}

type ModelClass = new (data: object) => { validate(): void };

// The API groups our manifests use; a kind outside them is reported, not silently skipped.
const GROUPS: Readonly<Record<string, Readonly<Record<string, unknown>>>> = {
  v1: coreV1,
  'apps/v1': appsV1,
  'policy/v1': policyV1,
  'networking.k8s.io/v1': networkingV1,
  'monitoring.coreos.com/v1': monitoringV1,
};

function modelOf(m: Manifest): ModelClass | undefined {
  const group = m.apiVersion === undefined ? undefined : GROUPS[m.apiVersion];
  const model = group && m.kind !== undefined ? group[m.kind] : undefined;
  return typeof model === 'function' ? (model as ModelClass) : undefined;
}

/**
 * Problems of one manifest against the Kubernetes (or prometheus-operator) schema of its apiVersion/kind:
 * schema violations, then fields the schema does not know (typos), as JSON paths. Empty when it is valid.
 */
export function validateManifest(m: Manifest): string[] {
  const Model = modelOf(m);
  if (!Model) return [`no schema for apiVersion ${String(m.apiVersion)} kind ${String(m.kind)}`];
  try {
    new Model(m).validate();
  } catch (e) {
    return [(e as Error).message];
  }
  return unknownFields(Model, m).map((path) => `unknown field ${path}`);
}

/**
 * The schemas allow unknown fields, so a typo such as `runAsNonroot` validates. The generated validators read
 * every property their schema defines, and enumerate objects whose schema is a free map (labels, resources):
 * we run the validator over a proxy that records those reads, and report every key it never looked at.
 */
function unknownFields(Model: ModelClass, m: Manifest): string[] {
  const read = new WeakMap<object, Set<string>>();
  const enumerated = new WeakSet<object>();
  const visited: [object, string][] = [];
  const wrap = (value: unknown, path: string): unknown => {
    if (value === null || typeof value !== 'object') return value;
    visited.push([value, path]);
    const keys = new Set<string>();
    read.set(value, keys);
    return new Proxy(value, {
      get(target, key, receiver) {
        const v: unknown = Reflect.get(target, key, receiver);
        if (typeof key !== 'string') return v;
        keys.add(key);
        return wrap(v, `${path}/${key}`);
      },
      has(target, key) {
        if (typeof key === 'string') keys.add(key);
        return Reflect.has(target, key);
      },
      ownKeys(target) {
        enumerated.add(target);
        return Reflect.ownKeys(target);
      },
    });
  };
  // validate() checks `this`; a model instance would hold copies, so call it on the proxy instead.
  const validate = (Model.prototype as { validate(this: unknown): void }).validate;
  validate.call(wrap(m, ''));
  const unknown = new Set<string>();
  for (const [obj, path] of visited) {
    if (Array.isArray(obj) || enumerated.has(obj)) continue;
    const seen = read.get(obj);
    for (const key of Object.keys(obj)) if (!seen?.has(key)) unknown.add(`${path}/${key}`);
  }
  return [...unknown];
}
