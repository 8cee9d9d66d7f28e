import jsQR from 'jsqr';
import { PNG } from 'pngjs';
import { fromBuffer, type ZipFile } from 'yauzl';

/** What a phone's camera reads from a PNG image of a QR code (undefined: no code found). */
export function scanQr(png: Buffer): string | undefined {
  const image = PNG.sync.read(png);
  return jsQR(new Uint8ClampedArray(image.data), image.width, image.height)?.data;
}

/** The files of a ZIP archive by name, in archive order. */
export async function unzip(archive: Buffer): Promise<Map<string, Buffer>> {
  const zip = await new Promise<ZipFile>((resolve, reject) =>
    fromBuffer(archive, { lazyEntries: true }, (error, file) => (error ? reject(error) : resolve(file))),
  );
  const files = new Map<string, Buffer>();
  await new Promise<void>((resolve, reject) => {
    zip.on('entry', (entry) => {
      zip.openReadStream(entry, async (error, stream) => {
        if (error) return reject(error);
        const parts: Buffer[] = [];
        for await (const part of stream) parts.push(part as Buffer);
        files.set(entry.fileName, Buffer.concat(parts));
        zip.readEntry();
      });
    });
    zip.on('end', resolve);
    zip.on('error', reject);
    zip.readEntry();
  });
  return files;
}
