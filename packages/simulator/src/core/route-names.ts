import * as z from 'zod';

/**
 * The templates in the route table and the plane of each, for what names routes without routing: the `routes`
 * filters of faults, the routes a token is refused on, the faults' defaults (control-plane routes). The router
 * (router.ts) notes every line it is given.
 */

/** Which error body a failure gets: the control plane's Error, the management plane's DefaultErrorDTO, OAuth's. */
export type Plane = 'control' | 'oauth' | 'mgmt';

const PLANES = new Map<string, Plane>();

/** Records a template of the route table. */
export function noteRoute(route: string, plane: Plane): void {
  PLANES.set(route, plane);
}

/** True for a template in the route table. */
export function isRoute(name: string): boolean {
  return PLANES.has(name);
}

/** The plane of a template; `control` for one that is not in the table (an unmatched request). */
export function planeOf(route: string): Plane {
  return PLANES.get(route) ?? 'control';
}

/** True for a template under /api/v1 (the control plane). */
export function isControlPlane(route: string): boolean {
  return PLANES.get(route) === 'control';
}

const expected = (extra: readonly string[]): string =>
  [...PLANES.keys(), ...extra].map((r) => JSON.stringify(r)).join('|');

/** A route template of the table (as a zod enum of them would read it, with the same message). */
export const routeName = z.string().superRefine((v, ctx) => {
  if (!isRoute(v)) ctx.addIssue({ code: 'custom', message: `Invalid option: expected one of ${expected([])}` });
});

/** A record keyed by route templates or `*` (as a zod partial record of them would read it). */
export function byRoute<T extends z.ZodType>(value: T) {
  // The keys first, the values only when every key is known (as the enum-keyed record did).
  return z
    .record(z.string(), z.unknown())
    .superRefine((rec, ctx) => {
      const bad = Object.keys(rec).filter((k) => k !== '*' && !isRoute(k));
      if (bad.length === 0) return;
      const keys = bad.map((k) => JSON.stringify(k)).join(', ');
      ctx.addIssue({ code: 'custom', message: `Unrecognized key${bad.length > 1 ? 's' : ''}: ${keys}` });
    })
    .pipe(z.record(z.string(), value));
}
