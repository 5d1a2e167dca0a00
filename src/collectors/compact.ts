/**
 * A node's metadata as the store keeps it between polls (up to the metadata interval): the fields the families
 * read, with the parts a fleet has in common (Cribl mode and version, OS, Kubernetes namespace) shared among its
 * nodes instead of one copy per node. Families and the status page read it as they read the decoder's output.
 */
import { Interner, StringInterner } from '../util/intern.js';
import type { NodeMetadata } from './node-metadata.js';

type Cribl = NonNullable<NodeMetadata['cribl']>;
type Os = NonNullable<NodeMetadata['os']>;

const strings = new StringInterner();
const cribls = new Interner<Cribl>();
const oses = new Interner<Os>();

/** The same item, its shared parts from the tables above (frozen: several nodes hold each). */
export function compactMetadata(item: NodeMetadata): NodeMetadata {
  const { cribl, os, kube } = item;
  const sharedCribl =
    cribl &&
    cribls.get(JSON.stringify([cribl.mode, cribl.version, cribl.config_version, cribl.group]), () =>
      Object.freeze({
        mode: strings.intern(cribl.mode),
        version: strings.intern(cribl.version),
        config_version: strings.intern(cribl.config_version),
        group: strings.intern(cribl.group),
      }),
    );
  const sharedOs =
    os &&
    oses.get(JSON.stringify([os.os_name, os.os_version]), () =>
      Object.freeze({ os_name: strings.intern(os.os_name), os_version: strings.intern(os.os_version) }),
    );
  return {
    timestamp: item.timestamp,
    cribl: sharedCribl,
    os: sharedOs,
    kube: kube && { namespace: strings.intern(kube.namespace), pod: kube.pod },
  };
}
