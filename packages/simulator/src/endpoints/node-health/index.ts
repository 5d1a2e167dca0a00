import type { Handler } from '../../core/env.js';

/**
 * GET /w/{nodeId}/health: a node's own health through the leader (the pipeline answers 404/502 for unknown and
 * unreachable nodes and holds slow ones); 420 for a node shutting down or in standby, `overlay` from 4.18.2 on.
 */
export const nodeHealth: Handler = (app, r, hooks) =>
  hooks.proxied(r.params[0] ?? '', (rec) => {
    const status = rec.health === 'slow' ? 'healthy' : rec.health;
    const overlay = app.overlay ? ',"overlay":{"state":"inactive"}' : '';
    const body = `{"status":"${status}","startTime":${rec.startTime}${overlay}}`;
    return { status: status === 'healthy' ? 200 : 420, body, mutable: true };
  });
