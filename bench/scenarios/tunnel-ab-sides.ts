/** Who the tunnel A/B (tunnel-ab.ts) measures, apart from the run itself so its report (and the report's tests) can name them without starting anything. */
import { FLOOR_MODES, type FloorMode } from '../floor-tunnel.js';

/** The floors (bench/floor-tunnel.ts): median-dev's tunnel into a server that answers itself, relays, forwards, or piped to the dev server. */
export type Side = 'stock' | 'daemon' | FloorMode;
export const FLOORS: readonly FloorMode[] = FLOOR_MODES;
export const SIDES: readonly Side[] = ['stock', 'daemon', ...FLOORS];
