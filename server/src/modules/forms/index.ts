import type { ModuleFactory } from '../../platform/module';
import { formsRoutes } from './forms.routes';
import { formsSyncSource, statusesSyncSource } from './forms.sync';

/** Forms: fields of every type, statuses and the moves allowed between them. */
export const formsModule: ModuleFactory = (context) => ({
  name: 'forms',
  routes: formsRoutes({ db: context.db, events: context.events }),
  syncSources: [formsSyncSource, statusesSyncSource],
});
