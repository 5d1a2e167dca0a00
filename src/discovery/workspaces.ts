import type { Logger } from 'pino';
import type { Dispatcher } from 'undici';
import { cloudLeaderUrl } from '@cribl-exporter/api/cloud';
import type { AuthProvider } from '../auth/types.js';
import { decodeWorkspaces, workspacesUrl, type ListedWorkspace } from '../collectors/workspaces/index.js';
import { boundedRequest, type BoundedResponse } from '../http/bounded.js';
import { errorLabel } from '../util/errors.js';
import { describeUrl } from '../util/url.js';

/** One workspace leader to monitor. */
export interface WorkspaceTarget {
  /** The workspace id: the `leader` label of self-metrics. */
  name: string;
  /** Global-context base URL, ending in /api/v1. */
  url: string;
  /** Added to every series of this leader. */
  labels: Readonly<Record<string, string>>;
}

/** How to reach the management plane and how to turn a workspace into a leader URL. */
export interface WorkspaceListOptions {
  managementUrl: string;
  organization: string;
  domain: string;
  /** Bearer of the management plane: the Cribl.Cloud client-credentials provider. */
  auth: AuthProvider;
  dispatcher: Dispatcher;
  /** Leader URL of a workspace. @default {@link workspaceLeaderUrl} */
  urlForWorkspace?: (ws: ListedWorkspace) => string;
  timeoutMs?: number;
  signal?: AbortSignal;
}

/**
 * The Active workspaces as targets, with every workspace listed (whatever its state), or why the list could not be
 * had (one line, no secret).
 */
export type WorkspaceListResult =
  { ok: true; targets: WorkspaceTarget[]; workspaces: ListedWorkspace[] } | { ok: false; message: string };

/**
 * Leader base URL of a workspace: its `leaderFQDN` when the management plane gives one (it is the leader's own
 * host name), else the documented https://<workspace>-<organization>.<domain>/api/v1. `scheme` exists for the
 * simulated management plane, which serves plain http.
 */
export function workspaceLeaderUrl(
  ws: Pick<ListedWorkspace, 'workspaceId' | 'leaderFQDN'>,
  organization: string,
  domain: string,
  scheme: 'https' | 'http' = 'https',
): string {
  const fqdn = ws.leaderFQDN.trim().replace(/\/+$/, '');
  if (fqdn === '') return cloudLeaderUrl(ws.workspaceId, organization, domain);
  const origin = /^https?:\/\//.test(fqdn) ? fqdn : `${scheme}://${fqdn}`;
  return origin.endsWith('/api/v1') ? origin : `${origin}/api/v1`;
}

/**
 * GET {managementUrl}/v1/organizations/{organization}/workspaces and returns the Active workspaces as targets,
 * sorted by id. A 401 gets one new token and one retry.
 */
export async function listWorkspaceTargets(opts: WorkspaceListOptions): Promise<WorkspaceListResult> {
  const url = workspacesUrl(opts.managementUrl, opts.organization);
  const where = `listing workspaces (GET ${describeUrl(url)})`;
  let res: BoundedResponse | undefined;
  for (let attempt = 1; attempt <= 2; attempt++) {
    let token: string;
    try {
      token = await opts.auth.token(opts.signal);
    } catch (e) {
      return { ok: false, message: `${where}: no token: ${e instanceof Error ? e.message : 'unknown error'}` };
    }
    try {
      res = await boundedRequest({
        url,
        method: 'GET',
        headers: { authorization: `Bearer ${token}`, accept: 'application/json' },
        dispatcher: opts.dispatcher,
        ...(opts.signal ? { signal: opts.signal } : {}),
        ...(opts.timeoutMs !== undefined ? { timeoutMs: opts.timeoutMs } : {}),
      });
    } catch (e) {
      return { ok: false, message: `${where} failed: ${errorLabel(e)}` };
    }
    if (res.status !== 401 || attempt === 2 || !opts.auth.invalidate(token)) break;
  }
  if (!res || res.status !== 200) return { ok: false, message: `${where} failed: HTTP ${res?.status ?? 'none'}` };
  const items = decodeWorkspaces(res.json);
  if (!items) return { ok: false, message: `${where}: the answer is not a workspace list` };
  const toUrl =
    opts.urlForWorkspace ?? ((ws: ListedWorkspace) => workspaceLeaderUrl(ws, opts.organization, opts.domain));
  const targets = items
    .filter((ws) => ws.state === 'Active')
    .map((ws) => ({ name: ws.workspaceId, url: toUrl(ws), labels: { workspace: ws.workspaceId } }))
    .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  return { ok: true, targets, workspaces: items };
}

