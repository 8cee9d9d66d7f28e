import { z } from 'zod';
import { endpoint } from './endpoint';

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

/** QR codes of tasks: one task's image, or an archive of a form's tasks. */
export const qrApi = {
  generateFormQrCodes: endpoint({
    method: 'post',
    path: '/api/forms/:formId/qr-codes',
    operationId: 'generateFormQrCodes',
    summary: 'A ZIP archive of QR codes (PNG) of the form’s tasks, each opening its task; with index.csv',
    description:
      'Only for forms with `qr_generation_enabled` (otherwise `409 qr_generation_disabled`). ' +
      'The response header `X-Qr-Count` tells how many codes the archive holds.',
    tags: ['qr'],
    request: { params: z.object({ formId: z.uuid() }), body: QrBatchRequest },
    responses: { 200: { description: 'ZIP archive', contentType: 'application/zip' } },
  }),
  getTaskQrCode: endpoint({
    method: 'get',
    path: '/api/tasks/:taskId/qr-code',
    operationId: 'getTaskQrCode',
    summary: 'The QR code (PNG) that opens the task',
    tags: ['qr'],
    request: { params: z.object({ taskId: z.uuid() }), query: QrCodeQuery },
    responses: { 200: { description: 'PNG image', contentType: 'image/png' } },
  }),
};
