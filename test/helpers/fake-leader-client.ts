import type { LeaderClient, LeaderRequest, LeaderResult } from '../../src/leader/types.js';

/** What a scripted leader answers: a JSON body with a status, or a failure as the real client would report it. */
export type FakeAnswer = { status: number; json: unknown } | { fail: Extract<LeaderResult<unknown>, { ok: false }> };

/** A LeaderClient double that answers from a function and records every request. */
export function fakeLeaderClient(answer: (req: LeaderRequest<unknown>) => FakeAnswer): LeaderClient & {
  calls: LeaderRequest<unknown>[];
} {
  const calls: LeaderRequest<unknown>[] = [];
  return {
    baseUrl: 'http://leader.test/api/v1',
    calls,
    request<T>(req: LeaderRequest<T>): Promise<LeaderResult<T>> {
      calls.push(req);
      // Like the real client: the request leaves the budget (nothing to wait for here) before it is answered.
      req.onSent?.();
      const a = answer(req);
      if ('fail' in a) return Promise.resolve(a.fail);
      const accept = req.accept ?? [200];
      if (!accept.includes(a.status)) {
        return Promise.resolve({
          ok: false,
          status: a.status,
          reason: a.status >= 500 ? 'http_5xx' : 'http_4xx',
          message: `${req.method ?? 'GET'} ${req.path} answered ${a.status}`,
        });
      }
      try {
        return Promise.resolve({ ok: true, status: a.status, body: req.decode(a.json, a.status, {}) });
      } catch (e) {
        return Promise.resolve({ ok: false, reason: 'decode', message: String(e) });
      }
    },
    close: () => Promise.resolve(),
  };
}
