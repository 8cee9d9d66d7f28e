import { z } from 'zod';

/** A colour as `#rrggbb`. */
export const Color = z.string().regex(/^#[0-9a-fA-F]{6}$/, 'A colour as #rrggbb');
