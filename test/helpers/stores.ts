/** A store and a body cache set up as the app sets them up, for tests of what reads them. */
import type { Collector, NodeItem } from '../../src/collectors/collector.js';
import { COLLECTORS } from '../../src/collectors/registry.js';
import { parseConfig } from '../../src/config/parse.js';
import { settingsOf } from '../../src/config/types.js';
import { createBodyCache, type BodyCache, type BodyCacheOptions } from '../../src/exposition/body/index.js';
import { LeaderSnapshot } from '../../src/store/snapshot.js';
import { FakeClock } from './fake-clock.js';

/** The collectors' settings as parsed from no collector flags at all. */
export const DEFAULT_CONFIG = parseConfig({
  argv: ['--leader.url', 'http://127.0.0.1:1/api/v1'],
  env: {},
  readFile: () => '',
});

/** A leader's store whose nodes are written whole (as a discovery and the node polls write them, one by one). */
export class TestStore extends LeaderSnapshot {
  /** Writes a node: its listing facts, then each other collector's. */
  setNode(key: string, n: NodeItem): void {
    this.putNode(key, n.ident, 'listing', n.facts.listing);
    for (const [c, f] of Object.entries(n.facts)) if (c !== 'listing') this.setNodeFacts(key, c, f);
  }

  /** The leader's discovery facts (the listing collector's). */
  discovered(up = true, lastDiscoveryMs = 1717200000000): this {
    this.setLeaderFacts('listing', up ? { up, lastDiscoveryMs } : { up });
    return this;
  }
}

/** A body cache over `sources` with the default settings (every collector registered), inline unless told. */
export function testBody(
  sources: BodyCacheOptions['sources'],
  options: Partial<BodyCacheOptions> = {},
  collectors: readonly Collector[] = COLLECTORS,
): BodyCache {
  return createBodyCache({
    sources,
    collectors,
    settingsOf: (c) => settingsOf(DEFAULT_CONFIG, c),
    intervals: { discoveryMs: DEFAULT_CONFIG.discovery.discoveryMs },
    clock: new FakeClock(),
    ...options,
  });
}
