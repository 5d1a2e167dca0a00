import type { Logger } from 'pino';
import type { Product } from '@cribl-exporter/api/products';
import {
  decodeGroupPage,
  groupBelongs,
  groupsPage,
  type GroupPage,
  type ListedGroup,
} from '../collectors/groups/index.js';
import {
  decodeWorkerEnvelope,
  decodeWorkers,
  masterWorkersPage,
  productOfLegacy,
  workersPage,
  type ListedNode,
  type WorkerEnvelope,
} from '../collectors/listing/index.js';
import type { LeaderClient, LeaderFailure, LeaderRequest } from '../leader/types.js';

/** A node found by discovery. Keys are node ids: a node listed twice (or on two pages) is exported once. */
export interface ListedFleetNode {
  product: Product;
  listed: ListedNode;
}

/** A group found by discovery. */
export interface ListedFleetGroup {
  product: Product;
  group: ListedGroup;
}

export type DiscoveryOutcome =
  | {
      ok: true;
      nodes: Map<string, ListedFleetNode>;
      groups: ListedFleetGroup[];
      /**
       * Products whose groups listing did not answer in full (a failed page): their groups are not known to be gone,
       * and those listed before are kept (src/store/snapshot.ts, setGroups).
       */
      groupsUnanswered: Product[];
      /** Requests this discovery sent. */
      requests: number;
      malformed: number;
    }
  | LeaderFailure;

export interface DiscoveryOptions {
  client: LeaderClient;
  products: readonly Product[];
  logger: Logger;
  /** Listing page size: 1,000 keeps the listing (groups included) near 0.5 request per 500 nodes. */
  pageSize?: number;
}

type RequestTarget = Pick<LeaderRequest<unknown>, 'endpoint' | 'path' | 'query'>;

/** Nodes per page of the listing (`limit`). */
export const DEFAULT_PAGE_SIZE = 1000;

/** Hard stop against a leader that pages forever. */
const MAX_PAGES = 10_000;

/**
 * After a 404 on /products/{product}/workers, the paged listing is asked again at this discovery at the latest: a
 * one-off 404 (a proxy restarting, a leader starting up) does not pin a 4.17+ leader to the unpaged listing until a
 * restart, and a leader before 4.17 pays one 404 per this many discoveries.
 */
export const PAGED_RETRY_DISCOVERIES = 10;

/** The nodes of one discovery's listing pages, first listing of an id wins; malformed entries counted. */
class ListedNodes {
  readonly nodes = new Map<string, ListedFleetNode>();
  malformed = 0;

  async add(page: WorkerEnvelope, productOf: (n: ListedNode) => Product | undefined): Promise<void> {
    const decoded = await decodeWorkers(page.raw);
    this.malformed += decoded.malformed;
    for (const n of decoded.items) {
      const product = productOf(n);
      if (product && !this.nodes.has(n.id)) this.nodes.set(n.id, { product, listed: n });
    }
  }
}

/**
 * Lists a leader's nodes and groups. Remembers, per leader, that it only serves the pre-4.17
 * /master/workers (after a 404 on /products/{product}/workers), and tries the paged listing again every
 * PAGED_RETRY_DISCOVERIES discoveries.
 */
export class Discoverer {
  readonly #o: Required<DiscoveryOptions>;
  #legacy = false;
  /** Discoveries done with /master/workers since the last 404 on the paged listing. */
  #legacyRuns = 0;
  #fellBackBefore = false;

  constructor(opts: DiscoveryOptions) {
    this.#o = { pageSize: DEFAULT_PAGE_SIZE, ...opts };
  }

  /** One full discovery; `deadline` bounds every request (and its retries). */
  async discover(deadline: number, signal?: AbortSignal): Promise<DiscoveryOutcome> {
    const listed = new ListedNodes();
    let requests = 0;
    // Time to ask the paged listing again.
    const retry = this.#legacy && this.#legacyRuns >= PAGED_RETRY_DISCOVERIES - 1;
    if (retry) this.#legacy = false;
    if (!this.#legacy) {
      const r = await this.#listPaged(listed, retry, deadline, signal);
      requests += r.requests;
      if (!r.ok) return r;
    } else {
      this.#legacyRuns++;
    }
    if (this.#legacy) {
      const r = await this.#listLegacy(listed, deadline, signal);
      requests += r.requests;
      if (!r.ok) return r;
    }
    const { groups, groupsUnanswered, requests: groupRequests } = await this.#listGroups(deadline, signal);
    requests += groupRequests;
    const { nodes, malformed } = listed;
    if (malformed > 0) this.#o.logger.warn({ malformed }, 'skipped malformed node entries in the listing');
    return { ok: true, nodes, groups, groupsUnanswered, requests, malformed };
  }

