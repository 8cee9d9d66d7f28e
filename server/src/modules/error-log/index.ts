import type { ModuleFactory } from '../../platform/module';
import { recordErrors, recordSyncFailures } from './error-log.middleware';
import { errorLogRoutes } from './error-log.routes';

/**
 * Error log: every response with status 400 or higher (but 401, health checks and the event
 * stream), and every sync message answered so, identical errors within 60 seconds folded into one
 * entry; administrators read and delete their organization's entries.
 */
export const errorLogModule: ModuleFactory = (context) => {
  const deps = { db: context.db, events: context.events };
  return {
    name: 'error-log',
    routes: errorLogRoutes(context.db),
    middleware: [recordErrors(deps)],
    observeSyncFailure: recordSyncFailures(deps, context.logger),
  };
};
