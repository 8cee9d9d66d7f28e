import { QR_COUNT_HEADER, QrBatchRequest, QrCodeQuery } from '@shared/api/qr';
import { z } from 'zod';
import { defineRoute } from '../../platform/http/routes';
import * as qr from './qr.service';

/** RFC 6266 / 5987: an ASCII fallback and the UTF-8 name (titles are often Cyrillic). */
function attachment(name: string): string {
  const ascii = name.replace(/[^\x20-\x7e]/g, '_').replace(/["\\]/g, '_');
  return `attachment; filename="${ascii}"; filename*=UTF-8''${encodeURIComponent(name)}`;
}

export function qrRoutes(deps: qr.QrDeps) {
  return [
    defineRoute({
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
      handler: async ({ auth, params, body }) => {
        const { archive, count, formName } = await qr.formCodes(deps, auth, params.formId, body);
        return {
          status: 200,
          body: archive,
          headers: {
            'Content-Disposition': attachment(`QR ${formName}.zip`),
            [QR_COUNT_HEADER]: String(count),
          },
        };
      },
    }),
    defineRoute({
      method: 'get',
      path: '/api/tasks/:taskId/qr-code',
      operationId: 'getTaskQrCode',
      summary: 'The QR code (PNG) that opens the task',
      tags: ['qr'],
      request: { params: z.object({ taskId: z.uuid() }), query: QrCodeQuery },
      responses: { 200: { description: 'PNG image', contentType: 'image/png' } },
      handler: async ({ auth, params, query }) => ({
        status: 200,
        body: await qr.taskCode(deps, auth, params.taskId, query.size),
        headers: { 'Cache-Control': 'private, max-age=3600' },
      }),
    }),
  ];
}
