import { z } from 'zod';

/** Modules whose use is granted per user and per role through the access matrix (SPEC §5.6). */
export const GatedModule = z.enum(['gps', 'finance']);
export type GatedModule = z.infer<typeof GatedModule>;
export const GATED_MODULES = GatedModule.options;
