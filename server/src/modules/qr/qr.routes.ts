import { QR_COUNT_HEADER, qrApi } from '@shared/api/qr';
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
      ...qrApi.generateFormQrCodes,
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
      ...qrApi.getTaskQrCode,
      handler: async ({ auth, params, query }) => ({
        status: 200,
        body: await qr.taskCode(deps, auth, params.taskId, query.size),
        headers: { 'Cache-Control': 'private, max-age=3600' },
      }),
    }),
  ];
}