  /**
   * The paged listing of every product; a 404 on the first product's (a leader before 4.17) switches to the unpaged
   * one, asked again after PAGED_RETRY_DISCOVERIES discoveries (`retry`: this is such a time).
   */
  async #listPaged(
    listed: ListedNodes,
    retry: boolean,
    deadline: number,
    signal: AbortSignal | undefined,
  ): Promise<{ ok: true; requests: number } | (LeaderFailure & { requests: number })> {
    let requests = 0;
    for (const product of this.#o.products) {
      const r = await this.#pages(
        (offset) => workersPage(product, this.#o.pageSize, offset),
        decodeWorkerEnvelope,
        deadline,
        signal,
        (page) => listed.add(page, () => product),
      );
      requests += r.requests;
      if (!r.ok && r.status === 404 && listed.nodes.size === 0 && product === this.#o.products[0]) {
        const fields = { leader: this.#o.client.baseUrl, retryEvery: PAGED_RETRY_DISCOVERIES };
        const what = 'leader has no /products/{product}/workers (before 4.17): using /master/workers';
        if (this.#fellBackBefore) this.#o.logger.debug(fields, what);
        else this.#o.logger.info(fields, what);
        this.#fellBackBefore = true;
        this.#legacy = true;
        this.#legacyRuns = 0;
        break;
      }
      if (!r.ok) return r;
    }
    if (retry && !this.#legacy) {
      this.#o.logger.info(
        { leader: this.#o.client.baseUrl },
        'leader answers /products/{product}/workers again: using the paged listing',
      );
    }
    return { ok: true, requests };
  }

  /** The unpaged listing of leaders before 4.17 (GET /master/workers), the products asked for only. */
  #listLegacy(listed: ListedNodes, deadline: number, signal: AbortSignal | undefined) {
    const wanted = new Set(this.#o.products);
    return this.#pages(
      (offset) => masterWorkersPage(this.#o.pageSize, offset),
      decodeWorkerEnvelope,
      deadline,
      signal,
      (page) =>
        listed.add(page, (n) => {
          const product = productOfLegacy(n);
          return product && wanted.has(product) ? product : undefined;
        }),
    );
  }

  /**
   * Every product's groups. Groups are context, not the fleet: a failure here is logged, keeps the groups listed
   * before (`groupsUnanswered`), and discovery still counts.
   */
  async #listGroups(
    deadline: number,
    signal: AbortSignal | undefined,
  ): Promise<{ groups: ListedFleetGroup[]; groupsUnanswered: Product[]; requests: number }> {
    const groups: ListedFleetGroup[] = [];
    const groupsUnanswered: Product[] = [];
    let requests = 0;
    for (const product of this.#o.products) {
      const r = await this.#pages(
        (offset) => groupsPage(product, this.#o.pageSize, offset, this.#legacy),
        decodeGroupPage,
        deadline,
        signal,
        (page) => {
          for (const g of page.items) if (groupBelongs(g, product)) groups.push({ product, group: g });
        },
      );
      requests += r.requests;
      if (!r.ok) {
        groupsUnanswered.push(product);
        this.#o.logger.warn(
          { product, reason: r.reason, err: r.message },
          'listing groups failed: the groups listed before are kept',
        );
      }
    }
    return { groups, groupsUnanswered, requests };
  }

  /**
   * Pages with limit/offset until the listing is complete: offset reaches totalCount when the
   * leader sends it, otherwise a short or empty page ends it (as the official SDK does).
   */
  async #pages<P extends WorkerEnvelope | GroupPage>(
    build: (offset: number) => RequestTarget,
    decode: (json: unknown) => P,
    deadline: number,
    signal: AbortSignal | undefined,
    onPage: (page: P) => void | Promise<void>,
  ): Promise<{ ok: true; requests: number } | (LeaderFailure & { requests: number })> {
    const limit = this.#o.pageSize;
    let offset = 0;
    for (let requests = 1; requests <= MAX_PAGES; requests++) {
      const res = await this.#o.client.request<P>({
        ...build(offset),
        decode,
        deadline,
        ...(signal ? { signal } : {}),
      });
      if (!res.ok) return { ...res, requests };
      const page = res.body;
      await onPage(page);
      offset += page.received;
      const done =
        page.received === 0 || (page.totalCount !== undefined ? offset >= page.totalCount : page.received < limit);
      if (done) return { ok: true, requests };
    }
    return {
      ok: false,
      reason: 'decode',
      message: `listing did not end after ${MAX_PAGES} pages`,
      requests: MAX_PAGES,
    };
  }
}
