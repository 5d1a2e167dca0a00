/** Times on the status page: ages in the largest unit that fits, instants in UTC. */

/** `0.4s`, `5s`, `3m 20s`, `2h 5m`, `4d 3h`; negative ages (clock skew) read as 0s. */
export function formatAge(ms: number): string {
  if (ms < 9_950) return `${(Math.max(0, ms) / 1000).toFixed(1).replace(/\.0$/, '')}s`;
  const s = Math.floor(ms / 1000);
  if (s < 60) return `${s}s`;
  const m = Math.floor(s / 60);
  if (m < 60) return `${m}m ${s % 60}s`;
  const h = Math.floor(m / 60);
  if (h < 48) return `${h}h ${m % 60}m`;
  return `${Math.floor(h / 24)}d ${h % 24}h`;
}

/** `2026-11-24 04:26:34 UTC`. */
export function formatInstant(ms: number): string {
  return `${new Date(ms).toISOString().slice(0, 19).replace('T', ' ')} UTC`;
}
