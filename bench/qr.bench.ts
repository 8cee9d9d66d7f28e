import { randomUUID } from 'node:crypto';
import QRCode from 'qrcode';
import { benchApp, benchDatabase, postJson, registerBenchAdmin, report } from './lib';

const CODES = 2_000;

/**
 * A form's 2,000 QR codes as one ZIP (`POST /api/forms/:formId/qr-codes`: query, encoding, PNG,
 * archive, HTTP) against the `qrcode` library rendering the same 2,000 PNGs by itself.
 */
export async function run() {
  const database = await benchDatabase();
  const { app, url } = await benchApp(database);
  try {
    const { accessToken } = await registerBenchAdmin(url);
    const form = await postJson(url, '/api/forms', { name: 'Pumps', qr_generation_enabled: true }, accessToken);
    for (let made = 0; made < CODES; made += 100) {
      const tasks = Array.from({ length: 100 }, (_, i) => ({ title: `Pump ${made + i + 1}` }));
      await postJson(
        url,
        `/api/forms/${form.id}/tasks/batch`,
        { tasks },
        {
          Authorization: `Bearer ${accessToken}`,
          'Idempotency-Key': randomUUID(),
        },
      );
    }
    const archive = async () => {
      const response = await fetch(`${url}/api/forms/${form.id}/qr-codes`, {
        method: 'POST',
        headers: { Authorization: `Bearer ${accessToken}`, 'Content-Type': 'application/json' },
        body: JSON.stringify({ size: 512 }),
      });
      if (response.headers.get('x-qr-count') !== String(CODES)) throw new Error(`archive: ${response.status}`);
      return (await response.arrayBuffer()).byteLength;
    };
    await archive(); // warm-up
    let started = performance.now();
    const bytes = await archive();
    const ours = CODES / ((performance.now() - started) / 1000);

    started = performance.now();
    let libraryBytes = 0;
    for (let i = 0; i < CODES; i++) {
      const png = await QRCode.toBuffer(`${url}/tasks/${randomUUID()}`, { width: 512, errorCorrectionLevel: 'M' });
      libraryBytes += png.length;
    }
    const baseline = CODES / ((performance.now() - started) / 1000);
    report(`QR archive of ${CODES} codes (512 px)`, ours, baseline, 'codes/s');
    console.log(
      `  archive ${(bytes / 1024).toFixed(0)} KiB vs the library's PNGs ${(libraryBytes / 1024).toFixed(0)} KiB`,
    );
  } finally {
    await app.close();
    await database.drop();
  }
}
