import type { ModuleFactory } from '../../platform/module';
import { qrRoutes } from './qr.routes';

/** QR codes (SPEC §11): PNG codes that open tasks, one at a time or a form's batch as a ZIP archive. */
export const qrModule: ModuleFactory = (context) => ({
  name: 'qr',
  routes: qrRoutes({ db: context.db, publicUrl: context.config.publicUrl }),
});
