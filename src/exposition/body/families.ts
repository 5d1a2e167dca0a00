/**
 * The families a body is made of, in body order: every registered collector's, scope by scope (management, leader,
 * group, node), each scope in registry order. The main thread and the body worker both build it from the registry,
 * so a family's index means the same family on both sides.
 */
import type { Collector, GroupFamily, Intervals, NodeFamily, Scope, ScopeFamily } from '../../collectors/collector.js';
import { familyHeader, type Family } from '../../format/family.js';
import type { Format } from '../../format/format.js';

/** The families of a body, by scope. */
export interface FamilySet {
  readonly management: readonly ScopeFamily[];
  readonly leader: readonly ScopeFamily[];
  readonly group: readonly GroupFamily[];
  readonly node: readonly NodeFamily[];
}

/** One family as the body cache knows it: whose it is, and its HELP and TYPE lines in each format. */
export interface FamilyEntry {
  readonly collector: string;
  readonly name: string;
  readonly header: Readonly<Record<Format, string>>;
}

/** The families of the collectors given, in body order. */
export function familySet(collectors: readonly Collector[]): FamilySet {
  const of = <F>(scope: Scope): F[] => collectors.flatMap((c) => (c.families[scope] ?? []) as F[]);
  return {
    management: of<ScopeFamily>('management'),
    leader: of<ScopeFamily>('leader'),
    group: of<GroupFamily>('group'),
    node: of<NodeFamily>('node'),
  };
}

/** Settings by collector name, for the HELP of its families (what `freshness` is given). */
export type SettingsOf = (collector: Collector) => unknown;

/** Every family in body order (FamilySet's, flattened), with its collector and HELP from the settings in force. */
export function familyEntries(
  collectors: readonly Collector[],
  settingsOf: SettingsOf,
  intervals: Intervals,
): FamilyEntry[] {
  const scopes: Scope[] = ['management', 'leader', 'group', 'node'];
  return scopes.flatMap((scope) =>
    collectors.flatMap((c) =>
      ((c.families[scope] ?? []) as readonly Family<unknown>[]).map((f) => {
        const help = `${f.what} ${c.freshness(settingsOf(c), intervals, scope)}`;
        const type = f.type ?? 'gauge';
        return {
          collector: c.name,
          name: f.name,
          header: {
            text: familyHeader(f.name, type, help, 'text'),
            openmetrics: familyHeader(f.name, type, help, 'openmetrics'),
          },
        };
      }),
    ),
  );
}

/** Per node family: the collectors whose facts it reads (its own, and those it names). */
export function nodeReads(collectors: readonly Collector[]): readonly (readonly string[])[] {
  return collectors.flatMap((c) => (c.families.node ?? []).map((f) => [c.name, ...(f.reads ?? [])]));
}

/** Per node family: its node detail tag (NodeFamily.detail), in FamilySet order. */
export function nodeTags(collectors: readonly Collector[]): readonly ('basic' | undefined)[] {
  return collectors.flatMap((c) => (c.families.node ?? []).map((f) => f.detail));
}
