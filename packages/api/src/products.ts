/** The products whose nodes a leader manages: Cribl Stream (worker groups) and Cribl Edge (fleets). */
export const PRODUCTS = ['stream', 'edge'] as const;
export type Product = (typeof PRODUCTS)[number];