/** What changed between two discoveries, by target name. */
export interface TargetDiff {
  added: WorkspaceTarget[];
  removed: WorkspaceTarget[];
  /** Same name, different URL or labels: stop the old one and start the new one. */
  changed: WorkspaceTarget[];
  unchanged: WorkspaceTarget[];
}

/** Compares two target lists by name. */
export function diffTargets(old: readonly WorkspaceTarget[], next: readonly WorkspaceTarget[]): TargetDiff {
  const before = new Map(old.map((t) => [t.name, t]));
  const after = new Map(next.map((t) => [t.name, t]));
  const diff: TargetDiff = { added: [], removed: [], changed: [], unchanged: [] };
  for (const t of next) {
    const prev = before.get(t.name);
    if (!prev) diff.added.push(t);
    else if (sameTarget(prev, t)) diff.unchanged.push(t);
    else diff.changed.push(t);
  }
  for (const t of old) if (!after.has(t.name)) diff.removed.push(t);
  return diff;
}

function sameTarget(a: WorkspaceTarget, b: WorkspaceTarget): boolean {
  const ka = Object.keys(a.labels).sort();
  const kb = Object.keys(b.labels).sort();
  return a.url === b.url && ka.length === kb.length && ka.every((k, i) => k === kb[i] && a.labels[k] === b.labels[k]);
}

/** A discovery round: the targets now, and what changed since the last successful round. */
export interface WorkspaceRefresh extends TargetDiff {
  ok: boolean;
  /** Why the round failed (the previous targets are kept). */
  message?: string;
  targets: readonly WorkspaceTarget[];
  /** Every workspace of the last successful listing, whatever its state. */
  workspaces: readonly ListedWorkspace[];
}

/** Remembers the last successful list, so each refresh reports appearing and disappearing workspaces. */
export interface WorkspaceWatcher {
  refresh(signal?: AbortSignal): Promise<WorkspaceRefresh>;
  current(): readonly WorkspaceTarget[];
}

/**
 * Workspace discovery across rounds. A failed round keeps the previous targets (a management-plane hiccup must
 * not drop every workspace's series) and logs one warning.
 */
export function createWorkspaceWatcher(
  opts: Omit<WorkspaceListOptions, 'signal'> & { logger: Logger },
): WorkspaceWatcher {
  let targets: readonly WorkspaceTarget[] = [];
  let workspaces: readonly ListedWorkspace[] = [];
  return {
    async refresh(signal) {
      const result = await listWorkspaceTargets({ ...opts, ...(signal ? { signal } : {}) });
      if (!result.ok) {
        opts.logger.warn({ organization: opts.organization }, result.message);
        // The previous targets stay, all unchanged.
        return { ok: false, message: result.message, targets, workspaces, ...diffTargets(targets, targets) };
      }
      const diff = diffTargets(targets, result.targets);
      targets = result.targets;
      workspaces = result.workspaces;
      if (diff.added.length + diff.removed.length + diff.changed.length > 0) {
        opts.logger.info(
          {
            organization: opts.organization,
            added: diff.added.map((t) => t.name),
            removed: diff.removed.map((t) => t.name),
            changed: diff.changed.map((t) => t.name),
          },
          'Cribl.Cloud workspaces changed',
        );
      }
      return { ok: true, targets, workspaces, ...diff };
    },
    current: () => targets,
  };
}
