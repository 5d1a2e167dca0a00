import type { Handler } from '../../core/env.js';

/** GET /w/{nodeId}/edge/metadata: a node's own metadata through the leader (as node health, for the proxy part). */
export const nodeMetadata: Handler = (app, r, hooks) =>
  hooks.proxied(r.params[0] ?? '', (rec) => ({
    status: 200,
    body: app.fleet.metadataJson(rec, app.clock.now()),
    mutable: true,
  }));
