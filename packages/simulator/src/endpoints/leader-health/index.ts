import type { Handler } from '../../core/env.js';

/** GET /health: the leader's own health, answered without a token (420 with the same body while not serving). */
export const leaderHealth: Handler = (app) => ({ status: 200, body: app.leaderHealthBody('healthy'), mutable: true });
