import { z } from 'zod';

/** Most codes one archive holds; a larger form is split by choosing tasks. */
export const MAX_QR_BATCH = 2000;

/** Side of a code image in pixels: the nearest whole number of pixels per module at or under it. */
export const QrSize = z.coerce.number().int().min(128).max(2048).default(512);

export const QrBatchRequest = z
  .object({
    taskIds: z
      .array(z.uuid())
      .min(1)
      .max(MAX_QR_BATCH)
      .optional()
      .meta({
        description: `Tasks of the form to encode; absent: every task of the form you can see (at most ${MAX_QR_BATCH})`,
      }),
    size: QrSize,
  })
  .meta({ id: 'QrBatchRequest' });

export const QrCodeQuery = z.object({ size: QrSize }).meta({ id: 'QrCodeQuery' });

/** Header of a QR archive response: how many codes it holds. */
export const QR_COUNT_HEADER = 'X-Qr-Count';
